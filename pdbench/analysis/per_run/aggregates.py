"""A run's aggregates as the viewer and notebooks see them: aggregates.parquet when it is there
and covers every finished match, otherwise computed in memory (and `Aggregates.note` says why).

Nothing here writes: a sweep whose shards are not merged is aggregated shard by shard.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import pandas as pd

from pdbench.analysis.metrics.aggregate import aggregate_run
from pdbench.storage.reader import RunReader
from pdbench.storage.schema import AGGREGATES_FILE, ROUNDS_FILE
from pdbench.storage.shards import shard_dirs


@dataclass(frozen=True)
class Aggregates:
    """The aggregates table and where it came from."""

    table: pd.DataFrame
    source: str  # "file" (aggregates.parquet) or "memory" (computed now, not stored)
    note: str | None = None  # why the table was computed in memory

    # Cut once per object: the viewer asks them several times a script run, and a wide table's
    # row filter is a copy of every column. A caller derives its own frames from them (never
    # changes one in place), so every caller still sees the table's rows.
    @cached_property
    def replicates(self) -> pd.DataFrame:
        return self.table[self.table["level"] == "replicate"].reset_index(drop=True)

    @cached_property
    def conditions(self) -> pd.DataFrame:
        return self.table[self.table["level"] == "condition"].reset_index(drop=True)


def read_aggregates(reader: RunReader) -> Aggregates:
    """aggregates.parquet when it is there and current; otherwise computed in memory."""
    path = reader.run_dir / AGGREGATES_FILE
    if not reader.merged:
        note = (
            "this sweep's shards are not merged yet (still running, or stopped before the "
            "end): metrics are computed in memory from the shards"
        )
        return Aggregates(_aggregate_shards(reader), "memory", note)
    if not path.is_file():
        note = f"no {AGGREGATES_FILE} in this run dir: metrics are computed in memory from {ROUNDS_FILE}"
        return Aggregates(_aggregate_in_memory(reader), "memory", note)
    table = pd.read_parquet(path)
    stored = set(
        zip(
            table.loc[table["level"] == "replicate", "condition"],
            table.loc[table["level"] == "replicate", "replicate"].astype(int),
            strict=True,
        )
    )
    finished = {entry.key for entry in reader.ledger()}
    if finished - stored:
        note = (
            f"{AGGREGATES_FILE} covers {len(stored)} matches but the ledger lists "
            f"{len(finished)}: metrics are computed in memory from {ROUNDS_FILE}"
        )
        return Aggregates(_aggregate_in_memory(reader), "memory", note)
    return Aggregates(table, "file")


def _aggregate_in_memory(reader: RunReader) -> pd.DataFrame:
    # aggregate_run merges a sweep's shards first, which writes: read the shards instead.
    if reader.has_shards and shard_dirs(reader.run_dir):
        return _aggregate_shards(reader)
    return aggregate_run(reader.run_dir)


def _aggregate_shards(reader: RunReader) -> pd.DataFrame:
    """One condition per shard: aggregate each (a pure read) and stack them."""
    shards = shard_dirs(reader.run_dir)
    tables = [aggregate_run(shard) for shard in shards]
    table = pd.concat(tables, ignore_index=True) if tables else pd.DataFrame()
    if table.empty:
        return table
    table["run_id"] = reader.run_dir.name
    # Replicate rows first, then condition rows, each in shard order (as aggregate_run does).
    table = table.sort_values(
        "level", key=lambda level: (level == "condition").astype(int), kind="stable"
    )
    return table.reset_index(drop=True)
