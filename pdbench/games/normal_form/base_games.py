"""The base game a mechanism is played over, as data: an N-player normal-form game whose actions
are shown as tokens A0..A{n-1} (CoopEval shows tokens, never names: research doc section 0) and
whose payoffs are a function of the whole profile.

- A 2x2 game of `pdbench.core.game` (pd, stag_hunt, chicken, split_or_steal,
  battle_of_the_sexes): A0 is its cooperative action (C), A1 its defecting one (D); the payoffs
  are its `PayoffMatrix` (the core table, or the condition's `payoffs` replacing it: no second
  copy of the numbers here). Asymmetric tables (the battle of the sexes) keep each seat's own.
- `public_goods`: CoopEval's binary public goods game (`public_goods.py@8559e85:23-153`, research
  doc 2): N players each contribute the whole endowment 1 (A0, Contribute) or nothing (A1,
  Free-ride); with k contributors a contributor gets m k / N and a free rider 1 + m k / N.

A0 is the cooperative action of every base game (CoopEval's `is_cooperate_action`: C, Stag,
Contribute). Everything is exact (`Fraction`), so a transfer of 1/2 adds up.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction

from pdbench.core.actions import Action
from pdbench.core.game import GAMES
from pdbench.core.payoff import PayoffMatrix

Profile = tuple[int, ...]  # one action index per seat, in seat order
COOPERATIVE = 0  # A0


def token(action: int) -> str:
    return f"A{action}"


def exact(value: float | int | Fraction) -> Fraction:
    """A number as an exact fraction (a float by its shortest decimal: 1.5 is 3/2)."""
    if isinstance(value, Fraction):
        return value
    return Fraction(str(value)) if isinstance(value, float) else Fraction(value)


def number(value: Fraction) -> int | float:
    """An exact amount as stored and shown: a whole one as an int, any other as a float."""
    return int(value) if value.denominator == 1 else float(value)


@dataclass(frozen=True)
class BaseGame:
    """N players, `names` the actions' words (the base game's labels, kept for the viewer and
    the record; players are shown tokens), `table` every profile's payoffs per seat."""

    name: str
    players: int
    names: tuple[str, ...]
    table: dict[Profile, tuple[Fraction, ...]]

    @property
    def actions(self) -> int:
        return len(self.names)

    @property
    def tokens(self) -> tuple[str, ...]:
        return tuple(token(a) for a in range(self.actions))

    def profiles(self) -> tuple[Profile, ...]:
        return tuple(itertools.product(range(self.actions), repeat=self.players))

    def payoffs(self, profile: Profile) -> tuple[Fraction, ...]:
        return self.table[profile]

    def cooperative_profile(self) -> Profile:
        return (COOPERATIVE,) * self.players

    def pure_equilibria(self) -> tuple[Profile, ...]:
        """The pure Nash equilibria: no seat gains by changing its own action alone."""
        found = []
        for profile in self.profiles():
            if all(
                self.payoffs(_with(profile, seat, other))[seat] <= self.payoffs(profile)[seat]
                for seat in range(self.players)
                for other in range(self.actions)
            ):
                found.append(profile)
        return tuple(found)

    def equilibrium_payoff(self) -> Fraction:
        """The mean payoff per player of the base game's worst pure equilibrium (PD: mutual
        defection; stag hunt: both hunt hare), the reference a mechanism's welfare gain is
        measured from, as CoopEval normalises by the 'NE payoff' (research doc 3); a game
        without a pure equilibrium: the mean of the players' security (maximin) payoffs."""
        equilibria = self.pure_equilibria()
        if equilibria:
            return min(sum(self.payoffs(p), Fraction(0)) / self.players for p in equilibria)
        secure = [
            max(
                min(self.payoffs(p)[seat] for p in self.profiles() if p[seat] == own)
                for own in range(self.actions)
            )
            for seat in range(self.players)
        ]
        return sum(secure, Fraction(0)) / self.players


def _with(profile: Profile, seat: int, action: int) -> Profile:
    return (*profile[:seat], action, *profile[seat + 1 :])


def matrix_game(
    base: str,
    payoffs: dict[str, list[float]] | None = None,
    labels: tuple[str, str] | None = None,
) -> BaseGame:
    """A 2x2 game of the core table (`payoffs` {"CC": [a, b], ...} replacing its own)."""
    game = GAMES[base]
    matrix = game.payoffs
    if payoffs is not None:
        matrix = PayoffMatrix.from_outcomes(*(tuple(payoffs[o]) for o in ("CC", "CD", "DC", "DD")))
    moves = (Action.C, Action.D)
    table: dict[Profile, tuple[Fraction, ...]] = {
        (a, b): tuple(exact(x) for x in matrix.payoffs(moves[a], moves[b]))
        for a in range(2)
        for b in range(2)
    }
    return BaseGame(base, 2, tuple(labels or game.labels), table)


def binary_public_goods(players: int, multiplier: float) -> BaseGame:
    """CoopEval's binary public goods game (module docstring), endowment 1."""
    rate = exact(multiplier)
    table = {}
    for profile in itertools.product(range(2), repeat=players):
        share = rate * profile.count(COOPERATIVE) / players
        table[profile] = tuple(share + (1 if a else 0) for a in profile)
    return BaseGame("public_goods", players, ("Contribute", "Free-ride"), table)


BASES: tuple[str, ...] = (*GAMES, "public_goods")
