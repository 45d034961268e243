"""Confidence intervals shared by the analyses: Wilson for proportions, Student t for means.

No scipy: the normal quantile comes from the standard library (`statistics.NormalDist`) and the t
quantile from `pdbench.analysis.stats`.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

from pdbench.analysis.stats import t_quantile_two_sided


def normal_quantile_two_sided(confidence: float) -> float:
    """z such that P(|Z| <= z) = confidence; 1.959963984540054 for 0.95."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def wilson_interval(
    successes: np.ndarray | int, trials: np.ndarray | int, confidence: float = 0.95
) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval (Wilson 1927) of successes / trials, elementwise.

    Stays inside [0, 1] and behaves at 0 and n successes, unlike the Wald interval. Where
    `trials` is 0 both bounds are NaN.
    """
    k = np.asarray(successes, dtype=float)
    n = np.asarray(trials, dtype=float)
    z = normal_quantile_two_sided(confidence)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        denominator = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / denominator
        half = z / denominator * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
        # At 0 and n successes the bound is exactly 0 (or 1); rounding would leave 1e-17.
        low = np.where(n > 0, np.where(k == 0, 0.0, np.clip(centre - half, 0.0, 1.0)), np.nan)
        high = np.where(n > 0, np.where(k == n, 1.0, np.clip(centre + half, 0.0, 1.0)), np.nan)
    return low, high


def mean_interval(values: np.ndarray, confidence: float = 0.95) -> dict[str, float | int]:
    """Mean, sample std, n and Student-t interval over the finite values; NaN where undefined
    (no value: everything NaN; one value: std and bounds NaN)."""
    defined = np.asarray(values, dtype=float)
    defined = defined[np.isfinite(defined)]
    n = int(defined.size)
    if n == 0:
        return {"mean": math.nan, "std": math.nan, "n": 0, "ci_low": math.nan, "ci_high": math.nan}
    mean = float(defined.mean())
    if n == 1:
        return {"mean": mean, "std": math.nan, "n": 1, "ci_low": math.nan, "ci_high": math.nan}
    std = float(defined.std(ddof=1))
    half = t_quantile_two_sided(confidence, n - 1) * std / math.sqrt(n)
    return {"mean": mean, "std": std, "n": n, "ci_low": mean - half, "ci_high": mean + half}
