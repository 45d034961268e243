"""Replay-cache shards: the answers one job of a sweep bought, in a JSON-lines file of its own.

A sweep's jobs may run on several machines that share only a network filesystem, where the
SQLite database behind the replay cache (diskcache) is not safe to write from several machines.
So a job never writes answers into it: each answer it buys is appended to its own shard,
`<sweep>/cache/<job>.jsonl`, one line `{"key", "checksum", "value"}` per answer (the checksum is
the cache's: sha256 of the key and the canonical JSON of the value). A job reads the shards of
every job of the sweep (answers bought anywhere are replayed here, on any machine) and then the
cache folder, which it only reads. The launching process merges the shards into its cache when
the sweep ends; `pdbench cache merge` does the same anywhere, later.

A job also keeps what it bought in its own cache folder, as one more shard of its own,
`<cache folder>/shards/<sweep>/<job>.jsonl` (a file, never the database: the folder may be shared
too). So when every job has a cache folder of its own (a node-local one on each machine),
`pdbench cache merge A B --into C` makes one cache of them that replays the whole sweep.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from pdbench.core.errors import WriteFailed
from pdbench.core.redact import redact
from pdbench.providers.cache import ReplayCache, Warn, checksum, warn_on_stderr

SHARDS_FOLDER = "cache"  # inside a sweep's run dir
KEPT_FOLDER = "shards"  # inside a cache folder: <sweep>/<job>.jsonl, what each job bought


def shard_files(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.jsonl")) if folder.is_dir() else []


def kept_shard_files(cache_folder: Path) -> list[Path]:
    """The shards sweep jobs kept in a cache folder (what each bought while using it)."""
    folder = cache_folder / KEPT_FOLDER
    return sorted(folder.glob("*/*.jsonl")) if folder.is_dir() else []


def read_shard(path: Path) -> Iterator[tuple[int, str, dict[str, Any] | None, str | None]]:
    """(line number, key, value or None, what is wrong or None) for every complete line."""
    data = path.read_bytes()
    for number, raw in enumerate(data[: data.rfind(b"\n") + 1].splitlines(), 1):
        if not raw.strip():
            continue
        try:
            entry = orjson.loads(raw)
        except orjson.JSONDecodeError as error:
            yield number, "", None, f"not valid JSON ({error})"
            continue
        if not isinstance(entry, dict) or not isinstance(entry.get("value"), dict):
            yield (
                number,
                str(entry.get("key", "")) if isinstance(entry, dict) else "",
                None,
                ("not a cache entry"),
            )
            continue
        key = str(entry.get("key", ""))
        if entry.get("checksum") != checksum(key, entry["value"]):
            yield number, key, None, "its checksum does not match its key and answer"
            continue
        yield number, key, entry["value"], None


class ShardedCache:
    """A sweep job's replay cache: its own shard to write (in the sweep's `folder`, and a copy
    in its cache folder), every job's shards and the cache folder to read. Same interface as
    ReplayCache for the gateway."""

    def __init__(
        self, folder: Path, own: str, base: ReplayCache | None, *, warn: Warn | None = None
    ) -> None:
        self.folder = folder
        self.path = folder / f"{own}.jsonl"
        self.base = base
        # The copy kept in this job's cache folder, under the sweep's run id (folder's parent).
        self.kept = (
            None
            if base is None
            else base.directory / KEPT_FOLDER / folder.parent.name / f"{own}.jsonl"
        )
        self.warn = warn or warn_on_stderr
        self._entries: dict[str, dict[str, Any]] = {}
        self._read_to: dict[Path, int] = {}  # how far each shard was read (bytes)
        self._rejected = 0
        self._catch_up()

    @property
    def rejected(self) -> int:
        return self._rejected + (self.base.rejected if self.base is not None else 0)

    def _catch_up(self) -> None:
        """Read what the shards gained since the last look (other jobs keep appending)."""
        kept = kept_shard_files(self.base.directory) if self.base is not None else []
        for path in [*shard_files(self.folder), *kept]:
            start = self._read_to.get(path, 0)
            try:
                with path.open("rb") as handle:
                    handle.seek(start)
                    data = handle.read()
            except OSError:
                continue
            end = data.rfind(b"\n") + 1  # a line being written is read next time
            for raw in data[:end].splitlines():
                try:
                    entry = orjson.loads(raw)
                    key, value = str(entry["key"]), entry["value"]
                except (orjson.JSONDecodeError, KeyError, TypeError):
                    self._rejected += 1
                    continue
                if isinstance(value, dict) and entry.get("checksum") == checksum(key, value):
                    self._entries[key] = value
                else:
                    self._rejected += 1
            self._read_to[path] = start + end

    def get(self, key: str) -> dict[str, Any] | None:
        if key not in self._entries:
            self._catch_up()
        if key in self._entries:
            return self._entries[key]
        return self.base.get(key) if self.base is not None else None

    def set(self, key: str, value: dict[str, Any]) -> None:
        value = redact(value)
        line = orjson.dumps({"key": key, "checksum": checksum(key, value), "value": value})
        for path in (self.path, self.kept):
            if path is not None:
                _append(path, line + b"\n")
        self._entries[key] = value

    def delete(self, key: str) -> None:
        self._entries.pop(key, None)

    def __contains__(self, key: str) -> bool:
        return self.get(key) is not None

    def __len__(self) -> int:
        return len(self._entries)

    def close(self) -> None:
        if self.base is not None:
            self.base.close()


def _append(path: Path, line: bytes) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW  # never via a link
        with os.fdopen(os.open(path, flags, 0o644), "ab") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)  # this machine's processes only; one writer
            try:
                handle.write(line)
                handle.flush()
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)
    except OSError as error:
        raise WriteFailed(path, error) from error


def merge_shards(
    folder: Path, into: ReplayCache, files: list[Path] | None = None
) -> tuple[int, int, list[str]]:
    """Copy every valid entry of the shards in `folder` (or of `files`) into a cache: (added,
    already there, problems as `file line N: why`). An entry already cached is left as it is."""
    added = present = 0
    problems: list[str] = []
    for path in shard_files(folder) if files is None else files:
        for number, key, value, problem in read_shard(path):
            if value is None:
                problems.append(f"{path} line {number}: {problem}")
                continue
            if into.get(key) is not None:
                present += 1
                continue
            into.set(key, value)
            added += 1
    return added, present, problems
