"""A run directory on disk: append finished matches, remember them, resume after a crash.

Layout of `data/runs/<run_id>/`:

- rounds.jsonl       one line per round, appended one whole match at a time, in plan order;
- matches.jsonl      the ledger: one line per finished match, written *after* its rounds, with the
                     byte offset where its rounds end in rounds.jsonl;
- run_manifest.json  rewritten atomically on every status change;
- aggregates.parquet written at the end (and by `pdbench aggregate`).

After a kill -9 the ledger's last complete line says what finished: rounds.jsonl is cut back to
that offset (dropping a torn line or a half-written match) and only unfinished matches run again.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from pydantic import ValidationError

from pdbench.core.errors import PdbenchError, WriteFailed
from pdbench.core.redact import redact_bytes, secret_env_values
from pdbench.storage import jsonl, recovery
from pdbench.storage.deal_key import DEAL_KEY_FILE
from pdbench.storage.ledger import LedgerEntry
from pdbench.storage.line_projection import as_round_lines
from pdbench.storage.manifest import RECORD_VERSION, RunManifest, utc_now
from pdbench.storage.run_owner import OWNER_FILE, RunOwner
from pdbench.storage.safe_files import open_no_follow, refuse_links
from pdbench.storage.schema import LEDGER_FILE, MANIFEST_FILE, ROUNDS_FILE


@dataclass
class FinishedMatch:
    """One match ready to be stored: its lines and its ledger entry."""

    lines: list[bytes]
    ledger: LedgerEntry
    # The match's columns for aggregation (a one-match StoredMatches), so a run can aggregate
    # what it played without parsing rounds.jsonl again.
    columns: Any = None


def redacted_lines(
    match: FinishedMatch, secrets: tuple[str, ...], record_version: int = RECORD_VERSION
) -> list[bytes]:
    """A match's lines with secrets redacted (pdbench.core.redact), in the run's record version
    (a run begun as version 1 goes on in it: a 2x2 match's lines as the version-1 lines they
    project to, `pdbench.storage.line_projection`, the one projection the readers use). A match no
    provider or agent file took part in holds only numbers and names, and names are redacted
    where they are made, so its lines are kept as they are without a look (a policy run writes
    millions of them)."""
    lines = match.lines
    if record_version == 1:
        lines = [as_round_lines(b"".join(lines))] if lines else []
    calls = match.ledger.calls
    if not (calls.live or calls.cached or calls.agent_turns or match.ledger.error):
        return lines
    return [redact_bytes(line, secrets) for line in lines]


LOCK_FILE = ".lock"  # held (flock) by the one process writing a run dir; it holds that pid
HOLDER_FILES = {LOCK_FILE, OWNER_FILE}  # left by a writer, even one that stored nothing
# Written first in a new run dir, holding the config hash: a folder a run made but whose first
# manifest a full disk refused is still known as that run's, and resumes once there is space.
RUN_MARKER = ".pdbench-run"


def marked_hash(run_dir: Path) -> str | None:
    """The config hash a run dir's marker holds: "" when the marker is there but its write did
    not get through (a full disk), None when there is no marker."""
    try:
        with open_no_follow(run_dir / RUN_MARKER, "rb") as handle:
            return handle.read(200).decode("ascii", "replace").strip()
    except FileNotFoundError:
        return None
    except OSError:
        return ""


# ... and the run's deal key, copied into the folder before its first manifest
NEW_RUN_FILES = {*HOLDER_FILES, DEAL_KEY_FILE}


class RunDirLock:
    """One writer per run dir: an exclusive `flock` on <run_dir>/.lock, held while the process
    writes and released by the kernel when it ends (a kill -9 leaves no stale lock). A second
    writer (a double launch, a re-queued cluster job) is refused with the holder's pid. Since
    flock may not hold between machines on a cluster filesystem, the writer also owns the run
    dir through an owner file with a lease (storage.run_owner), checked before every write."""

    def __init__(self, run_dir: Path) -> None:
        self.path = run_dir / LOCK_FILE
        self._handle: Any = None
        self.owner: RunOwner | None = None

    def check(self) -> None:
        """Before a write: this process still owns the run dir (PdbenchError if not)."""
        if self.owner is not None:
            self.owner.check()

    def acquire(self) -> RunDirLock:
        """Take the lock (exit 2 when another process holds it). The run dir is refused first
        when it holds a symbolic link (storage.safe_files); a failed write of the pid (a full
        disk, a read-only folder) is `WriteFailed` (exit 5), never a traceback."""
        import fcntl

        refuse_links(self.path.parent)
        try:
            handle = open_no_follow(self.path, "a+")
        except OSError as error:
            raise WriteFailed(self.path, error) from error
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "unknown"
            handle.close()
            raise PdbenchError(
                f"{self.path.parent} is being written by another process (pid {holder}); wait "
                "for it to end (or stop it), then run the same command again"
            ) from None
        try:
            handle.seek(0)
            handle.truncate()
            handle.write(str(os.getpid()))
            handle.flush()
        except OSError as error:
            _close_quietly(handle)
            raise WriteFailed(self.path, error) from error
        self._handle = handle
        try:
            self.owner = RunOwner(self.path.parent).acquire()
        except BaseException:
            self.release()
            raise
        return self

    def release(self) -> None:
        """Give the lock up. Never raises: it runs while another error (a failed write, Ctrl-C)
        is on its way out, which it must not hide; the kernel drops the flock with the file."""
        if self.owner is not None:
            owner, self.owner = self.owner, None
            owner.release()
        if self._handle is not None:
            handle, self._handle = self._handle, None
            try:
                # A released lock names no holder (and a command that only read the run dir,
                # such as a refused `pdbench aggregate`, leaves the file as it found it).
                handle.seek(0)
                handle.truncate()
            except OSError:
                pass  # the pid stays in the file: a stale name, the lock itself is free
            _close_quietly(handle)


def _close_quietly(handle: Any) -> None:
    with contextlib.suppress(OSError):
        handle.close()  # closing the file releases the flock


@dataclass
class RunStore:
    run_dir: Path
    manifest: RunManifest | None = None
    completed: dict[tuple[str, int], LedgerEntry] = field(default_factory=dict)
    lock: RunDirLock | None = None
    # One line saying what recovery moved aside (a damaged ledger or rounds file), or None.
    notice: str | None = None
    moved_to: Path | None = None  # where recovery moved the damaged part (quarantine/<time>)

    def close(self) -> None:
        """Release the run dir for the next writer."""
        if self.lock is not None:
            self.lock.release()
            self.lock = None

    @property
    def record_version(self) -> int:
        """The shape its lines are written in: the version the run began in (a new run's: the
        current one)."""
        return self.manifest.record_version if self.manifest is not None else RECORD_VERSION

    @property
    def rounds_path(self) -> Path:
        return self.run_dir / ROUNDS_FILE

    @property
    def ledger_path(self) -> Path:
        return self.run_dir / LEDGER_FILE

    @property
    def manifest_path(self) -> Path:
        return self.run_dir / MANIFEST_FILE

    @classmethod
    def open(cls, run_dir: Path, *, config_hash: str, resume_only: bool = False) -> RunStore:
        """Open a new or existing run dir. An existing one must hold the same experiment."""
        manifest_path = run_dir / MANIFEST_FILE
        if run_dir.exists() and not run_dir.is_dir():
            raise PdbenchError(
                f"{run_dir} is a file, not a run folder; choose another --run-id (or "
                "run.output_dir)"
            )
        if manifest_path.exists():
            manifest = read_manifest(run_dir)
            if manifest.config_hash != config_hash:
                raise PdbenchError(
                    f"{run_dir} already holds a different experiment (config hash "
                    f"{str(manifest.config_hash)[:10]}, this one {config_hash[:10]}); it "
                    "is never overwritten: pass another --run-id (or run.run_id=...)"
                )
            lock = RunDirLock(run_dir).acquire()
            store = cls(run_dir=run_dir, manifest=manifest, lock=lock)
            store._recover()
            return store
        marked = marked_hash(run_dir) if run_dir.is_dir() else None
        if marked not in (None, "", config_hash):
            raise PdbenchError(
                f"{run_dir} already holds a different experiment (config hash {marked[:10]}, "
                f"this one {config_hash[:10]}; its first manifest was never written); it is "
                "never overwritten: pass another --run-id (or run.run_id=...)"
            )
        if marked is None:  # no run of pdbench's began here
            if resume_only:
                raise PdbenchError(f"nothing to resume: {run_dir} has no {MANIFEST_FILE}")
            if run_dir.exists() and any(p.name not in NEW_RUN_FILES for p in run_dir.iterdir()):
                raise PdbenchError(
                    f"{run_dir} exists and is not a pdbench run; choose another --run-id"
                )
        run_dir.mkdir(parents=True, exist_ok=True)
        # Two processes starting the same new run: the second waits on nothing and is refused.
        store = cls(run_dir=run_dir, lock=RunDirLock(run_dir).acquire())
        store._mark(config_hash)
        if marked is None:
            store._start_ledger()
        else:  # this run began here and stopped before its first manifest: as after a kill
            store._recover()
        return store

    def _mark(self, config_hash: str) -> None:
        """The run's marker, first of its files (see RUN_MARKER)."""
        try:
            with open_no_follow(self.run_dir / RUN_MARKER, "wb") as handle:
                handle.write(config_hash.encode() + b"\n")
        except OSError as error:
            self.close()
            raise WriteFailed(self.run_dir / RUN_MARKER, error) from error

    def _start_ledger(self) -> None:
        """The ledger exists from the start (empty until a match finishes): a run dir whose
        rounds.jsonl has no ledger beside it lost it, and recovery says so (storage.recovery)."""
        try:
            with open_no_follow(self.ledger_path, "ab"):
                pass
        except OSError as error:
            raise WriteFailed(self.ledger_path, error) from error

    def _recover(self) -> None:
        """Keep the longest valid prefix of the ledger and rounds.jsonl (see storage.recovery):
        a kill's leftovers are cut away, damaged lines are moved aside and said in one line."""
        found = recovery.recover(self.run_dir)
        self.completed = {entry.key: entry for entry in found.entries}
        self.notice = found.notice(self.run_dir)
        self.moved_to = found.moved_to
        self._start_ledger()

    def append(self, matches: list[FinishedMatch], *, fsync: bool = False) -> None:
        """Store finished matches: their rounds first, then their ledger lines.

        Not fsynced by default: a killed process loses nothing the OS has accepted, and after a
        power loss `_recover` keeps only matches whose rounds made it to disk.
        """
        if not matches:
            return
        if self.lock is not None:
            self.lock.check()  # another machine may have taken the run over meanwhile
        offset = self.rounds_path.stat().st_size if self.rounds_path.exists() else 0
        entries = []
        written: list[list[bytes]] = []
        secrets = secret_env_values()
        for match in matches:
            # Redacted before the offsets are counted, so the ledger points at the bytes on disk.
            lines = redacted_lines(match, secrets, self.record_version)
            written.append(lines)
            offset += sum(len(line) for line in lines)
            entries.append(
                dataclasses.replace(match.ledger, rounds_end_offset=offset, finished_utc=utc_now())
            )
        jsonl.append_bytes(
            self.rounds_path,
            (line for lines in written for line in lines),
            fsync=fsync,
            redacted=True,
        )
        jsonl.append_bytes(
            self.ledger_path, b"".join(entry.to_json() for entry in entries), fsync=fsync
        )
        # Only matches whose ledger lines were written count as stored (a failed write raises
        # before this, and recovery cuts its torn tail away on the next attempt).
        self.completed.update((entry.key, entry) for entry in entries)

    def write_manifest(self, manifest: RunManifest) -> None:
        self.manifest = manifest
        write_manifest(self.run_dir, manifest)


