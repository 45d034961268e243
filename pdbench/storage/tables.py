"""Writing a parquet table of a run (aggregates, analysis, tournament) so that a reader sees the
old or the new file, never half of one."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from pdbench.core.errors import WriteFailed


def write_table_atomic(table: pd.DataFrame, path: Path) -> Path:
    """Write `table` to `path` through a temporary file beside it; a failed write (a full disk)
    raises `WriteFailed` naming the file and leaves the old version and no temporary behind."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        table.to_parquet(tmp, index=False)
        tmp.replace(path)
    except OSError as error:
        tmp.unlink(missing_ok=True)
        raise WriteFailed(path, error) from error
    return path
