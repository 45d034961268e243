"""Deal keys on disk: the workspace's, a sweep's, and each run folder's own copy.

A run's matches are dealt with a secret key (pdbench.core.rng.DealKey; docs/security.md says why
and what it guarantees). Where the keys live:

- `<runs folder>/deal.key`, the workspace's key: made once, by the first run (or sweep) of the
  folder, and copied from then on (`validate` and `run --dry-run` only read it). Runs of one
  workspace share it, so the same config and seed deal the same matches under another run id.
- `<run folder>/deal.key`, the run's own copy, made with the run folder: a run is always dealt
  with its own copy, so a resume, a re-run of that folder or a copy of it on another machine deals
  the same; `run_manifest.json` names the file and the key's fingerprint (`deal`), never the key.
- `<sweep folder>/deal.key`: a sweep's jobs (other processes, other machines sharing the folder)
  all copy the sweep's key into their shards.

A key file holds 64 hexadecimal digits and a newline, mode 0600. A key file is made at most once,
race-free: it is written whole to a temporary beside it, then hard-linked to its name, which fails
when another process was first (then its key is read); a reader never sees half a key.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Callable
from pathlib import Path

from pdbench.core.errors import PdbenchError, WriteFailed
from pdbench.core.rng import KEYED_DERIVATION, UNKEYED, Deal, DealKey
from pdbench.storage.manifest import DealRecord, RunManifest

DEAL_KEY_FILE = "deal.key"
_HEX_DIGITS = 64


def read_key(path: Path, setting: str | None = None) -> DealKey:
    """The key `path` holds; PdbenchError naming the file (and the setting that named it) when it
    is missing or does not hold a key."""
    where = f"{setting}: {path}" if setting else str(path)
    try:
        text = path.read_bytes().decode("ascii", "replace").strip()
    except FileNotFoundError:
        raise PdbenchError(f"{where}: no such file") from None
    except IsADirectoryError:
        raise PdbenchError(f"{where}: is a folder, not a deal key file") from None
    except OSError as error:
        raise PdbenchError(f"{where}: cannot be read ({error.strerror})") from None
    try:
        secret = bytes.fromhex(text)
    except ValueError:
        secret = b""
    if len(text) != _HEX_DIGITS or len(secret) * 2 != _HEX_DIGITS:
        raise PdbenchError(
            f"{where}: not a deal key (a deal key file holds {_HEX_DIGITS} hexadecimal digits)"
        )
    return DealKey(secret)


def ensure_key(path: Path, make: Callable[[], DealKey]) -> tuple[DealKey, bool]:
    """The key at `path`, made from `make()` if there is none yet; (key, whether this call made
    the file). Two processes racing to make it both get the one that won."""
    if path.exists():
        return read_key(path), False
    key = make()
    temporary = path.with_name(f".{path.name}.{os.getpid()}-{secrets.token_hex(4)}.tmp")
    try:
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(key.secret.hex().encode() + b"\n")
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.link(temporary, path)  # atomic, and refused when the name exists
        except FileExistsError:
            return read_key(path), False
    except OSError as error:
        raise WriteFailed(path, error) from error
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
    return key, True


def deal_record(deal: Deal) -> DealRecord | None:
    """What the manifest says of a deal (None: the unkeyed derivation of older runs)."""
    if not isinstance(deal, DealKey):
        return None
    return DealRecord(derivation=KEYED_DERIVATION, file=DEAL_KEY_FILE, fingerprint=deal.fingerprint)


def settle_run_deal(
    run_dir: Path,
    manifest: RunManifest | None,
    *,
    new_run: Callable[[], Deal],
    pinned: tuple[str, DealKey] | None = None,
) -> Deal:
    """The deal of the run in `run_dir` (opened and locked by this process): its own key when it
    has one, the unkeyed derivation when its manifest is of a run dealt before keys; for a new
    run, `new_run()` (the pinned key, the sweep's or the workspace's), copied into the folder.
    `pinned` (setting, key): a key the user asked for, which an existing run must have been
    dealt with. Every mismatch is a PdbenchError saying what to do."""
    own = run_dir / DEAL_KEY_FILE
    if manifest is not None and manifest.deal is None:
        if pinned is not None:
            raise PdbenchError(
                f"{pinned[0]}: {run_dir} was dealt without a key (by a pdbench older than deal "
                "keys) and resumes so: drop the setting to continue it, or pass another --run-id"
            )
        return UNKEYED
    if own.exists():
        key = read_key(own)
        expected = manifest.deal.fingerprint if manifest and manifest.deal else None
        if expected is not None and key.fingerprint != expected:
            raise PdbenchError(
                f"{own} holds deal key {key.fingerprint}, but the run was dealt with "
                f"{expected} (run_manifest.json: deal): put that key back, or pass another --run-id"
            )
        _check_pinned(pinned, key, run_dir)
        return key
    if manifest is not None and manifest.deal is not None:
        raise PdbenchError(
            f"{own} is missing: the run was dealt with key {manifest.deal.fingerprint} "
            "(run_manifest.json: deal); copy that key back into the run folder (docs/"
            "security.md), or pass another --run-id"
        )
    fresh = new_run()
    if not isinstance(fresh, DealKey):  # a new job of a sweep begun before deal keys
        return fresh
    key, _ = ensure_key(own, lambda: fresh)
    _check_pinned(pinned, key, run_dir)
    return key


def _check_pinned(pinned: tuple[str, DealKey] | None, key: DealKey, run_dir: Path) -> None:
    if pinned is not None and pinned[1] != key:
        raise PdbenchError(
            f"{pinned[0]}: holds deal key {pinned[1].fingerprint}, but {run_dir} is dealt with "
            f"{key.fingerprint} (its {DEAL_KEY_FILE}): drop the setting to continue the run, or "
            "pass another --run-id"
        )


def sweep_deal(sweep_dir: Path, make: Callable[[], DealKey], begun_before_keys: bool) -> Deal:
    """The deal a sweep's jobs copy into their shards: the sweep folder's key, made from `make()`
    (the pinned or the workspace's key) by the first process to need it. A sweep begun before
    deal keys (`begun_before_keys`: its folder has a sweep plan but no key) stays unkeyed, so
    its new jobs deal as its first ones did."""
    path = sweep_dir / DEAL_KEY_FILE
    if not path.exists() and begun_before_keys:
        return UNKEYED
    sweep_dir.mkdir(parents=True, exist_ok=True)
    return ensure_key(path, make)[0]
