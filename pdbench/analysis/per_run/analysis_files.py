"""Where a run's analyses are stored: analysis.parquet for the default options, analysis-<name>.parquet
for another question (`pdbench analyze --name`, or the name its options give), so several
analyses of one run sit side by side and the viewer lists them."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from pdbench.storage.tables import write_table_atomic

ANALYSIS_FILE = "analysis.parquet"
DEFAULT_NAME = (
    "default"  # analysis.parquet: the default options (and every run analysed before names)
)
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,79}")


def analysis_path(run_dir: Path, name: str | None) -> Path:
    """analysis.parquet for the default name (or none), analysis-<name>.parquet otherwise."""
    if name is None or name == DEFAULT_NAME:
        return run_dir / ANALYSIS_FILE
    return run_dir / f"analysis-{name}.parquet"


def analysis_files(run_dir: Path) -> dict[str, Path]:
    """Every analysis of the run by name, `default` (analysis.parquet) first."""
    found = {}
    if (run_dir / ANALYSIS_FILE).is_file():
        found[DEFAULT_NAME] = run_dir / ANALYSIS_FILE
    for path in sorted(run_dir.glob("analysis-*.parquet")):
        name = path.name.removeprefix("analysis-").removesuffix(".parquet")
        if NAME_PATTERN.fullmatch(name) and path.is_file():
            found[name] = path
    return found


def write_analysis(run_dir: Path, table: pd.DataFrame, name: str | None = None) -> Path:
    """Write the analysis called `name` atomically (a reader never sees half a file)."""
    return write_table_atomic(table, analysis_path(run_dir, name))
