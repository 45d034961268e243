"""The metric catalogue names every metric column of aggregates.parquet once, in its order."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pdbench.analysis.metrics import catalog
from pdbench.analysis.metrics.round_aggregates import StoredMatches, aggregate_matches
from pdbench.core.errors import PdbenchError
from pdbench.storage.manifest import RunManifest

ROOT = Path(__file__).resolve().parents[2]
STATS = ("_std", "_n", "_ci_low", "_ci_high")
NOT_METRICS = {"run_id", "level", "condition", "replicate", "agent_a", "agent_b", "game"}
NOT_METRICS |= {"horizon_type", "n_replicates", "n_finished", "n_aborted", "match_status"}
NOT_METRICS |= {"aborted_at_round", "collapse_determinable", "collapsed"}


def test_the_scalar_columns_are_the_aggregated_ones_in_their_order():
    table = aggregate_matches(StoredMatches.concatenate([]), RunManifest(run_id="r"))
    with_statistics = [name.removesuffix("_std") for name in table.columns if name.endswith("_std")]
    assert catalog.scalar_columns() == tuple(with_statistics)


def test_every_metric_column_of_the_aggregates_table_is_catalogued():
    table = aggregate_matches(StoredMatches.concatenate([]), RunManifest(run_id="r"))
    metric_columns = [
        name
        for name in table.columns
        if name not in NOT_METRICS and not any(name.endswith(s) for s in STATS)
    ]
    assert metric_columns == [c.column for c in catalog.metric_columns()]


def test_a_per_agent_metric_has_an_a_and_a_b_column_that_name_their_agent():
    retaliation = catalog.metric("retaliation_rate_b")
    assert retaliation.side == "b" and retaliation.metric.per_agent
    assert [c.column for c in retaliation.metric.columns] == [
        "retaliation_rate_a",
        "retaliation_rate_b",
    ]
    assert retaliation.label == "Retaliation rate · B"
    assert retaliation.short == "retaliation B"
    assert retaliation.help.startswith("Of the rounds t ≥ 2 after A played D")
    assert "B played D" in retaliation.help
    assert retaliation.metric.help_for().startswith("Of the rounds t ≥ 2 after o played D")
    assert [c.column for c in catalog.per_agent_columns("a")][:2] == [
        "total_payoff_a",
        "cooperation_rate_a",
    ]


def test_the_joint_cooperation_rate_is_its_own_column():
    joint = catalog.metric("cooperation_rate")
    assert joint.side is None and not joint.metric.per_agent
    assert joint.label == "Cooperation rate · both"
    assert joint.kind == "rate" and joint.decimals == 2


def test_labels_are_unique_and_help_is_one_filled_line():
    labels = [c.label for c in catalog.metric_columns()]
    assert len(labels) == len(set(labels))
    for column in catalog.metric_columns():
        assert column.help and "\n" not in column.help
        assert "{" not in column.help and "}" not in column.help, column.column
        assert column.kind in catalog.DECIMALS


def test_a_null_collapse_reads_as_no_collapse():
    assert catalog.metric("time_to_collapse").null_text == "no collapse"
    assert catalog.metric("forgiveness_rate_a").null_text == "n/a"


def test_an_unknown_column_suggests_the_closest():
    with pytest.raises(PdbenchError, match='did you mean "retaliation_rate_a"'):
        catalog.metric("retaliation_rate_aa")


def test_the_catalogue_imports_no_pandas_numpy_or_streamlit():
    code = (
        "import sys, pdbench.analysis.metrics.catalog; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & "
        "{'pandas', 'numpy', 'pyarrow', 'streamlit', 'altair'}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
