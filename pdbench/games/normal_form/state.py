"""The state of a normal-form match under a mechanism: immutable, players by index (seat i is the
i-th of "a", "b", ...), every amount exact."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

Phase = str  # "design" | "vote" | "sign" | "play" | "over"


@dataclass(frozen=True)
class Decision:
    """One mechanism decision (mediation, contracting): each player's design (a mediator's or a
    contract's tuple, `designs`), then each voter's approvals of every design in player order,
    the winner (a player index), then under contracting each player's signature."""

    designs: tuple[tuple[int, ...], ...]
    approvals: tuple[tuple[bool, ...], ...] | None = None
    winner: int | None = None
    tied: tuple[int, ...] = ()  # the designs that had the most approvals (the winner among them)
    signed: tuple[bool, ...] | None = None

    @property
    def active(self) -> bool:
        """A contract binds only when every player signed (`contracting.py@8559e85:337-349`)."""
        return self.signed is not None and all(self.signed)


@dataclass(frozen=True)
class FinishedRound:
    round_number: int
    distributions: tuple[tuple[int, ...] | None, ...]  # per player: percentages, or None (pure)
    drawn: tuple[int, ...]  # per player: the action its answer came to (delegate: n actions)
    realised: tuple[int, ...]  # per player: the base action played (a delegator's: the mediator's)
    delegated: tuple[bool, ...]
    base_payoffs: tuple[Fraction, ...]
    transfers: tuple[Fraction, ...]  # a binding contract's payments (0 without one)
    decision: Decision | None  # the decision in force this round
    # under reputation: the groups that played (population indices in position order); every
    # per-player tuple above is then by population index
    groups: tuple[tuple[int, ...], ...] | None = None

    @property
    def payoffs(self) -> tuple[Fraction, ...]:
        return tuple(p + t for p, t in zip(self.base_payoffs, self.transfers, strict=True))


@dataclass(frozen=True)
class NormalFormState:
    seed: int
    round_number: int
    phase: Phase
    totals: tuple[Fraction, ...]
    decision: Decision | None = None  # the decision being made, or in force
    finished: tuple[FinishedRound, ...] = ()
    # under reputation: this round's groups (drawn when the round opens, so a redrawn seed
    # changes only the rounds to come) and each population index's "Agent #n" for the match
    groups: tuple[tuple[int, ...], ...] | None = None
    names: tuple[str, ...] = ()
    # under `reputation_shown: image`: each population index's image at this round's start
    # (`images`; a function of the finished rounds, kept here so a round reads it at once)
    images: tuple[int, ...] = ()
