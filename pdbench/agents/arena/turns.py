"""An arena agent's turn in a turn-based game (`pdbench.games`): `on_turn(round_state)` with the
round_state exactly as the rules' `observe` gives it (the platform's shape), the answer an action
object (`{"type": "bid", "quantity": 3, "face": 5}`, `{"type": "challenge"}`).

The process starts with the first turn, and `on_match_start` (when defined) is told the opponent
and the game first. A timeout, a crash, an exception or an answer that is not a JSON object gives
no action (`action=None`, the reason in `error`): the engine plays the game's fallback and marks
it. An object is returned as it is: the engine checks it with the rules and re-asks or falls back.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import Any

from pdbench.agents.arena.process import WorkerDied, WorkerTimeout
from pdbench.agents.arena.protocol import turn_attempts
from pdbench.agents.arena.session import ArenaSession
from pdbench.agents.base import TurnDecision, TurnRequest


def take_turn_blocking(agent: ArenaSession, request: TurnRequest) -> TurnDecision:
    notes: list[str] = []
    fresh = agent._worker is None
    if fresh and agent._broken is None:
        agent._start_worker()
    agent.abort_if_never_started()
    if agent._broken is not None:
        return TurnDecision(action=None, error=agent._broken)
    try:
        if fresh and agent._match_info is not None:
            start = {
                "opponent_name": agent._match_info.opponent_name,
                "total_rounds": None,
                "game": request.game,
                "seed": agent.seed,
            }
            agent._call("on_match_start", start, notes)
        started = time.perf_counter()
        where = turn_label(request.round_state)
        if agent.spec.trace:  # training: the round_state as the agent receives it
            agent._log.note(
                f"{where} saw: {json.dumps(dict(request.round_state), ensure_ascii=False)}"
            )
        reply = agent._call(
            "on_turn", dict(request.round_state), notes, required=True, timeout=agent.spec.timeout_s
        )
        if agent.spec.trace:
            agent._log.note(
                f"{where} answered: {json.dumps(reply.get('result'), ensure_ascii=False)}"
                if reply["ok"]
                else f"{where} on_turn raised:\n{reply['error'].rstrip()}"
            )
    except WorkerTimeout as timeout:
        return TurnDecision(action=None, timeout=True, error="\n".join([*notes, str(timeout)]))
    except WorkerDied as died:
        return TurnDecision(action=None, error="\n".join([*notes, str(died)]))
    if not reply["ok"]:
        return TurnDecision(action=None, error=f"on_turn raised:\n{reply['error'].rstrip()}")
    raw = reply.get("result")
    attempts = turn_attempts(raw, time.perf_counter() - started)
    if not isinstance(raw, dict):
        why = f"on_turn returned {type(raw).__name__}, not an action object"
        agent._log.note(f"turn {request.round_state.get('turn')}: {why}")
        return TurnDecision(action=None, attempts=attempts, invalid_outputs=1, error=why)
    return TurnDecision(action=raw, attempts=attempts, error="\n".join(notes) or None)


def turn_label(round_state: Mapping[str, Any]) -> str:
    """Where a turn is, as the game's round_state tells it: "round 1 turn 3 (bid)", "round 2
    (question)", "(intro)" (a debate has phases only)."""
    round_number = round_state.get("round", round_state.get("round_number"))
    turn = round_state.get("turn")
    phase = round_state.get("phase")
    parts = [
        *([f"round {round_number}"] if round_number is not None else []),
        *([f"turn {turn}"] if turn is not None else []),
        *([f"({phase})"] if phase is not None else []),
    ]
    return " ".join(parts)
