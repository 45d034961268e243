"""A set-up made once per test session, whichever module or xdist worker asks first.

`made_once(tmp_path_factory, name, make)` calls `make(folder)` on a fresh folder the first time
and returns that folder to every later caller, in every worker: the others wait on a file lock
beside the workers' temp folders and read what the first made (a marker file holds the folder
once made). Only for set-ups that their users never write into (shared viewer runs, the persona
grid)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from filelock import FileLock


def made_once(
    tmp_path_factory: pytest.TempPathFactory, name: str, make: Callable[[Path], object]
) -> Path:
    base = tmp_path_factory.getbasetemp()
    # Under xdist every worker's base sits in the session's folder; under -n 0 the base is the
    # session's own folder (its parent holds earlier sessions, whose set-ups must not be reused).
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    done = root / f"{name}.done"  # holds the folder, once made
    with FileLock(str(root / f"{name}.lock")):
        if not done.is_file():
            # A folder of its own per attempt: a worker that failed half-way leaves its folder.
            folder = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=root))
            make(folder)
            done.write_text(str(folder))
    return Path(done.read_text())
