"""The state of a 2x2 matrix match on the turn contract: immutable, the two seats "a" and "b" in
that order in every pair below, actions in storage's spelling ("C" the cooperative move, "D")."""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from pdbench.core.actions import Action

Phase = str  # "talk" | "commit" | "over"
Pair = tuple[Action, Action]  # seat a's, seat b's
# Storage's letter of each move and back, as lookups: an enum's .value and Action("C") each cost
# a call, and a round asks for several.
LETTER = {Action.C: "C", Action.D: "D"}
MOVE = {"C": Action.C, "D": Action.D}
# One finished round as a seat's round_state lists it (`observation.round_state`'s "history"),
# read-only: {"round", "your_action", "opponent_action", "your_points", "opponent_points"}.
HistoryEntry = MappingProxyType[str, Any]


@dataclass(frozen=True, slots=True)
class Message:
    """One message of a round's talk as the rules deliver it: cut to the limit and marked as
    the reference loop's talk (tests/reference_talk.py) marks it (how the agent got there, a
    timeout or its attempts, is the engine's record of the turn, not the game's)."""

    speaker: str
    turn: int  # from 1 within the round, over both speakers
    text: str
    cut: bool
    promise: bool


@dataclass(frozen=True, slots=True)
class FinishedRound:
    round_number: int
    intended: Pair  # what each seat committed
    played: Pair  # what was played: the intended move, or its flip by the trembling hand
    payoffs: tuple[float, float]
    conversation: tuple[Message, ...]  # the round's talk (empty without a negotiation)


@dataclass(frozen=True, slots=True)
class MatrixState:
    seed: int
    # each seat's trembling hand: round n flips the intended move when the n-th uniform draw of
    # the seat's stream is below the noise (`rules.flips`), as the reference loop's `TremblingHand`
    noise_seeds: tuple[int, int]
    round_number: int
    phase: Phase
    totals: tuple[float, float] = (0.0, 0.0)  # running sums, added round by round as floats
    cooperations: tuple[int, int] = (0, 0)  # the rounds each seat played C
    finished: tuple[FinishedRound, ...] = ()
    # Each seat's view of `finished`, from its own side, as played (what it is shown: never an
    # intended move), in the form its round_state lists it, one read-only entry appended as each
    # round is scored: an observation copies the entries (a third of the cost of building them),
    # it does not rebuild them from every finished round at every turn.
    history: tuple[tuple[HistoryEntry, ...], tuple[HistoryEntry, ...]] = ((), ())
    conversation: tuple[Message, ...] = ()  # this round's talk so far
