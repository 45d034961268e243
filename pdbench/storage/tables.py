"""Writing a parquet table of a run (aggregates, analysis, tournament) so that a reader sees the
old or the new file, never half of one."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from pdbench.storage.safe_files import replacing


def write_table_atomic(table: pd.DataFrame, path: Path) -> Path:
    """Write `table` to `path` through a temporary file of its own beside it (see
    storage.safe_files.replacing); a failed write (a full disk) raises `WriteFailed` naming the
    file and leaves the old version and no temporary behind."""
    with replacing(path) as temporary:
        table.to_parquet(temporary, index=False)
    return path
