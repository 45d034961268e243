"""The replay cache: every answer a provider gave, keyed by `CompletionRequest.cache_key()`.

Backed by `diskcache` (SQLite, safe across processes) with eviction turned off, so nothing paid
for is ever dropped silently. Values are JSON text, not pickles: readable by any tool, and a
Python upgrade cannot make them unloadable. Each value is stored with its checksum
(`{"checksum": ..., "value": ...}`), so a damaged entry is noticed, never replayed.

What the checksum guarantees (docs/costs.md, "What the replay cache's checks guarantee"): it is
sha256 of the key and the answer, with no secret in it, so it finds accidents (a bit flipped on
disk, a torn or truncated write, an answer copied under another key, an entry rewritten without
its checksum) and not deliberate edits: whoever can edit an entry can compute its checksum again.
A cache is as trustworthy as whoever wrote it, like a run folder. An entry that carries no
checksum is refused like a damaged one; `pdbench cache migrate` gives one to the entries of a
cache written before entries carried them, on the user's word.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import diskcache
import orjson

from pdbench.core.errors import WriteFailed
from pdbench.core.redact import redact

CACHE_DIR_ENV = "PDBENCH_CACHE_DIR"
DATABASE = "cache.db"  # diskcache's SQLite file inside the cache folder


def resolve_cache_dir(configured: str, project_root: Path) -> Path:
    """The cache folder: $PDBENCH_CACHE_DIR when set (relative to the working directory),
    otherwise `configured` (RunSpec.cache.dir), relative to the project root."""
    return cache_dir_setting(configured, project_root)[2]


def cache_dir_setting(configured: str, project_root: Path) -> tuple[str, str, Path]:
    """(the setting that decides the cache folder, its value, the folder): an error about the
    folder names where to change it."""
    from_env = os.environ.get(CACHE_DIR_ENV)
    if from_env:
        return CACHE_DIR_ENV, from_env, Path(from_env).expanduser().resolve()
    path = Path(configured).expanduser()
    folder = path if path.is_absolute() else (project_root / path).resolve()
    return "run.cache.dir", configured, folder


Warn = Callable[[str], None]


def warn_on_stderr(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr)


# Why an entry without a checksum fails its check, and what to do (pdbench cache verify, a run).
NO_CHECKSUM = "it carries no checksum (written before entries had one, or rewritten without it)"


def migrate_hint(problem: str | None, folder: Path) -> str:
    """What to do about entries without a checksum, said with the first one found."""
    if problem != NO_CHECKSUM:
        return ""
    return (
        f"if an older pdbench wrote this cache and you trust it, `pdbench cache migrate "
        f"{folder}` gives such entries a checksum"
    )


def checksum(key: str, value: dict[str, Any]) -> str:
    """sha256 of the key and the canonical JSON of the value: an entry that was damaged or
    copied under another key fails it (an edit that computes it again does not: no secret)."""
    canonical = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    return hashlib.sha256(key.encode() + b"\n" + canonical).hexdigest()


class ReplayCache:
    """A persistent key -> JSON object store whose every entry carries its checksum.

    An entry that fails its check (unreadable, edited, damaged) is a miss: the answer is asked
    again and the entry replaced. The first one in a run is said in one warning line; all are
    counted in `rejected`. A database that cannot be opened at all is moved aside (never
    deleted) and a fresh one started, also in one line."""

    def __init__(self, directory: Path | str, *, warn: Warn | None = None) -> None:
        self.directory = Path(directory)
        self.warn = warn or warn_on_stderr
        self.rejected = 0  # entries that failed their check in this process
        self.moved_aside: Path | None = None  # where a corrupt database went
        try:
            self._cache = self._open()
        except sqlite3.DatabaseError as error:
            self.moved_aside = self._move_database_aside()
            self.warn(
                f"the replay cache {self.directory} could not be read ({error}); moved it to "
                f"{self.moved_aside} and started an empty one: answers it held are asked again"
            )
            self._cache = self._open()

    def _open(self) -> diskcache.Cache:
        _refuse_foreign_database(self.directory / DATABASE)
        return diskcache.Cache(str(self.directory), eviction_policy="none")

    def _move_database_aside(self) -> Path:
        stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
        folder = self.directory / f"quarantine-{stamp}"
        folder.mkdir(parents=True, exist_ok=True)
        for name in (DATABASE, f"{DATABASE}-wal", f"{DATABASE}-shm"):
            path = self.directory / name
            if path.exists():
                path.replace(folder / name)
        return folder

    def get(self, key: str) -> dict[str, Any] | None:
        value, problem = self.check(key)
        if problem is not None:
            self._reject(key, problem)
        return value

    def check(self, key: str) -> tuple[dict[str, Any] | None, str | None]:
        """(the entry's answer, None), (None, None) when absent, or (None, what is wrong): it
        must decode as JSON, carry a checksum, and its checksum must match its key and answer."""
        stored, problem = self._stored(key)
        if stored is None:
            return None, problem
        if "checksum" not in stored and "text" in stored:
            return None, NO_CHECKSUM
        if not isinstance(stored.get("value"), dict):
            return None, "not a cache entry"
        if stored.get("checksum") != checksum(key, stored["value"]):
            return None, "its checksum does not match"
        return stored["value"], None

    def without_checksum(self, key: str) -> dict[str, Any] | None:
        """The answer of an entry stored the way pdbench stored them before entries carried a
        checksum (the answer itself: a JSON object with its "text"), else None. For `pdbench
        cache migrate` only: such an entry is never replayed as it is."""
        stored, _ = self._stored(key)
        if stored is None or "checksum" in stored or "text" not in stored:
            return None
        return stored

    def _stored(self, key: str) -> tuple[dict[str, Any] | None, str | None]:
        """The entry as a JSON object, or (None, what is wrong; None when absent)."""
        try:
            raw = self._cache.get(key)
        except sqlite3.DatabaseError as error:
            return None, f"unreadable ({error})"
        if raw is None:
            return None, None
        try:
            stored = orjson.loads(raw)
        except (orjson.JSONDecodeError, TypeError) as error:
            return None, f"not valid JSON ({error})"
        if not isinstance(stored, dict):
            return None, "not a cache entry"
        return stored, None

    def stored_keys(self) -> list[str]:
        """Every key stored (for `pdbench cache`), in the database's order."""
        return [str(key) for key in self._cache.iterkeys()]

    def raw(self, key: str) -> object:
        """An entry as stored (text), for moving a damaged one aside."""
        try:
            return self._cache.get(key)
        except sqlite3.DatabaseError as error:
            return f"<unreadable: {error}>"

    def _reject(self, key: str, why: str) -> None:
        self.rejected += 1
        if self.rejected == 1:
            hint = migrate_hint(why, self.directory)
            self.warn(
                f"a replay cache entry in {self.directory} (key {key[:12]}) failed its check: "
                f"{why}; it is asked again; further such entries are counted in "
                "run_manifest.json (cache_rejected), not said" + (f" ({hint})" if hint else "")
            )

    def set(self, key: str, value: dict[str, Any]) -> None:
        """Store `value` under `key`, its secrets redacted (a server may echo a key in its
        answer; see core/redact.py): the key, made from the request, is unchanged."""
        value = redact(value)
        entry = {"checksum": checksum(key, value), "value": value}
        try:
            # A str (not bytes, not a dict) so diskcache stores it as text rather than a pickle.
            self._cache.set(key, orjson.dumps(entry).decode())
        except (OSError, sqlite3.OperationalError) as error:
            raise WriteFailed(self.directory / DATABASE, error) from error

    def delete(self, key: str) -> None:
        try:
            self._cache.delete(key)
        except (OSError, sqlite3.OperationalError) as error:
            raise WriteFailed(self.directory / DATABASE, error) from error

    def __contains__(self, key: str) -> bool:
        return self.get(key) is not None

    def __len__(self) -> int:
        return len(self._cache)

    def close(self) -> None:
        self._cache.close()

    def __enter__(self) -> ReplayCache:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


CACHE_TABLES = {"Cache", "Settings"}  # what diskcache creates in a database of its own


def _refuse_foreign_database(path: Path) -> None:
    """Another application's SQLite file named cache.db is not adopted (diskcache would add its
    tables beside the others' and carry on): raise sqlite3.DatabaseError naming its tables, so
    it is moved aside like a damaged one, said in one line."""
    if not path.is_file() or path.stat().st_size == 0:
        return
    connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        rows = connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        tables = {str(row[0]) for row in rows}
    finally:
        connection.close()
    if tables and not tables >= CACHE_TABLES:
        shown = ", ".join(sorted(tables)[:5])
        raise sqlite3.DatabaseError(f"not a pdbench cache: it holds the tables {shown}")
