"""Confidence intervals shared by the analyses: Wilson for proportions, Student t for means, t on
paired differences and Welch's t for a difference between two conditions.

No scipy at import: the normal quantile comes from the standard library (`statistics.NormalDist`),
the t quantile for whole degrees of freedom from `pdbench.analysis.stats.student_t`; only a Welch interval
(fractional degrees of freedom) imports scipy, when it is computed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from pdbench.analysis.stats.student_t import t_quantile_two_sided


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


def t_quantile(confidence: float, df: np.ndarray | float) -> np.ndarray:
    """Two-sided Student t quantile for any positive (also fractional) degrees of freedom,
    elementwise; NaN where df is not positive. Integer df use the closed form of
    `pdbench.analysis.stats.student_t`; a fractional df (Welch) scipy's inverse t, imported only then."""
    dfs = np.asarray(df, dtype=float)
    out = np.full(dfs.shape, np.nan)
    whole = np.isfinite(dfs) & (dfs >= 1) & (dfs == np.round(dfs))
    fractional = np.isfinite(dfs) & (dfs > 0) & ~whole
    for value in np.unique(dfs[whole]):
        out[dfs == value] = t_quantile_two_sided(confidence, int(value))
    if fractional.any():
        from scipy.special import stdtrit  # kept out of the module import (import cost)

        out[fractional] = stdtrit(dfs[fractional], 0.5 + confidence / 2)
    return out


def paired_t_interval(
    differences: np.ndarray, confidence: float = 0.95
) -> tuple[np.ndarray, np.ndarray]:
    """Student t interval for the mean of paired differences, row by row of a (..., n) array:
    mean(d) -/+ t(n - 1) * sd(d) / sqrt(n). Exact coverage when the differences are normal, close
    to it for moderate skew from n = 5 or so. NaN bounds when n < 2."""
    d = np.asarray(differences, dtype=float)
    n = d.shape[-1]
    mean = d.mean(axis=-1)
    if n < 2:
        return np.full(mean.shape, np.nan), np.full(mean.shape, np.nan)
    half = t_quantile(confidence, n - 1) * d.std(axis=-1, ddof=1) / np.sqrt(n)
    return mean - half, mean + half


@dataclass(frozen=True)
class WelchInterval:
    """Welch's interval for mean(b) - mean(a) with unequal variances (Welch 1947): the difference
    -/+ t(df) * se, se^2 = s_a^2/n_a + s_b^2/n_b, df by Welch-Satterthwaite."""

    low: np.ndarray
    high: np.ndarray
    standard_error: np.ndarray
    df: np.ndarray


def welch_interval(a: np.ndarray, b: np.ndarray, confidence: float = 0.95) -> WelchInterval:
    """Welch's interval row by row of (..., n_a) and (..., n_b) arrays; NaN bounds when either
    side has fewer than two values or both have no spread (df undefined)."""
    values_a, values_b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    n_a, n_b = values_a.shape[-1], values_b.shape[-1]
    difference = values_b.mean(axis=-1) - values_a.mean(axis=-1)
    if n_a < 2 or n_b < 2:
        nan = np.full(difference.shape, np.nan)
        return WelchInterval(nan, nan, nan, nan)
    part_a = values_a.var(axis=-1, ddof=1) / n_a
    part_b = values_b.var(axis=-1, ddof=1) / n_b
    variance = part_a + part_b
    with np.errstate(invalid="ignore", divide="ignore"):
        df = variance**2 / (part_a**2 / (n_a - 1) + part_b**2 / (n_b - 1))
    se = np.sqrt(variance)
    half = np.where(variance > 0, t_quantile(confidence, np.where(variance > 0, df, 1.0)) * se, 0.0)
    return WelchInterval(
        difference - half, difference + half, se, np.where(variance > 0, df, np.nan)
    )
