"""What an agent may see: the last few rounds from its own side, the round number, maybe totals.

`Observation` is the only thing that reaches an agent's `act`. It is built by `observe` from the
full record of the match, which stays with the runner.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pdbench.core.actions import Action
from pdbench.core.talk import Said


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
    # With totals: how often each side cooperated in the whole match so far (not only the
    # rounds shown); defections are the other rounds_played - cooperations.
    own_cooperations: int | None = None
    opponent_cooperations: int | None = None
    # With a negotiation phase: this round's messages so far, oldest first (at the commit, the
    # whole conversation), and the turn about to be taken (from 1, over both speakers).
    messages: tuple[Said, ...] = ()
    turn: int = 1

    @property
    def rounds_played(self) -> int:
        return self.round_index - 1

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


class Transcript:
    """The record of a match as it is played, with each side's view kept ready.

    Appending a round costs O(1) and an observation costs O(window), so agents that see the
    whole match (history_window=None) do not make a long match quadratic.
    """

    def __init__(self) -> None:
        self.rounds: list[PlayedRound] = []
        self._seen: dict[str, list[PastRound]] = {"a": [], "b": []}
        self._totals = {"a": 0.0, "b": 0.0}
        self._cooperations = {"a": 0, "b": 0}

    def append(self, played: PlayedRound) -> None:
        self.rounds.append(played)
        self._seen["a"].append(
            PastRound(
                played.round_index,
                played.action_a,
                played.action_b,
                played.payoff_a,
                played.payoff_b,
            )
        )
        self._seen["b"].append(
            PastRound(
                played.round_index,
                played.action_b,
                played.action_a,
                played.payoff_b,
                played.payoff_a,
            )
        )
        self._totals["a"] += played.payoff_a
        self._totals["b"] += played.payoff_b
        self._cooperations["a"] += played.action_a is Action.C
        self._cooperations["b"] += played.action_b is Action.C

    def observe(
        self, *, side: str, history_window: int | None, include_totals: bool
    ) -> Observation:
        """Side 'a' or 'b''s observation before the next round.

        `history_window=None` shows the whole match; 0 shows no past rounds at all.
        """
        seen = self._seen[side]
        if history_window is None:
            history = tuple(seen)
        elif history_window <= 0:
            history = ()
        else:
            history = tuple(seen[-history_window:])
        if not include_totals:
            return Observation(round_index=len(self.rounds) + 1, history=history)
        other = "b" if side == "a" else "a"
        return Observation(
            round_index=len(self.rounds) + 1,
            history=history,
            own_total=self._totals[side],
            opponent_total=self._totals[other],
            own_cooperations=self._cooperations[side],
            opponent_cooperations=self._cooperations[other],
        )


def observe(
    rounds: Sequence[PlayedRound],
    *,
    side: str,
    history_window: int | None,
    include_totals: bool,
) -> Observation:
    """Side 'a' or 'b''s observation after `rounds` (see `Transcript.observe`)."""
    transcript = Transcript()
    for played in rounds:
        transcript.append(played)
    return transcript.observe(
        side=side, history_window=history_window, include_totals=include_totals
    )
