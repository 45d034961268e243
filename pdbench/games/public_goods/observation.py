"""What one player is shown (`PublicGoods.observe`): exactly the issue's round_state, plus
`game`.

- `phase` ("talk" | "contribute" | "punish"), `round_number`, `round_limit` (`rounds`, or null
  when not disclosed), `you` (your label this round), `players` (your group's labels, yours
  included, in order), `endowment` (what you may contribute this round: E, or under balance
  accounting your balance), `multiplier`.
- `your_score` and `scores` {label: total}: totals so far; in the punish phase they include this
  round's earnings from the contribution stage. Under strangers `scores` holds your own total
  only: the others' totals would let a player recognise them from round to round.
- `messages`: this round's talk in your group, in the order said, each {author, text}.
- `history`: your past rounds, each {round_number, you, contributions {label: int}, earnings
  {label: number}, punished {punisher: {target: points}}} with the labels as shown in that
  round (under strangers, that round's group and labels); `punished` lists the points that took
  effect, positive ones only ({} without a punish phase).
- `reputation` (only when `reputation_depth` k > 0; `reputation.shown_reputation`): `rounds`,
  the window [first, last] of the global rounds shown ([] in round 1), and `players`: you first,
  then the other members of your group in label order, each {label (this round's), agent ("You"
  or "Agent #n", the same all match), history}; history lists that player's rounds in the window,
  oldest first, each {round_number, contribution, earnings, co_players}, co_players the others
  of its group then, each {agent, contribution, earnings} and, while the level is below
  `reputation_order`, their own `history` of the window's rounds before that one (same shape).
  The same all round (every phase): it is drawn from finished rounds only.
- In the punish phase also `contributions` {label: int} of this round, `punish_cost`,
  `punish_fine` and `max_punish`: the most points you may give now (the option, or fewer when
  your contribution-stage earnings limit your spending).

Nothing else: no seat id, no other group, no contribution of this round before all are in.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from pdbench.games.public_goods.options import Options
from pdbench.games.public_goods.payoff import shown
from pdbench.games.public_goods.reputation import YOU, Played, pseudonyms, shown_reputation
from pdbench.games.public_goods.state import PublicGoodsState, RoundRecord


def as_number(value: Fraction | float | int) -> int | float:
    """A whole amount as an int, any other as a float."""
    exact = Fraction(value) if not isinstance(value, Fraction) else value
    return int(exact) if exact.denominator == 1 else float(exact)


def available(options: Options, state: PublicGoodsState, player: int) -> Fraction:
    """What `player` may contribute this round: E, or its balance (never below 0)."""
    if options.accounting == "balance":
        return max(state.totals[player], Fraction(0))
    return Fraction(options.endowment)


def score_now(options: Options, state: PublicGoodsState, player: int) -> Fraction:
    """The player's total as shown now (with the contribution stage's earnings once paid)."""
    if state.purses is None:
        return state.totals[player]
    if options.accounting == "balance":
        return state.purses[player]
    return state.totals[player] + state.purses[player]


def _past_round(record: RoundRecord, player: int) -> dict[str, Any]:
    members = record.draw.groups[record.draw.group_of(player)]
    label = record.draw.labels
    return {
        "round_number": record.round_number,
        "you": label[player],
        "contributions": {label[i]: record.contributions[i] for i in members},
        "earnings": {label[i]: record.shown_earnings[i] for i in members},
        "punished": {
            label[i]: {label[t]: n for t, n in record.applied[i].items()}
            for i in members
            if record.applied[i]
        },
    }


def _reputation(options: Options, state: PublicGoodsState, player: int) -> dict[str, Any]:
    """What `player` is shown of its new group's last rounds (module `reputation`)."""
    names = pseudonyms(state.seed, options.population)
    recent = [
        Played(
            round_number=record.round_number,
            groups=record.draw.groups,
            moves=dict(enumerate(record.contributions)),
            points=dict(enumerate(record.shown_earnings)),
        )
        for record in state.finished[-options.reputation_depth :]
    ]
    members = state.draw.groups[state.draw.group_of(player)]
    listed = [(player, state.draw.labels[player])] + [
        (i, state.draw.labels[i]) for i in members if i != player
    ]
    return shown_reputation(
        recent,
        state.round_number,
        options.reputation_depth,
        options.reputation_order,
        listed,
        lambda i: YOU if i == player else names[i],
    )


def round_state(
    options: Options,
    platform_name: str,
    state: PublicGoodsState,
    player: int,
    max_points: int,
) -> dict[str, Any]:
    """The round_state of `player` (population index) in `state`; `max_points` is the most
    points it may give now (used in the punish phase)."""
    draw = state.draw
    group = draw.group_of(player)
    members = draw.groups[group]
    label = draw.labels
    shown_scores = (player,) if options.matching != "partners" else members
    seen: dict[str, Any] = {
        "game": platform_name,
        "phase": state.phase,
        "round_number": state.round_number,
        "round_limit": options.rounds if options.round_limit_disclosed else None,
        "you": label[player],
        "players": [label[i] for i in members],
        "endowment": as_number(available(options, state, player)),
        "multiplier": options.multiplier,
        "your_score": shown(score_now(options, state, player)),
        "scores": {label[i]: shown(score_now(options, state, i)) for i in shown_scores},
        "messages": [
            {"author": label[speaker], "text": text} for speaker, text in state.messages[group]
        ],
        "history": [_past_round(record, player) for record in state.finished],
    }
    if options.reputation_depth:
        seen["reputation"] = _reputation(options, state, player)
    if state.phase == "punish" and state.contributions is not None:
        seen["contributions"] = {label[i]: state.contributions[i] for i in members}
        seen["punish_cost"] = options.punish_cost
        seen["punish_fine"] = options.punish_fine
        seen["max_punish"] = max_points
    return seen
