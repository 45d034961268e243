"""Payoff matrices and the prisoner's dilemma inequalities."""

from __future__ import annotations

from dataclasses import dataclass

from pdbench.core.actions import Action
from pdbench.core.errors import ConfigError


@dataclass(frozen=True, slots=True)
class PayoffMatrix:
    """Row player's and column player's payoffs for each of the four outcomes.

    Named in the classic way from the row player's side: R (reward, both C), S (sucker, C vs D),
    T (temptation, D vs C), P (punishment, both D). The matrix is symmetric: (C, D) gives (S, T).
    """

    reward: float = 3.0
    sucker: float = 0.0
    temptation: float = 5.0
    punishment: float = 1.0

    def __post_init__(self) -> None:
        # Store floats so that every artifact writes 3.0, never sometimes 3 and sometimes 3.0.
        for name in ("reward", "sucker", "temptation", "punishment"):
            object.__setattr__(self, name, float(getattr(self, name)))

    @classmethod
    def from_outcomes(cls, cc: tuple, cd: tuple, dc: tuple, dd: tuple) -> PayoffMatrix:
        """Build from the four (payoff_a, payoff_b) pairs; they must describe a symmetric game."""
        matrix = cls(reward=cc[0], sucker=cd[0], temptation=dc[0], punishment=dd[0])
        expected = {"CC": cc, "CD": cd, "DC": dc, "DD": dd}
        for outcome, pair in expected.items():
            got = matrix.payoffs(Action(outcome[0]), Action(outcome[1]))
            if tuple(float(x) for x in pair) != got:
                raise ConfigError(
                    f"payoffs must be symmetric: {outcome} = {list(pair)} but the other outcomes "
                    f"imply {list(got)}",
                    field=f"payoffs.{outcome}",
                )
        return matrix

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

    def payoffs(self, a: Action, b: Action) -> tuple[float, float]:
        """Payoffs of (a, b) for one round."""
        if a is Action.C:
            return (self.reward, self.reward) if b is Action.C else (self.sucker, self.temptation)
        return (
            (self.temptation, self.sucker) if b is Action.C else (self.punishment, self.punishment)
        )

    def as_outcomes(self) -> dict[str, list[float]]:
        """{"CC": [a, b], ...}: the form used in configs and manifests."""
        return {
            f"{a}{b}": list(self.payoffs(Action(a), Action(b)))
            for a in ("C", "D")
            for b in ("C", "D")
        }

    def prisoners_dilemma_violations(self) -> list[str]:
        """The PD inequalities this matrix breaks, named; empty when it is a prisoner's dilemma."""
        R, S, T, P = self.reward, self.sucker, self.temptation, self.punishment
        broken = []
        if not T > R:
            broken.append(f"T > R (temptation {T:g} must exceed reward {R:g})")
        if not R > P:
            broken.append(f"R > P (reward {R:g} must exceed punishment {P:g})")
        if not P > S:
            broken.append(f"P > S (punishment {P:g} must exceed sucker {S:g})")
        if not 2 * R > T + S:
            broken.append(
                f"2R > T + S (mutual cooperation {2 * R:g} must beat alternating {T + S:g})"
            )
        return broken

    def check_prisoners_dilemma(self, *, file: str | None = None) -> None:
        broken = self.prisoners_dilemma_violations()
        if broken:
            raise ConfigError(
                "not a prisoner's dilemma: violates " + "; ".join(broken),
                file=file,
                field="game.payoffs",
            )


DEFAULT_PAYOFFS = PayoffMatrix()
