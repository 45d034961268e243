"""Intervals for means of rates (values in [0, 1]) and their differences that stay inside the
range and cover at small n.

The unit is the replicate: a condition's rate is the mean of its matches' rates (each a share of
rounds), not a pooled binomial, since rounds within a match are not independent draws. A mean of
values in [0, 1] with mean p has variance at most p(1 - p) / n, reached when every value is 0 or
1; so its interval is Wilson's score interval (Wilson 1927) at an *effective* sample size (the
design-effect device of Korn and Graubard 1998 and Dean and Pagano 2015):

    n_eff = p(1 - p) / (s^2 / n), times (z / t_{n-1})^2 for the estimated variance,

which is n - 1 (before the t factor) for 0/1 values and grows as the values spread less than 0/1
values would. In
the interior it is Student's t interval, p -/+ t s / sqrt(n) (the score interval's centre moves
towards 1/2 by z^2 / 2 n_eff, negligible when n_eff is large); near 0 or 1 it bends inside the
range the way Wilson's does; where every value is 0 (or 1) the sample says nothing of the
spread, and the interval is Wilson's for n Bernoulli values, the widest a [0, 1] variable allows
(not the zero-width [0, 0] of a t interval). Values all equal inside (0, 1) (a deterministic
matchup) have no spread and give a zero-width interval, as t does.

A difference of two conditions' rates lies in [-1, 1]:

- paired (common random numbers: replicate r of both conditions drew the same numbers): the
  per-replicate differences d_r = b_r - a_r are themselves bounded values, and the interval of
  their mean is the one above on (d + 1) / 2, mapped back. Where a condition's rates are all 0 (or
  all 1) the differences can show no spread that the condition could have had, so the interval
  is instead the MOVER combination (Zou and Donner 2008; Newcombe 1998) of the two conditions'
  intervals with no correlation assumed.
- unpaired: MOVER of the two conditions' intervals, each at Welch-Satterthwaite's degrees of
  freedom, so it is Welch's interval in the interior.

Every bound stays in its range. Measured coverage (benchmarks/interval_coverage.py, docs/metrics.md):
nominal within simulation error for rates of matches of 10-30 rounds with heterogeneous
propensities, from n = 3 replicates on; conservative (up to 0.98-1.00) where the rates pile up at
0 or 1; like every interval on so few values, below nominal (0.90-0.92) for means of strongly
skewed values near a bound.
"""

from __future__ import annotations

import numpy as np

from pdbench.analysis.stats.intervals import mean_interval, normal_quantile_two_sided, t_quantile


def _rows(values: np.ndarray) -> np.ndarray:
    return np.asarray(values, dtype=float)


def _wilson(p: np.ndarray, n_star: np.ndarray, z: float) -> tuple[np.ndarray, np.ndarray]:
    """Wilson's score interval at (possibly infinite, possibly fractional) sample sizes."""
    with np.errstate(divide="ignore", invalid="ignore"):
        z2_n = np.where(np.isinf(n_star), 0.0, z * z / n_star)
        denominator = 1 + z2_n
        centre = (p + z2_n / 2) / denominator
        half = np.sqrt(z2_n * (p * (1 - p) + z2_n / 4)) / denominator
    low = np.where(p <= 0, 0.0, np.clip(centre - half, 0.0, 1.0))
    high = np.where(p >= 1, 1.0, np.clip(centre + half, 0.0, 1.0))
    return low, high


