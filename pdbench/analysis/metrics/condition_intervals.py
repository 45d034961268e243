"""A condition row's statistics for one scalar metric: mean, std, n and the 95% interval the
metric's `interval` names (`pdbench.core.metric.Metric.interval`), over the values of
the condition's finished matches.

Every interval keeps to the metric's real range and no other: a rate inside [0, 1], a count at
or above 0, a number of rounds at or above 1, and nothing is cut at an observed extreme (the
longest match seen is no bound on the mean length). docs/metrics.md gives each one's method and
measured coverage.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from pdbench.analysis.metrics.catalog import MetricColumn
from pdbench.analysis.stats.bounded import rate_mean_interval
from pdbench.analysis.stats.intervals import wilson_interval
from pdbench.analysis.stats.lengths import geometric_length_interval
from pdbench.analysis.stats.student_t import mean_ci

# The true lower bound of each kind's values (payoffs have none).
LOWER_BOUND = {"rate": 0.0, "count": 0.0, "round": 1.0}

Statistics = dict[str, float | int | None]
# A condition row's columns of one scalar metric, in this order: `<column>` (the mean), then these.
SUFFIXES = ("std", "n", "ci_low", "ci_high")


def statistics_columns(
    column: MetricColumn, values: np.ndarray, horizon: Mapping[str, Any] | None = None
) -> Statistics:
    """The condition row's columns of one scalar metric over its finished matches' values, every
    game's alike (a 2x2 game's rows and a turn game's per seat): `<column>` the mean, then
    `<column>_std`, `_n`, `_ci_low`, `_ci_high` (`condition_statistics`)."""
    stats = condition_statistics(column, values, horizon)
    found: Statistics = {column.column: stats["mean"]}
    found.update({f"{column.column}_{suffix}": stats[suffix] for suffix in SUFFIXES})
    return found


def condition_statistics(
    column: MetricColumn, values: np.ndarray, horizon: Mapping[str, Any] | None = None
) -> Statistics:
    """Mean, std, n, ci_low and ci_high over the defined values (NaN left out); `horizon` is the
    condition's horizon config (type, stop_prob, max_rounds), used by a match length's interval."""
    defined = values[~np.isnan(values)]
    n = int(defined.size)
    if column.metric.interval == "wilson":
        return _wilson(defined)
    stats = mean_ci(defined)
    if n < 2:
        return stats
    low: float | np.ndarray
    high: float | np.ndarray
    geometric = (horizon or {}).get("type") == "geometric"
    if column.metric.interval == "horizon_length" and horizon is not None and geometric:
        low, high = geometric_length_interval(defined, horizon.get("max_rounds"))
    elif column.kind == "rate":
        low, high = rate_mean_interval(defined)
    else:
        low, high = float(stats["ci_low"] or 0.0), float(stats["ci_high"] or 0.0)
    stats["ci_low"] = max(float(low), LOWER_BOUND.get(column.kind, -math.inf))
    stats["ci_high"] = float(high)
    return stats


def _wilson(defined: np.ndarray) -> Statistics:
    """A share of matches (each 1 or 0): Wilson's score interval."""
    n = int(defined.size)
    if n == 0:
        return {"mean": None, "std": None, "n": 0, "ci_low": None, "ci_high": None}
    successes = round(float(defined.sum()))
    low, high = wilson_interval(successes, n)
    return {
        "mean": successes / n,
        "std": float(defined.std(ddof=1)) if n > 1 else None,
        "n": n,
        "ci_low": float(low),
        "ci_high": float(high),
    }
