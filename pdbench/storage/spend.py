"""The spend journal: every paid call, appended to a file before its answer is used.

One journal per run: `spend.jsonl`; a sweep's jobs each append to a journal of their own,
`<sweep>/spend/<job>.jsonl`, and read all of them (jobs on other machines need no lock held
across machines, and no file is appended by two machines). One JSON line per live call with its tokens and cost, the part of the run
(`source`: a sweep's condition) that made it, and the answer with its cache key. Because a line is written as soon as a call is
paid for, the spend survives a kill, and every attempt of a run (and every job of a sweep) sees
what the others spent: the cost budget (`run.max_cost_usd`) is for the whole run or sweep.

Appends take an exclusive `flock`, reads a shared one; a reader keeps its position and reads
only what was appended since, so checking the budget before every call stays cheap.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import IO

import orjson

from pdbench.core.errors import WriteFailed
from pdbench.core.redact import redact
from pdbench.storage.reserve import DiskReserve, is_disk_full
from pdbench.storage.safe_files import open_no_follow
from pdbench.storage.schema import CallCounts

SPEND_FILE = "spend.jsonl"


class SpendJournal:
    def __init__(
        self, path: Path, *, source: str | None = None, also_read: tuple[Path, ...] = ()
    ) -> None:
        """`also_read`: folders of other journals (a sweep's other jobs, `*.jsonl`) and files
        (an older sweep's one `spend.jsonl`) counted with this one; only `path` is written."""
        self.path = path
        self.source = source  # written on each line (a sweep's condition), or None
        self.also_read = also_read
        self._offsets: dict[Path, int] = {}  # how far this process has read each journal
        self._total = CallCounts()
        self._by_source: dict[str | None, CallCounts] = {}
        # Room the run set aside for its last spend lines on a full disk (storage/reserve.py).
        self.reserve: DiskReserve | None = None

    def record(
        self,
        paid: CallCounts,
        *,
        key: str | None = None,
        answer: dict | None = None,
        model: str | None = None,
        reported_model: str | None = None,
        estimate: str | None = None,
        batch_id: str | None = None,
    ) -> None:
        """Append one paid call (flushed to the OS before the answer is used). With the cache
        key and the answer, the answer survives a failed cache write: a resumed run takes it
        from here instead of buying it again (see `answers`). `model` is the model asked;
        `reported_model` the one the server says answered, when it is another. `estimate` says
        why a line counts a call that may have been billed though no answer came (its counts
        are `paid`'s estimated ones, kept apart from the paid ones). `batch_id`: the provider's batch
        that answered it (paid at the batch rate)."""
        line: dict = {
            "source": self.source,
            **({"model": model} if model is not None else {}),
            **({"reported_model": reported_model} if reported_model is not None else {}),
            "live": paid.live,
            "input_tokens": paid.input_tokens,
            "output_tokens": paid.output_tokens,
            "cost_usd": paid.cost_usd,
            "unknown_price": paid.unknown_price,
        }
        for flag in CallCounts.FLAGS:  # only when said: lines stay short
            if getattr(paid, flag):
                line[flag] = getattr(paid, flag)
        if estimate is not None:
            line["estimate"] = estimate
        if batch_id is not None:
            line["batch_id"] = batch_id
        if key is not None and answer is not None:
            # Redacted like every file of a run: a server may echo a key in its answer.
            line["key"], line["answer"] = key, redact(answer)
        data = orjson.dumps(line) + b"\n"
        try:
            self._append(data)
        except OSError as error:
            # A full disk: the call is paid, so its line goes into the room the run's reserve
            # gives back; the run stops all the same (storage/reserve.py).
            if not (is_disk_full(error) and self.reserve is not None and self.reserve.release()):
                raise WriteFailed(self.path, error) from error
            try:
                self._append(data)
            except OSError as again:
                raise WriteFailed(self.path, again) from again
            raise WriteFailed(self.path, error, written=True) from error

    def _append(self, data: bytes) -> None:
        append_whole_line(self.path, data)

    def total(self) -> CallCounts:
        """What was paid so far, by everyone writing this journal."""
        self._catch_up()
        return self._total

    def total_of(self, source: str | None) -> CallCounts:
        """What one source (a sweep's condition) paid so far."""
        self._catch_up()
        return self._by_source.get(source, CallCounts())

    def answers(self) -> dict[str, dict]:
        """The answers journaled with their cache keys (every one paid for), by key."""
        found: dict[str, dict] = {}
        data = b"".join(read_complete_from(path, 0) for path in self.journals())
        for raw in data.splitlines():
            try:
                entry = orjson.loads(raw)
            except orjson.JSONDecodeError:
                continue
            if isinstance(entry, dict) and isinstance(entry.get("answer"), dict):
                found[str(entry.get("key"))] = entry["answer"]
        return found

    def keys_of_batch(self, batch_id: str) -> set[str]:
        """The cache keys of the answers of one provider batch already journaled (a batch whose
        collection a kill cut short is collected again without counting any answer twice)."""
        found: set[str] = set()
        data = b"".join(read_complete_from(path, 0) for path in self.journals())
        for raw in data.splitlines():
            if batch_id.encode() not in raw:
                continue  # most lines: not parsed
            try:
                entry = orjson.loads(raw)
            except orjson.JSONDecodeError:
                continue
            if isinstance(entry, dict) and entry.get("batch_id") == batch_id and entry.get("key"):
                found.add(str(entry["key"]))
        return found

    def journals(self) -> list[Path]:
        """Every journal this one counts: its own and the others it was given."""
        found = [self.path]
        for other in self.also_read:
            if other.is_dir():
                found += [p for p in sorted(other.glob("*.jsonl")) if p != self.path]
            elif other.is_file() and other != self.path:
                found.append(other)
        return found

    def _catch_up(self) -> None:
        for path in self.journals():
            data = read_complete_from(path, self._offsets.get(path, 0))
            self._offsets[path] = self._offsets.get(path, 0) + len(data)
            self._count(data)

    def _count(self, data: bytes) -> None:
        for raw in data.splitlines():
            try:
                entry = orjson.loads(raw)
            except orjson.JSONDecodeError:
                continue  # a line torn by a kill mid-write: that call's answer was never used
            counts = CallCounts(
                live=int(entry.get("live", 1)),
                input_tokens=int(entry.get("input_tokens", 0)),
                output_tokens=int(entry.get("output_tokens", 0)),
                cost_usd=float(entry.get("cost_usd", 0.0)),
                unknown_price=int(entry.get("unknown_price", 0)),
                impossible_usage=int(entry.get("impossible_usage", 0)),
                other_model=int(entry.get("other_model", 0)),
                cached_input_tokens=int(entry.get("cached_input_tokens", 0)),
                cache_write_tokens=int(entry.get("cache_write_tokens", 0)),
                estimated_calls=int(entry.get("estimated_calls", 0)),
                estimated_input_tokens=int(entry.get("estimated_input_tokens", 0)),
                estimated_output_tokens=int(entry.get("estimated_output_tokens", 0)),
                estimated_cost_usd=float(entry.get("estimated_cost_usd", 0.0)),
                estimated_unknown_price=int(entry.get("estimated_unknown_price", 0)),
            )
            self._total = self._total + counts
            source = entry.get("source")
            self._by_source[source] = self._by_source.get(source, CallCounts()) + counts


def read_complete_from(path: Path, offset: int) -> bytes:
    """A journal's complete lines from `offset` on (a line being written is read next time)."""
    if not path.exists():
        return b""
    with path.open("rb") as handle:
        fcntl.flock(handle, fcntl.LOCK_SH)  # against this machine's writer; others: whole lines
        try:
            handle.seek(offset)
            data = handle.read()
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
    return data[: data.rfind(b"\n") + 1]


def append_whole_line(path: Path, data: bytes) -> None:
    """Append one line (`data` ends with a newline) under an exclusive `flock`, flushed to the OS:
    the way every journal of a run is written (this one, the batch journal)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open_no_follow(path, "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            handle.write(_after_a_torn_line(handle) + data)
            handle.flush()
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _after_a_torn_line(handle: IO[bytes]) -> bytes:
    """A newline when the journal ends in the middle of a line (a process killed while it
    appended; under the lock nobody else is writing): the fragment is ended on its own line,
    which readers skip, instead of being glued to the next call's line and losing it too."""
    size = handle.seek(0, os.SEEK_END)
    if size == 0:
        return b""
    handle.seek(size - 1)
    return b"" if handle.read(1) == b"\n" else b"\n"


def spend_file(run_root: Path) -> Path:
    return run_root / SPEND_FILE


SPEND_FOLDER = "spend"  # a sweep's jobs' journals, one file each


def sweep_job_journal(sweep_root: Path, job: str, source: str) -> SpendJournal:
    """A sweep job's journal: its own file under `<sweep>/spend/`, counting every job's (and an
    older sweep's shared `spend.jsonl`, when resuming one)."""
    folder = sweep_root / SPEND_FOLDER
    return SpendJournal(
        folder / f"{job}.jsonl", source=source, also_read=(folder, spend_file(sweep_root))
    )
