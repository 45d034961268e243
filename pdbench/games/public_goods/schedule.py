"""A player's contribution schedule, estimated from play: how its contribution follows the others'.

Fischbacher, Gaechter & Fehr (2001, Economics Letters 71) asked each player, by the strategy
method, what it would contribute for every average contribution of the others, and sorted the
schedules into conditional cooperators (about half), free riders (about a third) and hump-shaped
("triangle") contributors. In a played match the others' current average is unknown when a player
decides, so, as is usual for data from play, the estimate regresses the player's contribution in
round t on the mean contribution of the others it played with in round t - 1 (what it saw last),
over the rounds from the second on:

- `slope` (ordinary least squares) with its 95 % Student-t interval: about 1 for a player that
  matches the others, 0 for one that ignores them.
- `type` (pdbench's reading of the 2001 categories for data from play; None with fewer than 3
  rounds to fit):
  - "free_rider": mean contribution at most 5 % of the endowment;
  - "hump": the slope over the others' means below half the endowment has an interval above 0
    and the slope over those above half has one below 0 (at least 3 rounds on each side);
  - "conditional_cooperator": otherwise, an interval of the slope above 0;
  - "other": anything else (an unconditional contributor, noise, too little variation).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

FREE_RIDER_AT_MOST = 0.05  # mean contribution, as a share of the endowment
CONFIDENCE = 0.95
MIN_POINTS = 3


def _central_probability(t: float, df: int) -> float:
    """P(|T| <= t) for Student's t with `df` degrees of freedom (Abramowitz & Stegun 26.7.3-4;
    the same closed form as pdbench.analysis.stats.student_t, which a game may not import)."""
    theta = math.atan(t / math.sqrt(df))
    cos2 = math.cos(theta) ** 2
    term = total = math.cos(theta) if df % 2 else 1.0
    for k in range(3 if df % 2 else 2, df - 1, 2):
        term *= cos2 * (k - 1) / k
        total += term
    if df % 2:
        return 2 / math.pi * (theta + (math.sin(theta) * total if df > 1 else 0.0))
    return math.sin(theta) * total


def t_quantile(confidence: float, df: int) -> float:
    """t with P(|T| <= t) = confidence (bisection to ~1e-12)."""
    low, high = 0.0, 1.0
    while _central_probability(high, df) < confidence:
        high *= 2
    for _ in range(200):
        middle = (low + high) / 2
        low, high = (
            (middle, high) if _central_probability(middle, df) < confidence else (low, middle)
        )
        if high - low < 1e-12 * high:
            break
    return (low + high) / 2


@dataclass(frozen=True)
class Line:
    """An OLS fit of y on x: the slope with its interval (None when x does not vary)."""

    n: int
    slope: float | None
    intercept: float | None
    ci_low: float | None
    ci_high: float | None


def fit(points: Sequence[tuple[float, float]]) -> Line:
    n = len(points)
    if n < 2:
        return Line(n, None, None, None, None)
    mean_x = sum(x for x, _ in points) / n
    mean_y = sum(y for _, y in points) / n
    sxx = sum((x - mean_x) ** 2 for x, _ in points)
    if sxx == 0:
        return Line(n, None, None, None, None)
    slope = sum((x - mean_x) * (y - mean_y) for x, y in points) / sxx
    intercept = mean_y - slope * mean_x
    if n < 3:
        return Line(n, slope, intercept, None, None)
    residual = sum((y - intercept - slope * x) ** 2 for x, y in points) / (n - 2)
    half = t_quantile(CONFIDENCE, n - 2) * math.sqrt(residual / sxx)
    return Line(n, slope, intercept, slope - half, slope + half)


@dataclass(frozen=True)
class ScheduleEstimate:
    n: int  # rounds fitted (the second round on)
    slope: float | None
    ci_low: float | None
    ci_high: float | None
    mean_share: float | None  # mean contribution over the fitted rounds / the endowment
    below_half: Line  # the fit over the others' means below half the endowment
    above_half: Line  # ... and above it
    type: str | None


def _above(line: Line) -> bool:
    return line.ci_low is not None and line.ci_low > 0 and line.n >= MIN_POINTS


def _below(line: Line) -> bool:
    return line.ci_high is not None and line.ci_high < 0 and line.n >= MIN_POINTS


def estimate_schedule(points: Sequence[tuple[float, float]], endowment: float) -> ScheduleEstimate:
    """`points`: (the others' mean last round, own contribution this round), one per round from
    the second on; `endowment`: E, for the free-rider share and the half-way split."""
    whole = fit(points)
    half = endowment / 2
    below = fit([p for p in points if p[0] < half])
    above = fit([p for p in points if p[0] > half])
    mean_share = sum(y for _, y in points) / len(points) / endowment if points else None
    kind: str | None = None
    if len(points) >= MIN_POINTS and mean_share is not None:
        if mean_share <= FREE_RIDER_AT_MOST:
            kind = "free_rider"
        elif _above(below) and _below(above):
            kind = "hump"
        elif _above(whole):
            kind = "conditional_cooperator"
        else:
            kind = "other"
    return ScheduleEstimate(
        n=len(points),
        slope=whole.slope,
        ci_low=whole.ci_low,
        ci_high=whole.ci_high,
        mean_share=mean_share,
        below_half=below,
        above_half=above,
        type=kind,
    )
