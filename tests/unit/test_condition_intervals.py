"""A condition row's intervals keep to the metric's real range and no other (issue 42): the
longest match seen is no bound on the mean length, and a rate's interval is inside [0, 1] without
being cut to zero width at 0 or 1."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pdbench.analysis.metrics.catalog import metric
from pdbench.analysis.metrics.columns import StoredMatches
from pdbench.analysis.metrics.condition_intervals import condition_statistics
from pdbench.analysis.metrics.round_aggregates import aggregate_matches
from pdbench.storage.manifest import RunManifest


def _matches(condition: str, plays: list[tuple[str, str]], horizon: str) -> StoredMatches:
    parts = []
    for replicate, (a, b) in enumerate(plays):
        parts.append(
            StoredMatches(
                keys=[(condition, replicate)],
                labels=[("x", "y", "pd", horizon)],
                starts=np.array([0]),
                coop_a=np.array([m == "C" for m in a]),
                coop_b=np.array([m == "C" for m in b]),
                payoff_a=np.zeros(len(a)),
                payoff_b=np.zeros(len(a)),
                flags={},
            )
        )
    return StoredMatches.concatenate(parts)


def _manifest(horizon: dict) -> RunManifest:
    return RunManifest(
        run_id="r",
        conditions=["g"],
        config={"conditions": [{"name": "g", "horizon": horizon}]},
    )


def _condition(table: pd.DataFrame) -> pd.Series:
    return table[table["level"] == "condition"].iloc[0]


def test_the_issues_geometric_lengths_get_an_interval_that_holds_the_true_mean():
    # Issue 42: a geometric horizon (stop 0.1, mean 10) and 3 replicates of lengths 2, 3 and 7
    # were given [1.00, 7.00] (cut at the longest match), which excludes the true mean.
    plays = [("C" * n, "C" * n) for n in (2, 3, 7)]
    horizon = {"type": "geometric", "stop_prob": 0.1, "max_rounds": None}
    row = _condition(aggregate_matches(_matches("g", plays, "geometric"), _manifest(horizon)))
    assert row["n_rounds"] == 4.0 and row["n_rounds_n"] == 3
    assert 1.0 <= row["n_rounds_ci_low"] < 4.0
    assert row["n_rounds_ci_high"] > 10.0  # beyond the longest match, and past the truth


def test_a_capped_horizon_bounds_the_length_interval_at_its_cap():
    plays = [("C" * n, "D" * n) for n in (5, 5, 5)]
    horizon = {"type": "geometric", "stop_prob": 0.01, "max_rounds": 5}
    row = _condition(aggregate_matches(_matches("g", plays, "geometric"), _manifest(horizon)))
    assert row["n_rounds_ci_high"] == pytest.approx(5.0)  # the cap is a true bound
    assert 1.0 <= row["n_rounds_ci_low"] < 5.0


def test_round_and_count_intervals_are_cut_at_their_true_bound_only():
    rounds, counts = metric("time_to_collapse"), metric("fallbacks_a")
    skewed = np.array([1.0, 2.0, 30.0])
    stats = condition_statistics(rounds, skewed)
    assert stats["ci_low"] == 1.0 and stats["ci_high"] > 30.0  # Student t, cut at 1 only
    stats = condition_statistics(counts, np.array([0.0, 0.0, 6.0]))
    assert stats["ci_low"] == 0.0 and stats["ci_high"] > 6.0


@pytest.mark.parametrize("edge", [0.0, 1.0])
def test_a_rate_at_zero_or_one_in_every_match_keeps_an_interval_of_some_width(edge):
    # Every replicate at 1 (or 0) says nothing of the spread: the interval is Wilson's for n
    # Bernoulli values (the widest a [0, 1] value allows), not [1, 1].
    stats = condition_statistics(metric("cooperation_rate"), np.full(4, edge))
    low, high = stats["ci_low"], stats["ci_high"]
    z2 = 1.959963984540054**2
    assert 0.0 <= low <= high <= 1.0 and high - low == pytest.approx(z2 / (4 + z2))


def test_rate_intervals_stay_inside_zero_one_where_the_t_interval_leaves_it():
    values = np.array([0.98, 0.4, 1.0])
    stats = condition_statistics(metric("cooperation_rate"), values)
    t_half = 4.302652729911275 * values.std(ddof=1) / np.sqrt(3)
    assert values.mean() + t_half > 1  # Student t would leave the range
    assert 0.0 <= stats["ci_low"] < stats["mean"] < stats["ci_high"] <= 1.0
