"""The base game a mechanism is played over, as data: an N-player normal-form game whose actions
are shown as tokens A0..A{n-1} (CoopEval shows tokens, never names: research doc section 0) and
whose payoffs are a function of the whole profile.

- A 2x2 game of `pdbench.games.tables` (pd, stag_hunt, chicken, split_or_steal,
  battle_of_the_sexes): A0 is its cooperative action (C), A1 its defecting one (D); the payoffs
  are its `PayoffMatrix` (its package's table, or the condition's `payoffs` replacing it: no
  second copy of the numbers here). Asymmetric tables (the battle of the sexes) keep each
  seat's own.
- `public_goods`: CoopEval's binary public goods game (`public_goods.py@8559e85:23-153`, research
  doc 2): N players each contribute the whole endowment 1 (A0, Contribute) or nothing (A1,
  Free-ride); with k contributors a contributor gets m k / N and a free rider 1 + m k / N.
- `travellers_dilemma`: CoopEval's traveller's dilemma (`travellers_dilemma.py@8559e85:13-167`,
  `configs/games/travellers_dilemma.yaml:1-6`, research doc 2): A{i} claims min_claim + i x
  claim_spacing (CoopEval: 2, 3, 4, 5); equal claims X both get X; unequal, the lower claimant gets
  the lower claim + bonus and the higher claimant the lower claim - bonus (bonus 2).
- `trust_game`: CoopEval's trust game (`trust_game.py@8559e85:12-151`, `trust_game.yaml:1-7`),
  played simultaneously and asymmetric: A0 Give, A1 Keep; (P1, P2) GG 10,10, GK 0,20, KG 6,2,
  KK 4,4. Each seat's prompt lists its own points first (`prompts`), as CoopEval gives each seat
  its own payoff text.

The cooperative action (`BaseGame.cooperative`, CoopEval's `is_cooperate_action`: C, Stag,
Contribute, Give, the highest claim) is read from the payoffs, so that a house player, which
sees only the shown table, finds the same one: the action whose all-play profile pays the most
in total (ties to the lowest index). It is A0 in every game but the traveller's dilemma (A3).
Everything is exact (`Fraction`), so a transfer of 1/2 adds up.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction

from pdbench.core.actions import Action
from pdbench.core.payoff import PayoffMatrix
from pdbench.games.tables import GAMES

Profile = tuple[int, ...]  # one action index per seat, in seat order


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

    def _everyone(self, action: int) -> Fraction:
        return sum(self.payoffs((action,) * self.players), Fraction(0))

    @property
    def cooperative(self) -> int:
        """The cooperative action (module docstring): the all-play profile paying most."""
        return max(range(self.actions), key=lambda a: (self._everyone(a), -a))

    @property
    def defecting(self) -> int:
        """The action a defector plays: of the others, the one whose all-play profile pays
        least, ties to the highest index (the 2x2 games' A1, the traveller's dilemma's lowest
        claim A0, its equilibrium)."""
        others = [a for a in range(self.actions) if a != self.cooperative]
        return min(others, key=lambda a: (self._everyone(a), -a))

    def cooperative_profile(self) -> Profile:
        return (self.cooperative,) * self.players

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
    """A 2x2 game of `pdbench.games.tables` (`payoffs` {"CC": [a, b], ...} replacing its own)."""
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
        share = rate * profile.count(0) / players  # A0 contributes
        table[profile] = tuple(share + (1 if a else 0) for a in profile)
    return BaseGame("public_goods", players, ("Contribute", "Free-ride"), table)


def travellers_dilemma(
    min_claim: float, num_actions: int, claim_spacing: float, bonus: float
) -> BaseGame:
    """CoopEval's traveller's dilemma (module docstring)."""
    claims = [exact(min_claim) + i * exact(claim_spacing) for i in range(num_actions)]
    reward = exact(bonus)
    table: dict[Profile, tuple[Fraction, ...]] = {}
    for a, b in itertools.product(range(num_actions), repeat=2):
        low = min(claims[a], claims[b])
        if a == b:
            table[(a, b)] = (low, low)
        else:
            table[(a, b)] = (low + reward, low - reward) if a < b else (low - reward, low + reward)
    names = tuple(f"Claim {number(c)}" for c in claims)
    return BaseGame("travellers_dilemma", 2, names, table)


TRUST_GAME = {(0, 0): (10, 10), (0, 1): (0, 20), (1, 0): (6, 2), (1, 1): (4, 4)}
"""CoopEval's trust game, (P1, P2) points per profile, A0 Give, A1 Keep (module docstring)."""


def trust_game() -> BaseGame:
    table: dict[Profile, tuple[Fraction, ...]] = {
        p: (exact(x), exact(y)) for p, (x, y) in TRUST_GAME.items()
    }
    return BaseGame("trust_game", 2, ("Give", "Keep"), table)


OWN_BASES: tuple[str, ...] = ("public_goods", "travellers_dilemma", "trust_game")
"""The base games this package builds itself (the others: the 2x2 games, `pdbench.games.tables`)."""
BASES: tuple[str, ...] = (*GAMES, *OWN_BASES)
