"""What an arena agent's hooks receive and return: the AgentDuel payloads, as pure functions.

The agent file defines `class Agent` with an optional `GAME = "prisoners-dilemma"` (or another
2x2 game's platform name, `Game.arena_id`) and these hooks, all optional except
`on_turn`:

    on_match_start({"opponent_name", "total_rounds", "game", "actions", "seed"})
    on_round_start({"round", "pot"})
    on_turn({"phase": "commit", "round", "turn", "pot", "your_score", "opponent_score",
             "history": [{"round", "your_choice", "opponent_choice", "your_points",
                          "opponent_points"}, ...],
             "messages": [{"sender": "you" | "opponent", "text"}, ...],
             "game", "actions": [cooperative label, defecting label]})
        -> {"type": "commit", "choice": <one of the two labels>}

In a game with a negotiation phase, on_turn is first called with "phase": "negotiate" on the
agent's turns of the round (turn = the message's number within the round, over both speakers;
"messages" = what was said so far) and must answer {"type": "message", "text": "..."}; the commit
turn then comes with the whole conversation and turn = messages + 1 (without negotiation: 1).

AgentDuel's pages spell the round state two ways, so both are sent: "round", "turn", "history"
(entries with "round") and messages with "sender" (the interface page), and "round_number",
"turn_number", "rounds_history" (entries without "round") and messages with "author" (the Split or
Steal page).
    on_round_end({"round", "your_choice", "opponent_choice", "points", "opponent_points",
                  "your_score", "opponent_score"})
    on_match_end({"winner": "you" | "opponent" | "draw", "your_total", "opponent_total", "rounds"})

Labels are matched case-insensitively; in the prisoner's dilemma "cooperate" and "defect" are also
accepted. `total_rounds` is None when the horizon is geometric or not disclosed.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

from pdbench.agents.base import MatchInfo, MatchSummary
from pdbench.core.actions import Action
from pdbench.core.errors import InvalidActionError
from pdbench.core.game import Game
from pdbench.core.transcript import Observation, PastRound
from pdbench.storage.schema import HookAttempt

PD_ALIASES = {"cooperate": Action.C, "defect": Action.D}


def label_to_action(label: str, game: Game) -> Action:
    """A label the agent chose, case-insensitive; the PD also takes "cooperate" and "defect".

    The game's labels always win over the aliases: with `game.labels=[defect, cooperate]`,
    "cooperate" is the label of D and is stored as D, never as C through the alias."""
    try:
        return game.action_for_label(label)
    except InvalidActionError:
        if game.arena_id == "prisoners-dilemma" and label.strip().casefold() in PD_ALIASES:
            return PD_ALIASES[label.strip().casefold()]
        raise


def parse_choice(raw: Any, game: Game) -> Action:
    """The action in an on_turn answer `{"type": "commit", "choice": <label>}`; strict otherwise."""
    expected = (
        f'on_turn must return {{"type": "commit", "choice": "{game.cooperate_label}"}} or similar'
    )
    if isinstance(raw, dict) and raw.get("type") == "message":
        raise InvalidActionError(f"{expected} in the commit phase, got a message: {_short(raw)}")
    if not isinstance(raw, dict) or not isinstance(raw.get("choice"), str):
        raise InvalidActionError(f"{expected}, got {_short(raw)}")
    if raw.get("type", "commit") != "commit":
        raise InvalidActionError(f'{expected}, got type "{raw["type"]}"')
    return label_to_action(raw["choice"], game)


def parse_message(raw: Any) -> str:
    """The text of a negotiate-phase answer `{"type": "message", "text": "..."}`; strict."""
    if (
        not isinstance(raw, dict)
        or raw.get("type") != "message"
        or not isinstance(raw.get("text"), str)
    ):
        raise InvalidActionError(
            'on_turn must return {"type": "message", "text": "..."} in the negotiate phase, '
            f"got {_short(raw)}"
        )
    return raw["text"]


def messages_entries(obs: Observation) -> list[dict]:
    """The round's messages so far, in both spellings ("sender" and "author")."""
    entries = []
    for said in obs.messages:
        who = "you" if said.mine else "opponent"
        entries.append({"sender": who, "author": who, "text": said.text})
    return entries


def _number(value: float | None) -> float | int | None:
    """3.0 -> 3, so agents see points as AgentDuel shows them."""
    if value is None or not float(value).is_integer():
        return value
    return int(value)


def _label(game: Game, action: Action | None) -> str | None:
    return None if action is None else game.label(action)


