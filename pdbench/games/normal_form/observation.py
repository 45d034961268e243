"""What one player is shown (`NormalForm.observe`), its round_state:

- `game` ("normal-form"), `phase` ("design" | "vote" | "sign" | "play"), `round_number`,
  `round_limit`, `mechanism`, `strategies` ("pure" | "mixed"), `player` (your position, 1..N:
  CoopEval's "Player {id}"), `players` (N), `actions` (the base game's tokens, "A0", ...).
- `payoffs`: every profile, `[{"actions": ["A0", "A1"], "points": [0, 3]}, ...]`, actions and
  points in player order (Player 1 first).
- `your_score`, `scores` {"Player 1": total, ...}: totals so far.
- `discount` (only when below 1, under repetition or reputation): CoopEval's chance of another
  round after each, as the prompt tells it; `round_limit` is then null, since the prompt tells
  the chance instead of the number of rounds and an agent file is told no more than an LLM.
- `continuation` (only when set, under repetition or reputation): the chance of another round
  after each, the match stopping at random (`continuation`); told as `discount` is, and
  `round_limit` null: the drawn length is never shown.
- `history`: the last `lookup_depth` rounds, oldest first, `[{"round_number", "actions":
  {"Player 1": "A0", ...}}]`: the actions played (a delegator's the mediator's), as CoopEval's
  repetition shows them, without payoffs.
- design phase with `design_scope` run: `design_scope` "run" (the answer is the seat's design
  for every match of the replicate; the prompt is the same as a match's, as CoopEval's).
- vote phase: `proposals` `[{"id": "M1" | "C1", "proposer": 1, "mediator": {"1": "A0", ...}}
  | {..., "contract": {"A0": 0, "A1": -2}}]`, every player's design in player order.
- sign phase: `contract` `{"proposer": 2, "payments": {...}}`, the winning design.
- play phase under mediation: `mediator` `{"proposer", "plays": {"1": ..., "N": ...}}` and
  `delegate` (the token A{n} that delegates); under contracting: `contract` `{"proposer",
  "payments"}`, `contract_active` and `refused_by` (the players who did not sign).

- under reputation (`reputation`, CoopEval's Reputation): `player` is your position in this
  round's group, `players` the group's size, `population` every seat of the match, `your_score`
  and `scores` your own total only (no co-player's total is shown), `history` empty (partners
  change every round) and `reputation` `{"rounds": [first, last] | [], "players": [{"label":
  "Player 1", "agent": "You" | "Agent #n", "history": [{"round_number", "action", "points",
  "co_players": [{"agent", "action", "points", "history": [...]}]}]}]}`: you first, then your
  co-players in position order, their rounds of the window oldest first, nested to
  `reputation_order` levels (`normal_form.reputation`, `pdbench.games.reputation_tree`).
- under reputation with `reputation_shown: image` (`images`): no `reputation` tree; instead
  `reputation_shown` "image", `norm` (its name: "image_scoring" | "standing" |
  "stern_judging" | "shunning"), `cooperative_action` (the token the norm counts as giving,
  the shown payoffs' cooperative action, "A0" in a 2x2 game) and `partner_image` ("good" |
  "bad"): this round's partner's image at the round's start, public by design. Your own image
  and the partner's history and name are not shown.

Nothing else: no other player's design before the vote, no ballot (only the winner), no
signature before all are in, no distribution another player answered, never the seed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pdbench.games.normal_form.base_games import number, token
from pdbench.games.normal_form.designs import contract_json, mediator_json
from pdbench.games.normal_form.images import partner_of, word

if TYPE_CHECKING:
    from pdbench.games.normal_form.options import Options
    from pdbench.games.normal_form.state import Decision, NormalFormState


def player_name(index: int) -> str:
    return f"Player {index + 1}"


def proposal_key(mechanism: str, index: int) -> str:
    """The key of player `index`'s design on a ballot: M1, M2, ... or C1, C2, ..."""
    return f"{'M' if mechanism == 'mediation' else 'C'}{index + 1}"


def _design(rules: Options, design: tuple[int, ...]) -> dict[str, Any]:
    if rules.mechanism == "mediation":
        return {"mediator": mediator_json(design)}
    return {"contract": contract_json(design)}


def _winner(decision: Decision) -> tuple[int, tuple[int, ...]]:
    assert decision.winner is not None
    return decision.winner + 1, decision.designs[decision.winner]


