"""The donor game's state: immutable, indexed by population index (seat i is the i-th of
`DonorGame.seats`), every amount exact (a `Fraction`, shown as a number)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction


@dataclass(frozen=True)
class RoundRecord:
    """A finished round."""

    round_number: int
    recipients: tuple[int | None, ...]  # by donor: its recipient (None: it did not donate)
    gave: tuple[bool, ...]  # by donor (False: it did not donate)
    images_before: (
        tuple[int, ...] | None
    )  # each player's image when the donors chose (None: no norm)
    images_after: tuple[int, ...] | None  # ... after the norm judged the round's donors
    earnings: tuple[Fraction, ...]  # by player: benefit received minus cost paid
    # continuous giving only (None when binary): what each donor gave (0: it did not donate), and each player's
    # resources when the donors chose (a gift's share of its donor's resources)
    amounts: tuple[Fraction, ...] | None = None
    resources_before: tuple[Fraction, ...] | None = None
    # with punishment: whether each donor punished (spent its amount to remove from its
    # recipient) instead of giving; None without punishment
    punished: tuple[bool, ...] | None = None
    # where the round fell (generations, games: `generations.position`)
    generation: int = 1
    game: int = 1
    # the round that ended a generation (but the last): who survived, best first
    survived: tuple[int, ...] | None = None

    def donated(self, player: int) -> bool:
        """Whether `player` donated this round (under `pairing: halves` half the players do)."""
        return self.recipients[player] is not None

    def donor_of(self, player: int) -> int | None:
        """Who donated to `player` this round (None: nobody did)."""
        return next((d for d, r in enumerate(self.recipients) if r == player), None)

    def share(self, donor: int) -> Fraction | None:
        """The share of its resources `donor` gave (None: binary, or it held nothing)."""
        if self.amounts is None or self.resources_before is None:
            return None
        held = self.resources_before[donor]
        return self.amounts[donor] / held if held else None


@dataclass(frozen=True)
class DonorState:
    seed: int
    round_number: int
    phase: str  # "strategy" | "donate" | "over"
    labels: tuple[str, ...]  # by population index, the whole match
    recipients: tuple[int | None, ...]  # this round's, by donor (None: not donating)
    images: tuple[int, ...] | None  # each player's image now (None: the norm is none)
    totals: tuple[Fraction, ...]  # each player's score (the endowment plus its earnings;
    # under continuous giving, its resources)
    finished: tuple[RoundRecord, ...] = ()
    # generations only (empty otherwise): each seat's current player's strategy, the generation
    # it joined, who writes a strategy now (strategy phase), the survivors shown to them (index,
    # final score, best first), and how many new players joined so far (their labels)
    strategies: tuple[str, ...] = ()
    born: tuple[int, ...] = ()
    writers: tuple[int, ...] = ()
    advice: tuple[tuple[int, Fraction], ...] = ()
    newcomers: int = 0
