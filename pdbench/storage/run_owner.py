"""One writer per run dir across machines, without flock: an owner file with a lease.

`flock` (storage.run_store.RunDirLock) keeps two processes of one machine from writing one run
dir, but some cluster filesystems do not honour it between machines. So a writer also owns the
run dir through `<run_dir>/.owner`, created with O_CREAT|O_EXCL (atomic on local filesystems and
on NFSv3+ servers), naming its host, pid, the process's start time, a random token and when it last
renewed its lease. While it writes, a thread renews the lease every `lease/4` seconds; before every
batch of matches it stores, it reads the file back and stops (PdbenchError, exit 2) if the file
no longer holds its token.

Another process finding the file reads it strictly (`Lease`: every field's type and range, the
token's alphabet and length) and finds it:
- stale at once on the same host when its process is gone (or its pid now names another process:
  the start time differs);
- stale on any host when the lease was not renewed for `lease` seconds, as read by the
  newcomer's clock (machines' clocks must agree to within a fraction of the lease). A live
  process that is not a pdbench writer (pid 1, a pid reused by another program) renews nothing,
  so a lease naming it runs out like any other;
- damaged when it is not a lease (not JSON, a field of the wrong type or range, a token that
  is no token, a renewal in the future, not a regular file). No pdbench writer keeps such a
  file: a writer writes its lease whole and replaces it whole, and one whose lease no longer
  holds its token stops renewing it and stops writing at its next check. So a damaged lease is
  taken over once the file is `lease` seconds old, like a stale one; until then the message
  says so, and that removing the file lets the run go on at once when no writer is left.
A stale or damaged owner is taken over by exactly one newcomer: it first creates
`.owner.takeover-<stale token>` (a damaged file: `-damaged-<hash of its bytes>`) with O_EXCL (a
second newcomer fails there and is refused), then replaces the owner file (a claim older than the
lease, left by a newcomer that died meanwhile, is removed). The old writer, if it was only frozen
(SIGSTOP, a suspended VM, a network partition), finds another token at its next check and stops
before writing anything.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import os
import secrets
import socket
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import orjson
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from pdbench.core.errors import PdbenchError, WriteFailed
from pdbench.core.visible import visible
from pdbench.storage.processes import process_alive, process_start
from pdbench.storage.safe_files import NotRegularFile, open_regular

OWNER_FILE = ".owner"
LEASE_ENV = "PDBENCH_LEASE_S"
HOST_ENV = "PDBENCH_HOST"  # the name written in owner files (default: the host name)
DEFAULT_LEASE_S = 120.0
MAX_LEASE_S = 86_400.0  # a lease longer than a day is refused as damaged (and never written)
PID_MAX = 1 << 22  # the largest pid Linux gives (PID_MAX_LIMIT on 64-bit systems)
LEASE_FILE_MAX_BYTES = 4096  # a lease is about 200 bytes
TOKEN_PATTERN = r"^[0-9a-f]{16}$"  # secrets.token_hex(8): safe in a file name


def lease_seconds() -> float:
    try:
        seconds = float(os.environ.get(LEASE_ENV, DEFAULT_LEASE_S))
    except ValueError:
        return DEFAULT_LEASE_S
    return min(MAX_LEASE_S, max(0.5, seconds)) if math.isfinite(seconds) else DEFAULT_LEASE_S


def host_name() -> str:
    return os.environ.get(HOST_ENV) or socket.gethostname()


class Lease(BaseModel):
    """The owner file's content, as a writer writes it."""

    model_config = ConfigDict(frozen=True, strict=True, extra="ignore")

    host: Annotated[str, Field(min_length=1, max_length=255)]
    pid: Annotated[int, Field(ge=1, le=PID_MAX)]
    process_start: Annotated[str, Field(pattern=r"^[0-9]{1,20}$")] | None = None
    token: Annotated[str, Field(pattern=TOKEN_PATTERN)]
    renewed_unix: Annotated[float, Field(ge=0, allow_inf_nan=False)]
    lease_s: Annotated[float, Field(gt=0, le=MAX_LEASE_S, allow_inf_nan=False)]

    @field_validator("host")
    @classmethod
    def _printable(cls, host: str) -> str:
        if not host.isprintable():
            raise ValueError("holds characters that cannot be shown")
        return host


