"""Payoff matrices and the prisoner's dilemma inequalities."""

from __future__ import annotations

from dataclasses import dataclass, replace

from pdbench.core.actions import Action
from pdbench.core.errors import ConfigError

Sides = tuple[float, float, float, float]  # one player's own (R, S, T, P)


@dataclass(frozen=True, slots=True)
class PayoffMatrix:
    """Row player's and column player's payoffs for each of the four outcomes.

    Named in the classic way from the row player's (agent a's) side: R (reward, both C), S
    (sucker, C vs D), T (temptation, D vs C), P (punishment, both D). In a symmetric game (the
    default) the column player's payoffs mirror them: (C, D) gives (S, T). An asymmetric game,
    such as the battle of the sexes, gives the column player its own four numbers in `column`,
    named from its own side the same way (its R is its payoff when both play C, its S its payoff
    when it plays C and the row player D, ...).
    """

    reward: float = 3.0
    sucker: float = 0.0
    temptation: float = 5.0
    punishment: float = 1.0
    column: Sides | None = None  # the column player's own (R, S, T, P); None: symmetric

    def __post_init__(self) -> None:
        # Store floats so that every artifact writes 3.0, never sometimes 3 and sometimes 3.0.
        for name in ("reward", "sucker", "temptation", "punishment"):
            object.__setattr__(self, name, float(getattr(self, name)))
        if self.column is not None:
            column = tuple(float(x) for x in self.column)
            # A column that mirrors the row is the symmetric game: one spelling for one game.
            object.__setattr__(self, "column", None if column == self.own else column)

    @classmethod
    def from_outcomes(cls, cc: tuple, cd: tuple, dc: tuple, dd: tuple) -> PayoffMatrix:
        """Build from the four (payoff_a, payoff_b) pairs, outcome named a's move first. When b's
        payoffs mirror a's the matrix is symmetric; otherwise b keeps its own numbers."""
        return cls(
            reward=cc[0],
            sucker=cd[0],
            temptation=dc[0],
            punishment=dd[0],
            # b's own R, S, T, P: b plays C against a's D in outcome DC, D against a's C in CD.
            column=(cc[1], dc[1], cd[1], dd[1]),
        )

    @property
    def R(self) -> float:
        return self.reward

    @property
    def S(self) -> float:
        return self.sucker

    @property
    def T(self) -> float:
        return self.temptation

    @property
    def P(self) -> float:
        return self.punishment

    @property
    def own(self) -> Sides:
        """The row player's (R, S, T, P)."""
        return (self.reward, self.sucker, self.temptation, self.punishment)

    @property
    def is_symmetric(self) -> bool:
        return self.column is None

    def payoffs(self, a: Action, b: Action) -> tuple[float, float]:
        """Payoffs of (a, b) for one round."""
        return _own_payoff(self.own, a, b), _own_payoff(self.column or self.own, b, a)

    def seen_by(self, side: str) -> PayoffMatrix:
        """The matrix from one side's point of view, that side as the row player: itself for
        side "a" or a symmetric game; for side "b" of an asymmetric game, the two swapped."""
        if side == "a" or self.column is None:
            return self
        reward, sucker, temptation, punishment = self.column
        return replace(
            self,
            reward=reward,
            sucker=sucker,
            temptation=temptation,
            punishment=punishment,
            column=self.own,
        )

    def as_outcomes(self) -> dict[str, list[float]]:
        """{"CC": [a, b], ...}: the form used in configs and manifests."""
        return {
            f"{a}{b}": list(self.payoffs(Action(a), Action(b)))
            for a in ("C", "D")
            for b in ("C", "D")
        }

    def prisoners_dilemma_violations(self) -> list[str]:
        """The PD inequalities this matrix breaks, named; empty when it is a prisoner's dilemma.
        An asymmetric matrix is a PD when each player's own payoffs are one."""
        if self.column is None:
            return _violations(self.own)
        return [f"agent a: {v}" for v in _violations(self.own)] + [
            f"agent b: {v}" for v in _violations(self.column)
        ]

    def check_prisoners_dilemma(self, *, file: str | None = None) -> None:
        broken = self.prisoners_dilemma_violations()
        if broken:
            raise ConfigError(
                "not a prisoner's dilemma: violates " + "; ".join(broken),
                file=file,
                field="game.payoffs",
            )


def _own_payoff(own: Sides, mine: Action, theirs: Action) -> float:
    """A player's payoff from its own (R, S, T, P), its move and the other's."""
    reward, sucker, temptation, punishment = own
    if mine is Action.C:
        return reward if theirs is Action.C else sucker
    return temptation if theirs is Action.C else punishment


def _violations(own: Sides) -> list[str]:
    R, S, T, P = own
    broken = []
    if not T > R:
        broken.append(f"T > R (temptation {T:g} must exceed reward {R:g})")
    if not R > P:
        broken.append(f"R > P (reward {R:g} must exceed punishment {P:g})")
    if not P > S:
        broken.append(f"P > S (punishment {P:g} must exceed sucker {S:g})")
    if not 2 * R > T + S:
        broken.append(f"2R > T + S (mutual cooperation {2 * R:g} must beat alternating {T + S:g})")
    return broken


DEFAULT_PAYOFFS = PayoffMatrix()
