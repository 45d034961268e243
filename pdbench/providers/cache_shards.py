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

Shards are read as files others wrote: only regular files (a FIFO would block a reader for ever,
a link is never followed), line by line with a cap on a line's length (ANSWER_LINE_CAP_BYTES).
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from pdbench.core.errors import WriteFailed
from pdbench.core.redact import redact
from pdbench.providers.cache import ReplayCache, Warn, checksum, warn_on_stderr
from pdbench.storage.safe_files import NotRegularFile, bounded_lines, open_regular

SHARDS_FOLDER = "cache"  # inside a sweep's run dir
KEPT_FOLDER = "shards"  # inside a cache folder: <sweep>/<job>.jsonl, what each job bought
# The longest line a shard may hold: one answer with its key and checksum. The longest outputs
# models give today are about 128k tokens (about 0.5 MB of text) and as much again of
# reasoning, so 8 MiB holds the longest answer eight times over; a longer line is no answer
# pdbench wrote, and is skipped without being held in memory.
ANSWER_LINE_CAP_BYTES = 8 << 20
TOO_LONG = f"longer than {ANSWER_LINE_CAP_BYTES} bytes (the most one answer's line may hold)"


@dataclass(frozen=True, slots=True)
class ShardLine:
    """One line of a shard: its key and answer, or what is wrong with it. Line 0 stands for the
    whole file (one that is not a regular file, or cannot be read)."""

    path: Path
    number: int
    key: str
    value: dict[str, Any] | None
    problem: str | None

    @property
    def where(self) -> str:
        return f"{self.path} line {self.number}" if self.number else str(self.path)


def shard_files(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.jsonl")) if folder.is_dir() else []


def kept_shard_files(cache_folder: Path) -> list[Path]:
    """The shards sweep jobs kept in a cache folder (what each bought while using it)."""
    folder = cache_folder / KEPT_FOLDER
    return sorted(folder.glob("*/*.jsonl")) if folder.is_dir() else []


def read_shard(path: Path) -> Iterator[ShardLine]:
    """Every complete line of a shard, checked (one line at a time: a shard is never read
    whole); a shard that is not a regular file or cannot be read is one problem of line 0."""
    try:
        handle = open_regular(path)
    except NotRegularFile as refused:
        yield ShardLine(path, 0, "", None, refused.what)
        return
    except OSError as error:
        yield ShardLine(path, 0, "", None, f"unreadable ({error.strerror})")
        return
    with handle:
        for number, (raw, _) in enumerate(bounded_lines(handle, ANSWER_LINE_CAP_BYTES), 1):
            if raw is None:
                yield ShardLine(path, number, "", None, TOO_LONG)
            elif raw.strip():
                key, value, problem = _checked(raw)
                yield ShardLine(path, number, key, value, problem)


def _checked(raw: bytes) -> tuple[str, dict[str, Any] | None, str | None]:
    """(key, answer, None) for a line whose checksum matches, else (key or "", None, why)."""
    try:
        entry = orjson.loads(raw)
    except orjson.JSONDecodeError as error:
        return "", None, f"not valid JSON ({error})"
    if not isinstance(entry, dict):
        return "", None, "not a cache entry"
    key = str(entry.get("key", ""))
    if not isinstance(entry.get("value"), dict):
        return key, None, "not a cache entry"
    if entry.get("checksum") != checksum(key, entry["value"]):
        return key, None, "its checksum does not match its key and answer"
    return key, entry["value"], None


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
        self._refused: set[Path] = set()  # not regular files: never opened again
        self._rejected = 0
        self._catch_up()

    @property
    def rejected(self) -> int:
        return self._rejected + (self.base.rejected if self.base is not None else 0)

    def _catch_up(self) -> None:
        """Read what the shards gained since the last look (other jobs keep appending). A shard
        that is not a regular file, and a line over the cap, is counted in `rejected` once."""
        kept = kept_shard_files(self.base.directory) if self.base is not None else []
        for path in [*shard_files(self.folder), *kept]:
            if path in self._refused:
                continue
            try:
                handle = open_regular(path)
            except NotRegularFile:
                self._refused.add(path)
                self._rejected += 1
                continue
            except OSError:
                continue  # gone meanwhile, or unreadable for now: looked at again next time
            with handle:
                handle.seek(self._read_to.get(path, 0))
                # A line being written (no newline yet) is read next time.
                for raw, end in bounded_lines(handle, ANSWER_LINE_CAP_BYTES):
                    self._read_to[path] = end
                    key, value, _ = _checked(raw) if raw is not None else ("", None, None)
                    if value is None:
                        self._rejected += 1
                    else:
                        self._entries[key] = value

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
