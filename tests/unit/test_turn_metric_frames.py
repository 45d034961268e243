"""A turn game's Metrics tab frames (ui.turn_metric_frames): per condition and player, each
measure's mean over the finished matches with a 95% interval: Wilson for a share of matches,
Student t kept inside the measure's range otherwise, none under two values."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from pdbench.analysis.stats.intervals import mean_interval, wilson_interval
from pdbench.ui.game_views import Measure
from pdbench.ui.turn_metric_frames import interval_text, measure_interval, measure_table

WIN = Measure("win_rate", "Win rate", "share", "won")
ROUNDS = Measure("rounds_to_solve", "Rounds to solve", "round", "rounds", decimals=1)


def test_a_share_of_matches_gets_wilsons_interval_even_at_100_percent():
    found = measure_interval([1.0, 1.0, 1.0], WIN)
    low, _ = wilson_interval(3, 3)
    assert found == {"mean": 1.0, "ci_low": float(low), "ci_high": 1.0, "n": 3, "method": "Wilson"}
    assert found["ci_low"] < 1.0  # Student t would give the empty interval [1, 1]


def test_other_values_get_student_t_kept_in_range_and_one_value_none():
    found = measure_interval([1.0, 1.5, 9.0], ROUNDS)
    expected = mean_interval([1.0, 1.5, 9.0])
    assert found["method"] == "Student t" and found["mean"] == pytest.approx(expected["mean"])
    assert expected["ci_low"] < 1.0 and found["ci_low"] == 1.0  # kept from the first round on
    assert found["ci_high"] == pytest.approx(expected["ci_high"])
    share = measure_interval([0.5, 1.0, 1.0, 0.9], WIN)
    assert share["method"] == "Student t" and share["ci_high"] == 1.0
    single = measure_interval([0.5, None, math.nan], WIN)
    assert single["n"] == 1 and single["ci_low"] is None
    assert interval_text(pd.Series(single), WIN) == "no CI (n<2)"
    assert measure_interval([], WIN)["mean"] is None


def test_the_table_averages_finished_matches_only_per_condition_and_seat():
    replicates = pd.DataFrame(
        {
            "condition": ["c1", "c1", "c1", "c2", "c2"],
            "match_status": ["finished", "finished", "aborted", "finished", "finished"],
            "win_rate_a": [1.0, 0.0, 1.0, 0.0, 0.0],
            "win_rate_b": [0.0, 1.0, None, 1.0, 1.0],
        }
    )
    table = measure_table(replicates, [WIN, ROUNDS])  # no rounds_to_solve column: left out
    assert list(table["condition"]) == ["c1", "c1", "c2", "c2"]
    c1_a = table[(table["condition"] == "c1") & (table["seat"] == "a")].iloc[0]
    assert c1_a["mean"] == 0.5 and c1_a["n"] == 2  # the aborted match is not counted
    assert interval_text(c1_a, WIN).startswith("95% CI 0.")


def test_a_groups_every_seat_is_measured_and_a_signed_measure_keeps_its_negative_interval():
    slope = Measure("contribution_slope", "Contribution slope", "signed", "per round")
    replicates = pd.DataFrame(
        {
            "condition": ["g"] * 3,
            "match_status": ["finished"] * 3,
            **{f"contribution_slope_{seat}": [-0.2, -0.1, -0.15] for seat in "abcde"},
            "contribution_slope_a_n": [3, 3, 3],  # a condition row's count: no seat "n"
            "fallbacks_f": [0, 0, 0],  # no measure column for f: not a measured seat
        }
    )
    table = measure_table(replicates, [slope])
    assert list(table["seat"]) == list("abcde")
    expected = mean_interval([-0.2, -0.1, -0.15])
    e = table[table["seat"] == "e"].iloc[0]
    assert e["ci_high"] == pytest.approx(expected["ci_high"]) and e["ci_high"] < 0
    assert e["ci_low"] == pytest.approx(expected["ci_low"])


def test_a_count_or_slope_at_0_in_every_match_is_not_read_as_a_share_of_matches():
    given = Measure("points_given", "Punishment given", "count", "points")
    found = measure_interval([0.0, 0.0, 0.0], given)
    assert found["method"] == "Student t" and (found["ci_low"], found["ci_high"]) == (0.0, 0.0)
    assert measure_interval([0.0, 1.0, 1.0], WIN)["method"] == "Wilson"  # a share still is
