"""A share with its Wilson score interval (Wilson 1927): inside [0, 1] and sound at 0 % and
100 %, where the normal (Wald) interval collapses."""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist


@dataclass(frozen=True)
class Share:
    """`successes` of `trials`, with a Wilson interval at `confidence`."""

    successes: int
    trials: int
    low: float
    high: float
    confidence: float = 0.95

    @property
    def rate(self) -> float:
        return self.successes / self.trials if self.trials else math.nan

    def __str__(self) -> str:
        if not self.trials:
            return "no data"
        return (
            f"{100 * self.rate:.1f} % ({self.successes}/{self.trials}; "
            f"{100 * self.confidence:.0f} % CI {100 * self.low:.1f}-{100 * self.high:.1f} %)"
        )


def share(successes: int, trials: int, confidence: float = 0.95) -> Share:
    if not 0 <= successes <= trials:
        raise ValueError(f"successes must be between 0 and trials, got {successes}/{trials}")
    if trials == 0:
        return Share(0, 0, math.nan, math.nan, confidence)
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return Share(successes, trials, low, high, confidence)