def write_manifest(run_dir: Path, manifest: RunManifest) -> None:
    jsonl.write_json_atomic(run_dir / MANIFEST_FILE, manifest.to_json_dict())


def read_manifest(run_dir: Path) -> RunManifest:
    path = run_dir / MANIFEST_FILE
    try:
        return RunManifest.model_validate(orjson.loads(path.read_bytes()))
    except FileNotFoundError:
        raise PdbenchError(f"{run_dir} is not a pdbench run dir (no {MANIFEST_FILE})") from None
    except orjson.JSONDecodeError as error:
        raise PdbenchError(f"{path}: not valid JSON ({error})") from None
    except ValidationError as error:
        problem = error.errors()[0]
        where = ".".join(str(part) for part in problem["loc"])
        raise PdbenchError(f"{path}: {where}: {problem['msg']}") from None


def read_ledger(run_dir: Path) -> list[LedgerEntry]:
    """Every complete ledger line; a damaged one is named (file, line, what is wrong)."""
    path = run_dir / LEDGER_FILE
    end = jsonl.complete_prefix(path)
    entries = []
    for number, line in enumerate(path.read_bytes()[:end].splitlines() if end else [], 1):
        if not line.strip():
            continue
        entry, problem = recovery.parse_ledger_line(line)
        if entry is None:
            raise PdbenchError(
                f"{path} line {number}: {problem}; `pdbench run` with the run's command moves "
                "the damaged part aside and plays those matches again"
            )
        entries.append(entry)
    return entries
