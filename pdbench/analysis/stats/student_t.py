"""Student-t confidence intervals without scipy.

The two-sided t quantile is found by bisection on the exact closed-form t distribution for
integer degrees of freedom (Abramowitz & Stegun 26.7.3-4), so it is correct to ~1e-12 and costs
no heavy import; replicate counts always give integer degrees of freedom.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from functools import lru_cache

import numpy as np


def _central_probability(t: float, df: int) -> float:
    """P(|T| <= t) for Student's t with `df` degrees of freedom (A&S 26.7.3 and 26.7.4)."""
    theta = math.atan(t / math.sqrt(df))
    sin, cos = math.sin(theta), math.cos(theta)
    cos2 = cos * cos
    if df % 2 == 1:
        if df == 1:
            return 2 * theta / math.pi
        term = cos
        total = cos
        for k in range(3, df - 1, 2):  # terms cos^k with coefficients 2*4*..(k-1) / 1*3*..k
            term *= cos2 * (k - 1) / k
            total += term
        return 2 / math.pi * (theta + sin * total)
    term = 1.0
    total = 1.0
    for k in range(2, df - 1, 2):  # terms cos^k with coefficients 1*3*..(k-1) / 2*4*..k
        term *= cos2 * (k - 1) / k
        total += term
    return sin * total


@lru_cache(maxsize=256)
def t_quantile_two_sided(confidence: float, df: int) -> float:
    """t such that P(|T| <= t) = confidence; e.g. (0.95, 2) -> 4.302652729911275."""
    if df < 1 or not 0 < confidence < 1:
        raise ValueError(f"need df >= 1 and 0 < confidence < 1, got {df}, {confidence}")
    low, high = 0.0, 1.0
    while _central_probability(high, df) < confidence:
        high *= 2
    for _ in range(200):
        middle = (low + high) / 2
        if _central_probability(middle, df) < confidence:
            low = middle
        else:
            high = middle
        if high - low < 1e-13 * high:
            break
    return (low + high) / 2


def mean_ci(
    values: Iterable[float | None], confidence: float = 0.95
) -> dict[str, float | int | None]:
    """Mean, sample std, n and a Student-t confidence interval over the defined values."""
    if isinstance(values, np.ndarray):  # the aggregates' path: no Python loop over 1,000s
        as_floats = values.astype(float)
        defined = as_floats[~np.isnan(as_floats)]
    else:
        defined = np.array([v for v in values if v is not None and not np.isnan(v)], dtype=float)
    n = int(defined.size)
    if n == 0:
        return {"mean": None, "std": None, "n": 0, "ci_low": None, "ci_high": None}
    mean = float(defined.mean())
    if n == 1:
        return {"mean": mean, "std": None, "n": 1, "ci_low": None, "ci_high": None}
    std = float(defined.std(ddof=1))
    half = t_quantile_two_sided(confidence, n - 1) * std / math.sqrt(n)
    return {
        "mean": mean,
        "std": std,
        "n": n,
        "ci_low": float(mean - half),
        "ci_high": float(mean + half),
    }
