"""Folders a run writes into (its output folder, the replay cache) are checked before anything
is written or any provider is called: one line naming the setting and the path, exit 2, instead
of a traceback from deep inside a writer."""

from __future__ import annotations

import tempfile
from pathlib import Path

from pdbench.core.errors import PdbenchError


def check_writable_folder(setting: str, configured: str, path: Path) -> None:
    """Create `path` if needed and prove a file can be written in it.

    `setting` names where the folder came from (run.output_dir, run.cache.dir,
    PDBENCH_CACHE_DIR) and `configured` is the value as given there."""
    if not configured.strip():
        raise PdbenchError(f"{setting} is empty: name a folder (a path, relative or absolute)")
    blocker = _file_on_the_way(path)
    if blocker is not None:
        where = "" if blocker == path else f" ({blocker} on its path is a file)"
        raise PdbenchError(f"{setting}: {path} is not a folder{where}")
    try:
        path.mkdir(parents=True, exist_ok=True)
        # Permissions alone do not say it (root ignores them; a folder may be immutable, or on
        # a read-only or virtual file system): write a file and remove it again.
        with tempfile.NamedTemporaryFile(dir=path, prefix=".pdbench-write-check-"):
            pass
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise PdbenchError(f"{setting}: cannot write into {path} ({reason})") from None


def _file_on_the_way(path: Path) -> Path | None:
    """The path itself or its nearest existing ancestor when that is not a folder."""
    for candidate in (path, *path.parents):
        if candidate.exists():
            return None if candidate.is_dir() else candidate
    return None
