"""A run can end before any match is stored (every server down, the budget spent before the
first match ends): its aggregation is still defined, for every game of either family, and is an
empty table with the columns a reader selects on (issue 40: a turn-game run crashed here with
`KeyError: 'condition'`, exit 1 instead of 3 or 4)."""

from __future__ import annotations

import pandas as pd
import pyarrow.parquet as pq
import pytest

from pdbench.analysis.metrics.aggregate import write_aggregates
from pdbench.games.registry import GAME_FAMILIES
from pdbench.storage.manifest import Matchup, RunManifest
from pdbench.storage.run_store import write_manifest
from pdbench.storage.schema import AGGREGATES_FILE, LEDGER_FILE, ROUNDS_FILE

READERS_SELECT_ON = ("run_id", "level", "condition", "replicate", "game", "match_status")


def _run_without_a_stored_match(tmp_path, game: str):
    run_dir = tmp_path / game
    run_dir.mkdir()
    manifest = RunManifest(
        run_id=f"empty-{game}",
        status="incomplete",
        conditions=["only"],
        matchups={"only": Matchup(agent_a="llm", agent_b="house", game=game, horizon_type="-")},
    )
    write_manifest(run_dir, manifest)
    (run_dir / ROUNDS_FILE).write_bytes(b"")
    (run_dir / LEDGER_FILE).write_bytes(b"")
    return run_dir


@pytest.mark.parametrize("game", sorted(GAME_FAMILIES))
def test_a_run_with_no_stored_match_aggregates_to_an_empty_table(tmp_path, game):
    run_dir = _run_without_a_stored_match(tmp_path, game)
    table = write_aggregates(run_dir)
    assert len(table) == 0
    assert set(READERS_SELECT_ON) <= set(table.columns), sorted(table.columns)
    stored = pq.read_table(run_dir / AGGREGATES_FILE).to_pandas()
    assert len(stored) == 0 and set(READERS_SELECT_ON) <= set(stored.columns)
    # What a reader does with it works: no finished match, no condition row.
    assert stored[stored["level"] == "condition"].empty
    assert isinstance(stored.groupby("condition").size(), pd.Series)
