"""aggregates.parquet of any run: the one entry point (`aggregate_run`, `write_aggregates`).

A sweep's shards are merged, the ledger and manifest read, and the run's games' entries asked how
their matches are measured (`aggregation_choice.aggregation_of`: the rounds' aggregation,
`round_aggregates`, which the 2x2 games name, or the replay of a game's metric rows,
`turn_aggregates`, every other game's by default); the table is written atomically. A pure
function of the stored lines, the ledger and the manifest: running it twice gives the same table.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from pdbench.analysis.metrics.aggregation_choice import aggregation_of
from pdbench.analysis.metrics.columns import StoredMatches
from pdbench.core.errors import PdbenchError
from pdbench.storage.ledger import LedgerEntry
from pdbench.storage.run_store import read_ledger, read_manifest
from pdbench.storage.schema import AGGREGATES_FILE, LEDGER_FILE, SHARDS_DIR
from pdbench.storage.tables import write_table_atomic


def aggregate_run(run_dir: Path) -> pd.DataFrame:
    """The aggregates table of a run dir (a sweep's shards are merged first), by its games'
    aggregation."""
    if (run_dir / SHARDS_DIR).is_dir():
        from pdbench.storage.shards import merge_shards

        merge_shards(run_dir)
    # Without a ledger (only rounds and manifest left) every stored match counts as finished.
    ledger = read_ledger(run_dir) if (run_dir / LEDGER_FILE).exists() else None
    manifest = read_manifest(run_dir)
    return aggregation_of(manifest)(run_dir, manifest, ledger, None)


def write_aggregates(
    run_dir: Path,
    matches: StoredMatches | None = None,
    ledger: list[LedgerEntry] | None = None,
) -> pd.DataFrame:
    """Write aggregates.parquet; `matches` and `ledger` let a run pass what it just played
    instead of re-parsing rounds.jsonl (they must be exactly what is stored, in file order; an
    aggregation that measures stored matches replayed reads them again whatever is passed)."""
    if not run_dir.is_dir():
        raise PdbenchError(f"{run_dir} is not a directory")
    if matches is None:
        table = aggregate_run(run_dir)
    else:
        manifest = read_manifest(run_dir)
        table = aggregation_of(manifest)(run_dir, manifest, ledger, matches)
    write_table_atomic(table, run_dir / AGGREGATES_FILE)
    return table
