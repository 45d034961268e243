"""Which key a run is dealt with (pdbench.storage.deal_key keeps the files; docs/security.md).

A new run copies the key the user pinned (`run.deal_key_file`), else the workspace's key
(`<output_dir>/deal.key`, made once); a sweep's jobs copy the sweep's key, itself a copy of one of
those. An existing run is dealt with its own copy. `validate` and `run --dry-run` show the numbers
of the deal the run would get, reading the same keys and writing nothing.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pdbench.core.rng import Deal, DealKey
from pdbench.runners.prepare import LoadedExperiment
from pdbench.storage.deal_key import (
    DEAL_KEY_FILE,
    ensure_key,
    read_key,
    settle_run_deal,
    sweep_deal,
)
from pdbench.storage.run_store import read_manifest
from pdbench.storage.schema import MANIFEST_FILE
from pdbench.storage.shards import begun_before_deal_keys

PINNED_SETTING = "run.deal_key_file"
# A new workspace key is a copy of this file instead of fresh random bytes: one key for every
# runs folder of a lab, a CI machine or a test session, without pinning it in each config. It
# holds a path, never the key, and a sandboxed agent's environment does not carry it.
# (Its name has no secret word in it on purpose: the path is no secret, and redaction would hide
# it wherever it appears.)
WORKSPACE_KEY_ENV = "PDBENCH_WORKSPACE_DEAL"


@dataclass(frozen=True)
class DealSource:
    """Where a new run folder's key comes from: `make` gives it (a DealKey to copy, or the
    unkeyed deal of a sweep begun before keys); `files` are the key files it reads or makes,
    which no arena sandbox may show."""

    make: Callable[[], Deal]
    files: tuple[Path, ...]


def _resolve(loaded: LoadedExperiment, configured: str) -> Path:
    path = Path(configured).expanduser()
    return path if path.is_absolute() else loaded.project_root / path


def pinned_key(loaded: LoadedExperiment) -> tuple[str, DealKey] | None:
    """(setting, key) of `run.deal_key_file`, or None when it is not set; PdbenchError naming
    the setting and the file when it does not hold a key."""
    configured = loaded.spec.run.deal_key_file
    if configured is None:
        return None
    return PINNED_SETTING, read_key(_resolve(loaded, configured), PINNED_SETTING)


def workspace_key_file(loaded: LoadedExperiment) -> Path:
    """`<output_dir>/deal.key`: the key the runs of this runs folder share."""
    return loaded.run_dir.parent / DEAL_KEY_FILE


def _key_files(loaded: LoadedExperiment) -> tuple[Path, ...]:
    configured = loaded.spec.run.deal_key_file
    pinned = (_resolve(loaded, configured),) if configured is not None else ()
    given = os.environ.get(WORKSPACE_KEY_ENV)
    seeded = (Path(given).expanduser(),) if given else ()
    return (*pinned, *seeded, workspace_key_file(loaded))


def new_run_key(loaded: LoadedExperiment) -> DealKey:
    """The key a new run is dealt with: the pinned one, else the workspace's (made now if this
    is the first run of the folder)."""
    pinned = pinned_key(loaded)
    if pinned is not None:
        return pinned[1]
    workspace = workspace_key_file(loaded)
    workspace.parent.mkdir(parents=True, exist_ok=True)
    return ensure_key(workspace, _new_workspace_key)[0]


def _new_workspace_key() -> DealKey:
    """A new workspace's key: a copy of $PDBENCH_WORKSPACE_DEAL when set, else fresh."""
    given = os.environ.get(WORKSPACE_KEY_ENV)
    return read_key(Path(given).expanduser(), WORKSPACE_KEY_ENV) if given else DealKey.new()


def run_source(loaded: LoadedExperiment) -> DealSource:
    """A single run's source: the pinned or the workspace's key."""
    return DealSource(make=lambda: new_run_key(loaded), files=_key_files(loaded))


def sweep_source(loaded: LoadedExperiment, sweep_dir: Path) -> DealSource:
    """A sweep job's source: the sweep folder's key (made from the pinned or the workspace's key
    by whichever job needs it first); unkeyed in a sweep begun before deal keys."""

    def make() -> Deal:
        older = begun_before_deal_keys(sweep_dir)
        return sweep_deal(sweep_dir, lambda: new_run_key(loaded), older)

    return DealSource(make=make, files=(*_key_files(loaded), sweep_dir / DEAL_KEY_FILE))


def planned_deal(loaded: LoadedExperiment) -> tuple[Deal, bool]:
    """The deal a run of `loaded` would get, for `validate` and `--dry-run`, which write nothing:
    an existing run folder's (as `pdbench run` would settle it, mismatches refused alike), else
    the pinned key, else the workspace's; (deal, provisional). Provisional (True) when there is
    no key yet: a fresh key no run will use, so what it deals is one draw of what the first run
    (which makes the workspace's key) will deal."""
    run_dir = loaded.run_dir
    has_manifest = (run_dir / MANIFEST_FILE).is_file()
    if has_manifest or (run_dir / DEAL_KEY_FILE).is_file():

        def unreachable() -> Deal:  # an existing run folder is never dealt anew
            raise AssertionError(f"{run_dir} has a deal")

        manifest = read_manifest(run_dir) if has_manifest else None
        deal = settle_run_deal(run_dir, manifest, new_run=unreachable, pinned=pinned_key(loaded))
        return deal, False
    pinned = pinned_key(loaded)
    if pinned is not None:
        return pinned[1], False
    if workspace_key_file(loaded).is_file():
        return read_key(workspace_key_file(loaded)), False
    if os.environ.get(WORKSPACE_KEY_ENV):  # the key the first run will copy
        return _new_workspace_key(), False
    return DealKey.new(), True
