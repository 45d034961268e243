"""An encounter: one pairwise interaction inside a population's match (a donor giving or not to
its recipient, two seats of a re-matched population playing a round), as a game's metrics
module lists them for the population analyses (`pdbench tournament` on a population run:
pdbench.analysis.per_run.population_play).

A game of a population that meets in pairs says who met whom and what each got from it by
defining `encounters(lines, options) -> list[Encounter]` in its metrics module (the stored turn
lines and options of one match); the analyses average them by the agents' types into a payoff
matrix, as a tournament's pairs give one.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Encounter:
    """One interaction of two player seats: what each got from it, and whether each cooperated
    in it (None: the seat made no choice in it, e.g. the recipient of a donation)."""

    first: str
    second: str
    payoff_first: float
    payoff_second: float
    cooperated_first: bool | None
    cooperated_second: bool | None