def _effective_n(values: np.ndarray, quantile: np.ndarray | float, z: float) -> np.ndarray:
    """Per row: p(1 - p) / var(mean) scaled by (z / quantile)^2; n (no scaling) where every
    value is 0 or every value is 1; infinite where the values are equal inside (0, 1)."""
    n = values.shape[-1]
    p = values.mean(axis=-1)
    variance = values.var(axis=-1, ddof=1) / n
    at_edge = (p <= 0) | (p >= 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        scaled = p * (1 - p) / variance * (z / np.asarray(quantile, dtype=float)) ** 2
    scaled = np.where(variance > 0, scaled, np.inf)
    return np.where(at_edge, float(n), scaled)


def rate_mean_interval(
    values: np.ndarray, confidence: float = 0.95, quantile: np.ndarray | float | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The interval of the mean of values in [0, 1], row by row of a (..., n) array (module doc).
    `quantile` replaces t_{n-1} (Welch's, for a difference); NaN bounds where n < 2."""
    rows = _rows(values)
    n = rows.shape[-1]
    if n < 2:
        nan = np.full(rows.shape[:-1], np.nan)
        return nan, nan
    z = normal_quantile_two_sided(confidence)
    q = t_quantile(confidence, n - 1) if quantile is None else quantile
    return _wilson(rows.mean(axis=-1), _effective_n(rows, q, z), z)


def _all_at_an_edge(values: np.ndarray) -> np.ndarray:
    return np.all(values <= 0, axis=-1) | np.all(values >= 1, axis=-1)


def _mover(
    a: np.ndarray,
    b: np.ndarray,
    confidence: float,
    quantile: np.ndarray | float | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """MOVER for mean(b) - mean(a) from the two means' intervals (each at `quantile`, or its own
    t_{n-1}), no correlation assumed."""
    low_a, high_a = rate_mean_interval(a, confidence, quantile)
    low_b, high_b = rate_mean_interval(b, confidence, quantile)
    mean_a, mean_b = a.mean(axis=-1), b.mean(axis=-1)
    difference = mean_b - mean_a
    below = np.sqrt((mean_b - low_b) ** 2 + (high_a - mean_a) ** 2)
    above = np.sqrt((high_b - mean_b) ** 2 + (mean_a - low_a) ** 2)
    return np.clip(difference - below, -1, 1), np.clip(difference + above, -1, 1)


def paired_rate_difference_interval(
    a: np.ndarray, b: np.ndarray, confidence: float = 0.95
) -> tuple[np.ndarray, np.ndarray]:
    """Interval of mean(b - a) for paired rates, row by row of two (..., n) arrays (module doc)."""
    rows_a, rows_b = _rows(a), _rows(b)
    low, high = rate_mean_interval((rows_b - rows_a + 1) / 2, confidence)
    low, high = 2 * low - 1, 2 * high - 1
    edge = _all_at_an_edge(rows_a) | _all_at_an_edge(rows_b)
    if edge.any():
        mover_low, mover_high = _mover(rows_a, rows_b, confidence)
        low, high = np.where(edge, mover_low, low), np.where(edge, mover_high, high)
    return np.clip(low, -1, 1), np.clip(high, -1, 1)


def unpaired_rate_difference_interval(
    a: np.ndarray, b: np.ndarray, df: np.ndarray | float, confidence: float = 0.95
) -> tuple[np.ndarray, np.ndarray]:
    """Interval of mean(b) - mean(a) for independent rates: MOVER of the two means' intervals at
    Welch's degrees of freedom `df` (NaN df: each side's own n - 1)."""
    rows_a, rows_b = _rows(a), _rows(b)
    if rows_a.shape[-1] < 2 or rows_b.shape[-1] < 2:
        nan = np.full(np.broadcast_shapes(rows_a.shape[:-1], rows_b.shape[:-1]), np.nan)
        return nan, nan
    # Without a df (no spread on either side) the quantile is unused: each side's effective n is
    # infinite (equal values) or n (all 0 or all 1, Wilson's own z).
    dfs = np.asarray(df, dtype=float)
    usable = np.isfinite(dfs) & (dfs > 0)
    return _mover(rows_a, rows_b, confidence, t_quantile(confidence, np.where(usable, dfs, 1.0)))


def rate_summary(values: np.ndarray, confidence: float = 0.95) -> dict[str, float | int]:
    """Mean, sample std, n and `rate_mean_interval` over the finite values in [0, 1], the shape
    of `pdbench.analysis.stats.intervals.mean_interval` (NaN where undefined)."""
    summary = mean_interval(values, confidence)
    if summary["n"] >= 2:
        defined = np.asarray(values, dtype=float)
        low, high = rate_mean_interval(defined[np.isfinite(defined)], confidence)
        summary["ci_low"], summary["ci_high"] = float(low), float(high)
    return summary