def _in_population(
    rules: Options, platform_name: str, state: NormalFormState, player: int
) -> dict[str, Any]:
    """A reputation round's round_state for population index `player` (module docstring)."""
    from pdbench.games.normal_form.reputation import position_of, shown_to

    assert state.groups is not None
    game = rules.game
    position = position_of(state.groups, player)[1]
    own = float(state.totals[player])
    if rules.shows_images:  # the partner's image instead of the tree
        shown = _image_shown(rules, state, player)
    else:
        shown = {"reputation": shown_to(rules, state, player)}
    return {
        "game": platform_name,
        "phase": state.phase,
        "round_number": state.round_number,
        "round_limit": _told_limit(rules),
        "mechanism": rules.mechanism,
        "strategies": rules.strategies,
        "player": position + 1,
        "players": game.players,
        "population": rules.population,
        "actions": list(game.tokens),
        "payoffs": _payoff_rows(rules),
        "your_score": own,
        "scores": {player_name(position): own},
        "history": [],
        **shown,
        **_told_chance(rules),
    }


def _image_shown(rules: Options, state: NormalFormState, player: int) -> dict[str, Any]:
    """The image keys of a reputation round's round_state (module docstring)."""
    assert state.groups is not None
    return {
        "reputation_shown": "image",
        "norm": rules.norm,
        "cooperative_action": token(rules.game.cooperative),
        "partner_image": word(state.images[partner_of(state.groups, player)]),
    }


def _told_limit(rules: Options) -> int | None:
    """`round_limit`: the rounds, unless a continuation chance is told instead (then null)."""
    return rules.rounds if not _told_chance(rules) else None


def _told_chance(rules: Options) -> dict[str, float]:
    """`discount` when one below 1 is told as the continuation chance, `continuation` when
    the match stops at random; else nothing, as before."""
    if rules.continuation is not None:
        return {"continuation": rules.continuation}
    return {"discount": rules.discount} if rules.discount != 1 else {}


def told_chance(round_state: dict[str, Any]) -> float | None:
    """The chance of another round a prompt tells (`discount` or `continuation`), or None."""
    chance = round_state.get("discount", round_state.get("continuation"))
    return None if chance is None else float(chance)


def _payoff_rows(rules: Options) -> list[dict[str, Any]]:
    game = rules.game
    return [
        {"actions": [token(a) for a in p], "points": [number(x) for x in game.payoffs(p)]}
        for p in game.profiles()
    ]


def round_state(
    rules: Options, platform_name: str, state: NormalFormState, player: int
) -> dict[str, Any]:
    if rules.mechanism == "reputation":
        return _in_population(rules, platform_name, state, player)
    game = rules.game
    names = [player_name(i) for i in range(game.players)]
    depth = rules.lookup_depth
    shown = state.finished[max(0, len(state.finished) - depth) :] if depth else ()
    seen: dict[str, Any] = {
        "game": platform_name,
        "phase": state.phase,
        "round_number": state.round_number,
        "round_limit": _told_limit(rules),
        "mechanism": rules.mechanism,
        "strategies": rules.strategies,
        "player": player + 1,
        "players": game.players,
        "actions": list(game.tokens),
        "payoffs": _payoff_rows(rules),
        "your_score": float(state.totals[player]),
        "scores": {n: float(t) for n, t in zip(names, state.totals, strict=True)},
        "history": [
            {
                "round_number": past.round_number,
                "actions": {n: token(a) for n, a in zip(names, past.realised, strict=True)},
            }
            for past in shown
        ],
        **_told_chance(rules),
    }
    decision = state.decision
    if state.phase == "design" and rules.design_scope == "run":
        seen["design_scope"] = "run"
    if state.phase == "vote" and decision is not None:
        seen["proposals"] = [
            {"id": proposal_key(rules.mechanism, i), "proposer": i + 1, **_design(rules, design)}
            for i, design in enumerate(decision.designs)
        ]
    if state.phase == "sign" and decision is not None:
        proposer, design = _winner(decision)
        seen["contract"] = {"proposer": proposer, "payments": contract_json(design)}
    if state.phase == "play" and decision is not None and decision.winner is not None:
        proposer, design = _winner(decision)
        if rules.mechanism == "mediation":
            seen["mediator"] = {"proposer": proposer, "plays": mediator_json(design)}
            seen["delegate"] = token(game.actions)
        else:
            assert decision.signed is not None
            seen["contract"] = {"proposer": proposer, "payments": contract_json(design)}
            seen["contract_active"] = decision.active
            seen["refused_by"] = [names[i] for i, s in enumerate(decision.signed) if not s]
    return seen
