"""A metric is one place (issue 28): its catalogue row holds its computation, so a metric
registered here, in a test module, is a catalogue entry, a column of aggregates.parquet (with
condition statistics) and a viewer metric without an edit anywhere else."""

from __future__ import annotations

import numpy as np
import pytest

from pdbench.analysis.metrics import catalog
from pdbench.analysis.metrics.columns import StoredMatches
from pdbench.analysis.metrics.played import PlayedMatches
from pdbench.analysis.metrics.round_aggregates import aggregate_matches
from pdbench.core.errors import PdbenchError
from pdbench.storage.manifest import RunManifest
from pdbench.ui.display import all_metrics

MUTUAL_DEFECTION = catalog.Metric(
    "mutual_defection_rate",
    "Mutual defection rate",
    "mutual D",
    "Share of the n rounds in which both agents played D.",
    kind="rate",
    per_agent=False,
    compute=lambda played, side: (
        played.per_match(~played.cooperated("a") & ~played.cooperated("b")) / played.lengths
    ),
)


@pytest.fixture
def mutual_defection():
    catalog.register_metric(MUTUAL_DEFECTION)
    yield MUTUAL_DEFECTION
    catalog.unregister_metric(MUTUAL_DEFECTION)


def _matches(*plays: tuple[str, str]) -> StoredMatches:
    """Matches of one condition from their moves, e.g. ("CCD", "CDD")."""
    parts = []
    for replicate, (a, b) in enumerate(plays):
        n = len(a)
        parts.append(
            StoredMatches(
                keys=[("c", replicate)],
                labels=[("x", "y", "pd", "fixed")],
                starts=np.array([0]),
                coop_a=np.array([m == "C" for m in a]),
                coop_b=np.array([m == "C" for m in b]),
                payoff_a=np.zeros(n),
                payoff_b=np.zeros(n),
                flags={},
            )
        )
    return StoredMatches.concatenate(parts)


def test_a_registered_metric_is_in_the_catalogue_the_aggregates_and_the_viewer(mutual_defection):
    entry = catalog.metric("mutual_defection_rate")
    assert entry.metric is mutual_defection and entry.label == "Mutual defection rate"
    assert "mutual_defection_rate" in catalog.scalar_columns()
    assert entry in all_metrics()

    table = aggregate_matches(_matches(("CDDD", "CCDD"), ("DDDD", "DDDD")), RunManifest(run_id="r"))
    replicates = table[table["level"] == "replicate"]
    assert replicates["mutual_defection_rate"].tolist() == [0.5, 1.0]
    condition = table[table["level"] == "condition"].iloc[0]
    assert condition["mutual_defection_rate"] == 0.75
    assert condition["mutual_defection_rate_n"] == 2
    assert 0.0 <= condition["mutual_defection_rate_ci_low"] <= 0.75


def test_without_registration_there_is_no_such_column():
    table = aggregate_matches(_matches(("CD", "DD")), RunManifest(run_id="r"))
    assert "mutual_defection_rate" not in table.columns
    with pytest.raises(PdbenchError, match="unknown metric column"):
        catalog.metric("mutual_defection_rate")


def test_a_metric_is_registered_once_and_with_its_computation(mutual_defection):
    with pytest.raises(PdbenchError, match="already a metric's"):
        catalog.register_metric(mutual_defection)
    with pytest.raises(PdbenchError, match="no compute function"):
        catalog.register_metric(catalog.Metric("x", "X", "x", "x.", kind="rate", per_agent=False))


def test_every_built_in_row_holds_its_computation():
    played = PlayedMatches(_matches(("CDC", "DDC")), collapse_k=2, collapse_threshold=0.2)
    for row in catalog.BUILT_IN:
        assert row.compute is not None, row.stem
        for column in row.columns:
            assert len(row.compute(played, column.side)) == 1, column.column