def match_start_info(info: MatchInfo, game: Game, seed: int | None = None) -> dict:
    return {
        "opponent_name": info.opponent_name,
        "total_rounds": info.total_rounds,
        "game": game.arena_id,
        "actions": list(game.labels),
        "seed": seed,
    }


def round_info(obs: Observation, game: Game) -> dict:
    return {"round": obs.round_index, "pot": _number(game.pot)}


def totals(obs: Observation) -> tuple[float, float]:
    """Both scores before this round: as observed, else summed from the history."""
    if obs.own_total is not None and obs.opponent_total is not None:
        return obs.own_total, obs.opponent_total
    return (
        sum(r.own_payoff for r in obs.history),
        sum(r.opponent_payoff for r in obs.history),
    )


def history_entries(rounds: Sequence[PastRound], game: Game) -> list[dict]:
    return [
        {
            "round": r.round_index,
            "your_choice": game.label(r.own_action),
            "opponent_choice": game.label(r.opponent_action),
            "your_points": _number(r.own_payoff),
            "opponent_points": _number(r.opponent_payoff),
        }
        for r in rounds
    ]


def round_state_head(obs: Observation, game: Game, phase: str = "commit") -> dict:
    """on_turn's argument without "history" and "rounds_history" (the worker keeps those and
    receives only new rounds)."""
    own, opponent = totals(obs)
    return {
        "phase": phase,
        "round": obs.round_index,
        "round_number": obs.round_index,
        "turn": obs.turn,
        "turn_number": obs.turn,
        "pot": _number(game.pot),
        "your_score": _number(own),
        "opponent_score": _number(opponent),
        "messages": messages_entries(obs),
        "game": game.arena_id,
        "actions": list(game.labels),
    }


def without_round(entry: dict) -> dict:
    """A history entry as the Split or Steal page spells it (rounds_history: no "round")."""
    return {key: value for key, value in entry.items() if key != "round"}


def round_state(obs: Observation, game: Game, phase: str = "commit") -> dict:
    """on_turn's argument, as the agent sees it."""
    history = history_entries(obs.history, game)
    return {
        **round_state_head(obs, game, phase),
        "history": history,
        "rounds_history": [without_round(entry) for entry in history],
    }


def round_result(past: PastRound, game: Game, own_total: float, opponent_total: float) -> dict:
    """on_round_end's argument; totals include this round; the opponent's action may be None."""
    return {
        "round": past.round_index,
        "your_choice": _label(game, past.own_action),
        "opponent_choice": _label(game, past.opponent_action),
        "points": _number(past.own_payoff),
        "opponent_points": _number(past.opponent_payoff),
        "your_score": _number(own_total),
        "opponent_score": _number(opponent_total),
    }


def match_result(summary: MatchSummary) -> dict:
    return {
        "winner": summary.winner,
        "your_total": _number(summary.your_total),
        "opponent_total": _number(summary.opponent_total),
        "rounds": summary.rounds,
    }


def last_round_result(
    obs: Observation | None, own_action: Action | None, summary: MatchSummary, game: Game
) -> dict | None:
    """The last round's on_round_end argument, which no observation carries: from our own last
    action and the totals' change. None if that round was not played."""
    if obs is None or own_action is None or summary.rounds != obs.round_index:
        return None
    own_before, opponent_before = totals(obs)
    own_payoff = summary.your_total - own_before
    opponent_payoff = summary.opponent_total - opponent_before
    past = PastRound(
        round_index=obs.round_index,
        own_action=own_action,
        opponent_action=infer_opponent_action(game, own_action, own_payoff, opponent_payoff),
        own_payoff=own_payoff,
        opponent_payoff=opponent_payoff,
    )
    return round_result(past, game, summary.your_total, summary.opponent_total)


def infer_opponent_action(game: Game, own: Action, own_payoff: float, opponent_payoff: float):
    """The opponent's action from one round's payoffs; None if the payoffs cannot tell."""
    matches = [
        other
        for other in (Action.C, Action.D)
        if all(
            math.isclose(got, want, abs_tol=1e-9)
            for got, want in zip(
                game.payoffs.payoffs(own, other), (own_payoff, opponent_payoff), strict=True
            )
        )
    ]
    return matches[0] if len(matches) == 1 else None


def turn_attempts(raw: Any, elapsed_s: float) -> tuple[HookAttempt, ...]:
    """The record of an on_turn answer: the raw answer and how long it took (storage keeps,
    hashes or drops the answer under the run's store_prompts)."""
    return (HookAttempt(hook="on_turn", elapsed_s=round(elapsed_s, 6), response=raw),)


def _short(value: Any, limit: int = 200) -> str:
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."