@dataclass(frozen=True)
class Damaged:
    """An owner file that is not a lease: what is wrong, its bytes, and when it was last
    written (None: unknown, it could not be read)."""

    problem: str
    content: bytes
    mtime: float | None

    def stale(self, lease: float, now: float) -> bool:
        """Older than a lease; or written more than a lease in the future, which no writer
        whose clock agrees did. An unreadable file is never judged stale."""
        return self.mtime is not None and abs(now - self.mtime) > lease


Holder = Lease | Damaged | None  # None: no owner file


def read_lease(path: Path, *, now: float) -> Holder:
    """The owner file at `path`, read strictly."""
    try:
        mtime = os.lstat(path).st_mtime
        with open_regular(path) as handle:
            content = handle.read(LEASE_FILE_MAX_BYTES + 1)
    except FileNotFoundError:
        return None
    except NotRegularFile as refused:
        return Damaged(refused.what, b"", mtime)
    except OSError as error:
        return Damaged(f"unreadable ({error.strerror})", b"", None)
    if len(content) > LEASE_FILE_MAX_BYTES:
        return Damaged(f"longer than {LEASE_FILE_MAX_BYTES} bytes", content, mtime)
    try:
        lease = Lease.model_validate(orjson.loads(content))
    except orjson.JSONDecodeError:
        return Damaged("not JSON", content, mtime)
    except ValidationError as invalid:
        first = invalid.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "the file"
        return Damaged(f"{where}: {first['msg']}", content, mtime)
    if lease.renewed_unix > now + lease.lease_s:
        return Damaged("renewed_unix: a renewal in the future", content, mtime)
    return lease


