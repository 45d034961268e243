"""Cohen's and Fleiss' kappa, each with a jackknife t interval over items.

The interval: kappa -/+ t_{n-1} * se, se the jackknife standard error over the n items
(se^2 = (n - 1) / n * sum (kappa_(i) - mean)^2, each kappa_(i) leaving item i out; Efron and Stein
1981), cut to [-1, 1]. The jackknife is the nonparametric counterpart of Fleiss' delta-method
variance, and the t quantile pays for estimating it from n items. Deterministic: no resamples.

Why not the bootstrap: over 2,000 simulated panels per case (benchmarks/interval_coverage.py,
docs/metrics.md; 16, 40 and 80 items, 2, 3 and 5 judges, kappas 0.16-0.73) the percentile
bootstrap covered 0.77-0.95 (0.77 at 16 items on a skewed split, 0.88 for 5 weakly agreeing
judges), this interval 0.91-0.97, `MEASURED_COVERAGE`, printed beside every interval. Its short
spots: 5 judges at 16 items agreeing weakly or on a skewed split (0.91), and two judges on a
20 % class at 40-80 items (0.92-0.93, where the bootstrap gives 0.93-0.94).

When the judges agree on every item, every jackknife kappa is 1 and the interval would be [1, 1]:
the items cannot show how often the judges would disagree. The lower end is then the one a mean
agreement of 1 over n items allows, Wilson's n / (n + z^2) (the bound `pdbench.analysis.stats.bounded`
uses for shares all at 1), carried through the kappa's chance correction:
(n / (n + z^2) - chance) / (1 - chance).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from pdbench.analysis.stats.intervals import t_quantile

_NORMAL = NormalDist()
# The interval's coverage over the simulated panels (module doc), printed beside it.
MEASURED_COVERAGE = "0.91-0.97"


@dataclass(frozen=True)
class Kappa:
    value: float
    low: float
    high: float
    confidence: float = 0.95

    def __str__(self) -> str:
        return (
            f"{self.value:.3f} ({100 * self.confidence:.0f} % jackknife t CI "
            f"{self.low:.3f} to {self.high:.3f}; covers {MEASURED_COVERAGE} in simulations)"
        )


def chance_corrected(observed: np.ndarray, chance: np.ndarray) -> np.ndarray:
    """(observed - chance) / (1 - chance); NaN where chance agreement is 1."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(np.isclose(chance, 1.0), np.nan, (observed - chance) / (1 - chance))


def fleiss_rows(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Observed and chance agreement of (..., items, categories) tables of verdict counts."""
    counts = np.asarray(counts, dtype=float)
    raters = counts.sum(axis=-1)
    observed = ((counts * counts).sum(axis=-1) - raters) / (raters * (raters - 1))
    shares = counts.sum(axis=-2) / counts.sum(axis=(-2, -1))[..., None]
    return observed.mean(axis=-1), (shares * shares).sum(axis=-1)


def cohen_rows(first: np.ndarray, second: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Observed and chance agreement of two judges' category codes, row by row of (..., items)."""
    first, second = np.asarray(first), np.asarray(second)
    observed = (first == second).mean(axis=-1)
    chance = sum(
        (first == c).mean(axis=-1) * (second == c).mean(axis=-1) for c in np.union1d(first, second)
    )
    return observed, np.asarray(chance, dtype=float)


def fleiss_kappa(counts: np.ndarray) -> float:
    """Fleiss' kappa of an items x categories table of how many judges chose each category."""
    counts = np.asarray(counts, dtype=float)
    raters = counts.sum(axis=1)
    if len(set(raters)) != 1 or raters[0] < 2:
        raise ValueError("every item needs the same number (2 or more) of verdicts")
    return float(chance_corrected(*fleiss_rows(counts)))


def cohen_kappa(first: np.ndarray, second: np.ndarray) -> float:
    """Cohen's kappa of two judges' verdicts on the same items (category codes)."""
    return float(chance_corrected(*cohen_rows(first, second)))


# A statistic of the items at some rows of item indices: (observed, chance) per row.
Agreement = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]


def kappa_with_interval(agreement: Agreement, items: int, confidence: float = 0.95) -> Kappa:
    """The kappa of all `items` and its jackknife t interval (module doc)."""
    everything = np.arange(items)[None, :]
    observed, chance = agreement(everything)
    value = float(chance_corrected(observed, chance)[0])
    if math.isnan(value) or items < 2:
        return Kappa(value, math.nan, math.nan, confidence)
    if observed[0] >= 1:  # every item agreed on: the items cannot show a disagreement
        z = _NORMAL.inv_cdf(0.5 + confidence / 2)
        least = items / (items + z * z)
        low = max(-1.0, float(chance_corrected(np.array(least), chance[0])))
        return Kappa(value, low, 1.0, confidence)
    kept = np.arange(items - 1)[None, :]
    leave_one_out = kept + (kept >= np.arange(items)[:, None])  # row i: every item but i
    jack = chance_corrected(*agreement(leave_one_out))
    jack = jack[~np.isnan(jack)]  # leaving out an item can leave one category only
    if len(jack) < 2:
        return Kappa(value, math.nan, math.nan, confidence)
    se = math.sqrt((len(jack) - 1) / len(jack) * float(((jack - jack.mean()) ** 2).sum()))
    half = float(t_quantile(confidence, items - 1)) * se
    return Kappa(value, max(-1.0, value - half), min(1.0, value + half), confidence)
