"""The viewer's reads of a run dir: which run dir, and the only cached Streamlit reads of it.

Every loader takes the run's fingerprint (every artifact's mtime and size) as an argument, so it is
part of the `st.cache_data` key: an edited or growing run is re-read, an unchanged one is not.
Nothing here writes; missing aggregates are computed in memory (`read_aggregates`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import streamlit as st

from pdbench.analysis.per_run.aggregates import Aggregates, read_aggregates
from pdbench.analysis.per_run.analysis_files import analysis_files
from pdbench.analysis.per_run.tournament_table import TOURNAMENT_FILE
from pdbench.storage.ledger import LedgerEntry
from pdbench.storage.manifest import RunManifest
from pdbench.storage.reader import Fingerprint, RunReader

RUN_DIR_ENV = "PDBENCH_RUN_DIR"


def run_dir_from(argv: Sequence[str], environ: Mapping[str, str]) -> str | None:
    """`--run-dir DIR` (or `--run-dir=DIR`) among the script's arguments, else $PDBENCH_RUN_DIR."""
    for index, arg in enumerate(argv):
        if arg == "--run-dir" and index + 1 < len(argv):
            return argv[index + 1]
        if arg.startswith("--run-dir="):
            return arg.split("=", 1)[1]
    return environ.get(RUN_DIR_ENV) or None


def default_run_dir() -> str | None:
    return run_dir_from(sys.argv[1:], os.environ)


def ladder_file(folder: str) -> Path | None:
    """The ladder.parquet in a folder (`pdbench ladder --out`), when it holds one and no run."""
    from pdbench.ladder.output import LADDER_FILE

    path = Path(folder).expanduser() / LADDER_FILE
    return path if path.is_file() and not (path.parent / "run_manifest.json").exists() else None


@st.cache_data(show_spinner=False, max_entries=8)
def load_ladder(path: str, mtime_ns: int) -> pd.DataFrame:
    from pdbench.ladder.output import read_ladder

    return read_ladder(Path(path))


@st.cache_data(show_spinner=False, max_entries=8)
def load_manifest(run_dir: str, fingerprint: Fingerprint) -> RunManifest:
    return RunReader.open(run_dir).manifest()


@st.cache_data(show_spinner="Reading aggregates ...", max_entries=8)
def load_aggregates(run_dir: str, fingerprint: Fingerprint) -> Aggregates:
    return read_aggregates(RunReader.open(run_dir))


@st.cache_data(show_spinner=False, max_entries=8)
def load_ledger(run_dir: str, fingerprint: Fingerprint) -> list[LedgerEntry]:
    return RunReader.open(run_dir).ledger()


@st.cache_data(show_spinner="Reading the match's rounds ...", max_entries=32)
def load_match(
    run_dir: str, fingerprint: Fingerprint, condition: str, replicate: int
) -> list[dict]:
    return RunReader.open(run_dir).match_rounds(condition, replicate)


FileStamp = tuple[int, int]  # (mtime_ns, size): part of the cache key, like the run's fingerprint


def file_stamp(path: Path) -> FileStamp | None:
    try:
        stat = path.stat()
    except FileNotFoundError:
        return None
    return (stat.st_mtime_ns, stat.st_size)


@st.cache_data(show_spinner="Reading analysis.parquet ...", max_entries=8)
def load_parquet(path: str, stamp: FileStamp) -> pd.DataFrame:
    """An artifact written by `pdbench analyze` or `pdbench tournament` (never computed here)."""
    return pd.read_parquet(path)


def load_optional(run_dir: Path, name: str) -> pd.DataFrame | None:
    """analysis.parquet or tournament.parquet of the run, or None when it was not written."""
    path = run_dir / name
    stamp = file_stamp(path)
    return None if stamp is None else load_parquet(str(path), stamp)


@dataclass(frozen=True)
class LoadedRun:
    """What the page shows of one run, read once per script run (from the cache when unchanged)."""

    reader: RunReader
    fingerprint: Fingerprint
    manifest: RunManifest
    aggregates: Aggregates
    ledger: list[LedgerEntry]

    @property
    def key(self) -> str:
        return str(self.reader.run_dir)

    def analyses(self) -> list[str]:
        """The names of the run's analyses (`pdbench analyze`), `default` (analysis.parquet)
        first; empty when it has none."""
        return list(analysis_files(self.reader.run_dir))

    def analysis(self, name: str | None = None) -> pd.DataFrame | None:
        """The analysis called `name` (default: the first there is), or None."""
        files = analysis_files(self.reader.run_dir)
        if not files:
            return None
        path = files.get(name or "", next(iter(files.values())))
        return load_optional(path.parent, path.name)

    def tournament(self) -> pd.DataFrame | None:
        """tournament.parquet (`pdbench tournament`), or None."""
        return load_optional(self.reader.run_dir, TOURNAMENT_FILE)

    def match(self, condition: str, replicate: int) -> list[dict]:
        """The stored rounds of one match, in round order."""
        return load_match(self.key, self.fingerprint, condition, replicate)


def load_run(run_dir: str) -> LoadedRun:
    """Open a run dir and read its manifest, aggregates and ledger. A non-run dir raises
    PdbenchError; a damaged file raises whatever its parser raised."""
    reader = RunReader.open(run_dir)
    fingerprint = reader.fingerprint()
    key = str(reader.run_dir)
    return LoadedRun(
        reader=reader,
        fingerprint=fingerprint,
        manifest=load_manifest(key, fingerprint),
        aggregates=load_aggregates(key, fingerprint),
        ledger=load_ledger(key, fingerprint),
    )