class RunOwner:
    def __init__(self, run_dir: Path) -> None:
        self.path = run_dir / OWNER_FILE
        self.lease = lease_seconds()
        self.token = secrets.token_hex(8)
        self._me = {
            "host": host_name(),
            "pid": os.getpid(),
            "process_start": process_start(os.getpid()),
            "token": self.token,
        }
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def acquire(self) -> RunOwner:
        if not self._create():
            holder = self._read()
            if isinstance(holder, Damaged):  # perhaps caught between its creation and write
                time.sleep(0.05)
                holder = self._read()
            if holder is not None and not self._stale(holder):
                raise PdbenchError(self._held_message(holder))
            self._take_over(holder)
        self._thread = threading.Thread(target=self._renew, name="pdbench-lease", daemon=True)
        self._thread.start()
        return self

    def _line(self) -> bytes:
        return orjson.dumps({**self._me, "renewed_unix": time.time(), "lease_s": self.lease})

    def _create(self) -> bool:
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
        try:
            descriptor = os.open(self.path, flags, 0o644)
        except FileExistsError:
            return False
        except OSError as error:
            raise WriteFailed(self.path, error) from error
        with os.fdopen(descriptor, "wb") as out:
            out.write(self._line())
            out.flush()
            os.fsync(out.fileno())
        return True

    def _read(self) -> Holder:
        return read_lease(self.path, now=time.time())

    def _mine(self, holder: Holder) -> bool:
        return isinstance(holder, Lease) and holder.token == self.token

    def _stale(self, holder: Lease | Damaged) -> bool:
        if isinstance(holder, Damaged):
            return holder.stale(self.lease, time.time())
        if holder.host == self._me["host"] and not process_alive(holder.pid, holder.process_start):
            return True
        return time.time() - holder.renewed_unix > holder.lease_s

    def _take_over(self, holder: Holder) -> None:
        """Replace a stale or damaged owner file (or create a missing one), as the one newcomer
        whose claim on it succeeded."""
        if holder is None:
            if self._create():
                return
            raise PdbenchError(self._held_message(self._read(), taking_over=True))
        name = (
            holder.token
            if isinstance(holder, Lease)
            else f"damaged-{hashlib.sha256(holder.content).hexdigest()[:16]}"
        )
        claim = self.path.with_name(f"{OWNER_FILE}.takeover-{name}")
        if not self._claim(claim):
            raise PdbenchError(self._held_message(holder, taking_over=True))
        try:
            if self._read() == holder:  # nobody else took it between our looks
                self._remove_owner_file(holder)
            if not self._create():
                raise PdbenchError(self._held_message(self._read(), taking_over=True))
        finally:
            with contextlib.suppress(OSError):
                claim.unlink()

    def _remove_owner_file(self, holder: Lease | Damaged) -> None:
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass
        except OSError as error:  # a folder named .owner, a read-only run dir
            raise PdbenchError(
                f"{self.path} ({_what(holder)}) could not be removed to take the run over "
                f"({error.strerror}): remove it yourself, then run the same command again"
            ) from None

    def _claim(self, claim: Path) -> bool:
        """Create the takeover claim (O_EXCL). A claim older than the lease was left by a
        newcomer that died while taking over: it is removed and claimed again, once."""
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
        for _ in range(2):
            try:
                os.close(os.open(claim, flags, 0o644))
                return True
            except FileExistsError:
                try:
                    age = time.time() - claim.stat().st_mtime
                except FileNotFoundError:
                    continue
                if age <= self.lease:
                    return False
                with contextlib.suppress(FileNotFoundError):
                    claim.unlink()
            except OSError as error:
                raise WriteFailed(claim, error) from error
        return False

    def _held_message(self, holder: Holder, *, taking_over: bool = False) -> str:
        """One line: who holds the run dir, and exactly what lets this command go on."""
        run = self.path.parent
        if taking_over:
            return (
                f"{run} is being taken over by another process at this moment ({self.path}); "
                "run the same command again once that process has ended"
            )
        if holder is None:
            return f"{run}: its owner file {self.path} came and went; run the same command again"
        remove = (
            f"or, if no pdbench process is writing this run on any machine, remove {self.path} "
            "and run the same command again now"
        )
        if isinstance(holder, Damaged):
            if holder.mtime is None:
                return f"{run} is claimed by an owner file that is {_what(holder)}: {remove}"
            wait = self.lease - (time.time() - holder.mtime)
            return (
                f"{run} is claimed by a damaged owner file ({self.path}: {_what(holder)}); no "
                f"pdbench writer keeps such a file, so it is taken over once it is "
                f"{self.lease:.0f} s old: run the same command again in {wait:.0f} s, {remove}"
            )
        age = time.time() - holder.renewed_unix
        wait = max(0.0, holder.lease_s - age)
        return (
            f"{run} is being written by {holder.host} pid {holder.pid} (its lease in "
            f"{self.path} renewed {age:.0f} s ago): wait for that process to end, or stop it; "
            f"if it has stopped without giving the run up (killed, its machine lost), its "
            f"lease runs out in {wait:.0f} s: run the same command again then"
        )

    def _renew(self) -> None:
        while not self._stop.wait(self.lease / 4):
            if not self._mine(self._read()):
                return  # taken over: the next check stops the writer
            with contextlib.suppress(OSError):
                temporary = self.path.with_name(f"{OWNER_FILE}.{self.token}")
                temporary.write_bytes(self._line())
                os.replace(temporary, self.path)

    def check(self) -> None:
        """Before a write: this process still owns the run dir, or PdbenchError."""
        holder = self._read()
        if isinstance(holder, Damaged):
            time.sleep(0.05)  # caught mid-rename on a filesystem without atomic replace
            holder = self._read()
        if not self._mine(holder):
            shown = f"{holder.host} pid {holder.pid}" if isinstance(holder, Lease) else "nobody"
            raise PdbenchError(
                f"{self.path.parent} was taken over by {shown} after this process's lease ran "
                "out (it was frozen or cut off for longer than the lease, or its owner file was "
                "removed or damaged): this process stops writing; what it stored before stays"
            )

    def release(self) -> None:
        """Give the run dir up (never raises: it runs while another error is on its way out)."""
        self._stop.set()
        if self._mine(self._read()):
            with contextlib.suppress(OSError):
                self.path.unlink()


def _what(holder: Lease | Damaged) -> str:
    return visible(holder.problem) if isinstance(holder, Damaged) else "a lease"
