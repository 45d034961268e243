"""Student-t confidence intervals without scipy.

The two-sided t quantile is found by bisection on the exact closed-form t distribution for
integer degrees of freedom (Abramowitz & Stegun 26.7.3-4), so it is correct to ~1e-12 and costs
no heavy import; replicate counts always give integer degrees of freedom.
"""

from __future__ import annotations

import math
from functools import lru_cache


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
