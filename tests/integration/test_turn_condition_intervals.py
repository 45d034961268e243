"""Issue 43 (one aggregation): a turn game's condition row carries the same statistics as a 2x2
game's, `<metric>_std`, `_n`, `_ci_low` and `_ci_high` per seat, from the same interval machinery
(`analysis.metrics.condition_intervals`): each interval keeps to its metric row's real range (a
rate inside [0, 1], a count at or above 0) and holds the condition's mean; and its columns are
typed as a 2x2 table's are (counts Int64, numbers float64, text strings)."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest
from silently_wrong_helpers import run_experiment_file

from pdbench.games.metric_rows import game_metric_rows

ROOT = Path(__file__).resolve().parents[2]
LOWER = {"rate": 0.0, "count": 0.0, "round": 1.0}
UPPER = {"rate": 1.0}


@pytest.fixture(scope="module")
def dice(tmp_path_factory) -> pd.DataFrame:
    tmp = tmp_path_factory.mktemp("dice")
    run = run_experiment_file(
        ROOT / "conf" / "config.yaml",
        [
            "game=liars_dice",
            "agent_a=liars_bluffer",
            "agent_b=liars_probability",
            "run.replicates=4",
        ],
        output_dir=tmp / "runs",
    )
    return pd.read_parquet(run.run_dir / "aggregates.parquet")


def test_a_turn_games_condition_row_has_intervals_in_the_metrics_range_around_the_mean(dice):
    condition = dice[dice["level"] == "condition"].iloc[0]
    checked = 0
    for row in (m for m in game_metric_rows("liars_dice") if m.shape != "condition"):
        for seat in ("a", "b"):
            column = f"{row.stem}_{seat}"
            for suffix in ("std", "n", "ci_low", "ci_high"):
                assert f"{column}_{suffix}" in dice.columns, f"{column}_{suffix}"
            mean, low, high = (condition[f"{column}{s}"] for s in ("", "_ci_low", "_ci_high"))
            if condition[f"{column}_n"] < 2:
                assert pd.isna(low) and pd.isna(high), column  # no interval under two values
                continue
            assert LOWER.get(row.kind, -math.inf) <= low <= mean <= high, column
            assert high <= UPPER.get(row.kind, math.inf), column
            checked += 1
    assert checked >= 6  # every seat's win, bluff and dice-lost rows at least


def test_a_turn_games_columns_are_typed(dice):
    types = dice.dtypes.astype(str)
    for column in ("replicate", "n_replicates", "n_finished", "n_aborted", "n_turns"):
        assert types[column] == "Int64", column
    for column in ("win_rate_a", "win_rate_a_std", "challenge_accuracy_a", "bluff_rate_b_pooled"):
        assert types[column] == "float64", column
    assert types["win_rate_a_n"] == "Int64"
