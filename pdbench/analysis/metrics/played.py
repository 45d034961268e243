"""What a metric's computation reads: the stored matches laid end to end (`StoredMatches`), seen
per side, with the sums per match and the shared computations (`behaviour`, `talk`) done once for
every metric that reads them."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from pdbench.analysis.metrics.behaviour import many_match_metrics
from pdbench.analysis.metrics.columns import StoredMatches
from pdbench.analysis.metrics.talk import talk_metrics


@dataclass
class PlayedMatches:
    """Matches with at least one round each, and the run's collapse settings."""

    stored: StoredMatches
    collapse_k: int
    collapse_threshold: float

    @property
    def starts(self) -> np.ndarray:
        """The offset of each match's first round in the per-round arrays."""
        return self.stored.starts

    def cooperated(self, side: str) -> np.ndarray:
        """Per round: True where `side` ("a" or "b") played C."""
        return self.stored.coop_a if side == "a" else self.stored.coop_b

    def payoff(self, side: str) -> np.ndarray:
        """Per round: `side`'s payoff."""
        return self.stored.payoff_a if side == "a" else self.stored.payoff_b

    def flag(self, name: str, side: str) -> np.ndarray:
        """Per round: a stored marker of `side` (invalid_outputs, fallbacks, timeouts, errors,
        or a talk count), as counts."""
        return self.stored.flags[f"{name}_{side}"]

    def per_match(self, values: np.ndarray) -> np.ndarray:
        """Sums of per-round values per match."""
        return np.add.reduceat(values, self.starts)

    @cached_property
    def lengths(self) -> np.ndarray:
        """Rounds per match."""
        return self.behaviour["n_rounds"]

    @cached_property
    def behaviour(self) -> dict[str, np.ndarray]:
        """The core behavioural metrics by column (pdbench.analysis.metrics.behaviour)."""
        return many_match_metrics(
            self.starts,
            self.stored.coop_a,
            self.stored.coop_b,
            self.stored.payoff_a,
            self.stored.payoff_b,
            collapse_k=self.collapse_k,
            collapse_threshold=self.collapse_threshold,
        )

    @cached_property
    def talk(self) -> dict[str, np.ndarray]:
        """The talk metrics by column (pdbench.analysis.metrics.talk); NaN without talk."""
        cooperated = {"a": self.stored.coop_a, "b": self.stored.coop_b}
        return talk_metrics(self.stored.flags, self.starts, cooperated)

    @cached_property
    def collapse_determinable(self) -> np.ndarray:
        """Per match: long enough (k rounds) to tell whether it collapsed."""
        return self.lengths.astype(float) >= self.collapse_k

    @cached_property
    def collapsed(self) -> np.ndarray:
        """Per match: it collapsed (a time to collapse exists)."""
        return ~np.isnan(self.behaviour["time_to_collapse"])
