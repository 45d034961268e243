"""The public goods game's state: immutable, indexed by population index (seat i is the i-th of
`PublicGoods.seats`), every amount exact (`payoff`)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from pdbench.games.public_goods.matching import RoundGroups
from pdbench.games.public_goods.payoff import Fund

Phase = str  # "talk" | "contribute" | "punish" | "over"


@dataclass(frozen=True)
class RoundRecord:
    """A finished round, as every member of each group saw it at its end."""

    round_number: int
    draw: RoundGroups  # the round's groups and labels
    messages: tuple[tuple[tuple[int, str], ...], ...]  # per group: (speaker, text) in order
    available: tuple[Fraction, ...]  # what each player could contribute (E, or its balance)
    contributions: tuple[int, ...]
    funds: tuple[Fund, ...]  # per group
    requested: tuple[dict[int, int], ...]  # per player: target -> points it asked for
    applied: tuple[dict[int, int], ...]  # per player: target -> points that took effect
    earnings: tuple[Fraction, ...]  # per player: the round's earnings (balance: its change)
    shown_earnings: tuple[float, ...]  # the same as players and the record see them
    punish_order: tuple[tuple[int, ...], ...] | None  # per group, when caps made it matter


@dataclass(frozen=True)
class PublicGoodsState:
    seed: int
    round_number: int
    phase: Phase
    draw: RoundGroups  # this round's groups and labels
    speaking: tuple[tuple[int, ...], ...]  # per group: this round's speakers in order
    turn_in_talk: int  # how many of each group's speakers have spoken this round
    messages: tuple[tuple[tuple[int, str], ...], ...]  # per group: this round's (speaker, text)
    totals: tuple[Fraction, ...]  # per player: score before this round (balance: its balance)
    carry: tuple[Fraction, ...]  # per group: the public account's carry-in (balance accounting)
    contributions: tuple[int, ...] | None = None  # this round's, once all are in
    funds: tuple[Fund, ...] | None = None  # this round's, once all contributions are in
    purses: tuple[Fraction, ...] | None = None  # per player, after the account paid out
    finished: tuple[RoundRecord, ...] = ()
