"""The state of a 2x2 matrix match on the turn contract: immutable, the two seats "a" and "b" in
that order in every pair below, actions in storage's spelling ("C" the cooperative move, "D")."""

from __future__ import annotations

from dataclasses import dataclass

from pdbench.core.actions import Action
from pdbench.core.transcript import PastRound

Phase = str  # "talk" | "commit" | "over"
Pair = tuple[Action, Action]  # seat a's, seat b's


@dataclass(frozen=True, slots=True)
class Message:
    """One message of a round's talk as the rules deliver it: cut to the limit and marked as
    `runners.negotiation` marks it (how the agent got there, a timeout or its attempts, is the
    engine's record of the turn, not the game's)."""

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
    # the seat's stream is below the noise (`rules.flips`), as `runners.match.TremblingHand`
    noise_seeds: tuple[int, int]
    round_number: int
    phase: Phase
    totals: tuple[float, float] = (0.0, 0.0)  # running sums, added round by round as floats
    cooperations: tuple[int, int] = (0, 0)  # the rounds each seat played C
    finished: tuple[FinishedRound, ...] = ()
    # Each seat's view of `finished`, from its own side, as played (what it is shown: never an
    # intended move), appended round by round as `core.transcript.Transcript` keeps it, so a
    # seat's observation is not rebuilt from every finished round at every turn.
    seen: tuple[tuple[PastRound, ...], tuple[PastRound, ...]] = ((), ())
    conversation: tuple[Message, ...] = ()  # this round's talk so far
