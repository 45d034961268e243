"""A stored match back to its state: its stored actions replayed through the rules.

Rules are pure and seeded, so `initial_state(seed)` and the stored actions, in order, give the
state the match was in after each turn: what resume and the metrics of stored matches read
(never the live state of a run)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pdbench.games.base import TurnGame


def replay(
    game: TurnGame[Any], seed: int, actions: Sequence[Mapping[str, Mapping[str, Any]]]
) -> Any:
    """The state after the stored `actions` (one mapping seat -> action per turn) from
    `initial_state(seed)`. A stored action the rules refuse raises ValueError naming its turn."""
    state = game.initial_state(seed)
    for index, played in enumerate(actions, start=1):
        for seat, action in played.items():
            reason = game.problem(state, seat, action)
            if reason is not None:
                raise ValueError(f"stored turn {index}, seat {seat}: {reason}")
        state = game.apply(state, played)
    return state
