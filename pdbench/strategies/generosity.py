"""Generous Tit For Tat's default generosity, and when it silently turns GTFT into another policy.

Nowak & Sigmund (1992) give the most generous forgiveness that still keeps exploiters from
profiting: min(1 - (T-R)/(R-S), (R-P)/(T-P)), 1/3 in the default game (R=3, S=0, T=5, P=1). In
other games the formula can reach 0 (GTFT is then TFT) or leave [0, 1] (the stag hunt: 1.25),
where as a probability it is clamped (GTFT is then ALLC). Both are legal, and both are worth a
warning when the config did not ask for them.
"""

from __future__ import annotations

from dataclasses import dataclass

from pdbench.core.errors import ConfigError
from pdbench.core.game import Game


@dataclass(frozen=True, slots=True)
class DefaultGenerosity:
    """The Nowak-Sigmund generosity for one game: the formula's value and the probability used."""

    game_id: str
    formula: float  # min(1 - (T-R)/(R-S), (R-P)/(T-P)), possibly outside [0, 1]
    value: float  # clamped into [0, 1]: what GTFT plays with

    @property
    def degenerate_because(self) -> str | None:
        """Why the default turns GTFT into another policy (one sentence), or None if it does not."""
        if 0 < self.value < 1:
            return None
        plays_as = "TFT (it never forgives)" if self.value == 0 else "ALLC (it always forgives)"
        shown = f"{self.formula:g}"
        if self.formula != self.value:
            shown += f", clamped to {self.value:g}"
        return (
            f"the default generosity min(1 - (T-R)/(R-S), (R-P)/(T-P)) is {shown} in "
            f"{self.game_id}, so GTFT plays as {plays_as}; set generous_prob to choose one "
            "(Axelrod keeps 1/3)"
        )


def describe_default_generosity(game: Game) -> DefaultGenerosity:
    """The default generosity of GTFT in `game`; an error when the formula is undefined."""
    R, S, T, P = game.payoffs.R, game.payoffs.S, game.payoffs.T, game.payoffs.P
    if R == S or T == P:
        raise ConfigError(
            "the default generous_prob needs R != S and T != P; set generous_prob explicitly",
            field="generous_prob",
        )
    formula = min(1 - (T - R) / (R - S), (R - P) / (T - P))
    return DefaultGenerosity(game_id=game.id, formula=formula, value=min(1.0, max(0.0, formula)))


def default_generosity(game: Game) -> float:
    """Nowak & Sigmund's generosity for `game`, clamped into [0, 1]; 1/3 in the default game."""
    return describe_default_generosity(game).value
