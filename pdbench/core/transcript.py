"""What an agent may see: the last few rounds from its own side, the round number, maybe totals.

`Observation` is the only thing that reaches an agent's `act`. It is built by `observe` from the
full record of the match, which stays with the runner.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pdbench.core.types import Action


@dataclass(frozen=True, slots=True)
class PastRound:
    """One finished round, seen from one agent's side."""

    round_index: int
    own_action: Action
    opponent_action: Action
    own_payoff: float
    opponent_payoff: float


@dataclass(frozen=True, slots=True)
class Observation:
    """Everything an agent is told before it acts in round `round_index` (counted from 1)."""

    round_index: int
    history: tuple[PastRound, ...]  # the last `history_window` rounds, oldest first
    own_total: float | None = None  # present only when the agent's config includes totals
    opponent_total: float | None = None

    @property
    def last(self) -> PastRound | None:
        return self.history[-1] if self.history else None


@dataclass(frozen=True, slots=True)
class PlayedRound:
    """A finished round from the match's neutral point of view (agent a, agent b)."""

    round_index: int
    action_a: Action
    action_b: Action
    payoff_a: float
    payoff_b: float


def observe(
    rounds: Sequence[PlayedRound],
    *,
    side: str,
    history_window: int | None,
    include_totals: bool,
) -> Observation:
    """Build side 'a' or 'b''s observation before the next round.

    `history_window=None` shows the whole match; 0 shows no past rounds at all.
    """
    if history_window is None:
        window = rounds
    elif history_window <= 0:
        window = ()
    else:
        window = rounds[-history_window:]
    if side == "a":
        history = tuple(
            PastRound(r.round_index, r.action_a, r.action_b, r.payoff_a, r.payoff_b) for r in window
        )
    else:
        history = tuple(
            PastRound(r.round_index, r.action_b, r.action_a, r.payoff_b, r.payoff_a) for r in window
        )
    own_total = opponent_total = None
    if include_totals:
        total_a = sum(r.payoff_a for r in rounds)
        total_b = sum(r.payoff_b for r in rounds)
        own_total, opponent_total = (total_a, total_b) if side == "a" else (total_b, total_a)
    return Observation(
        round_index=len(rounds) + 1,
        history=history,
        own_total=own_total,
        opponent_total=opponent_total,
    )
