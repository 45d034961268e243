"""One writer per run dir across machines, without flock: an owner file with a lease.

`flock` (storage.run_store.RunDirLock) keeps two processes of one machine from writing one run
dir, but some cluster filesystems do not honour it between machines. So a writer also owns the
run dir through `<run_dir>/.owner`, created with O_CREAT|O_EXCL (atomic on local filesystems and
on NFSv3+ servers), naming its host, pid, the process's start time, a random token and when it last
renewed its lease. While it writes, a thread renews the lease every `lease/4` seconds; before every
batch of matches it stores, it reads the file back and stops (PdbenchError, exit 2) if the file
no longer holds its token.

Another process finding the file:
- same host, and the pid is gone (or is another process: its start time differs): stale at once;
- otherwise stale only when the lease was not renewed for `lease` seconds (default 120,
  $PDBENCH_LEASE_S), as read by the newcomer's clock (machines' clocks must agree to within a
  fraction of the lease);
- a stale owner is taken over by exactly one newcomer: it first creates
  `.owner.takeover-<stale token>` with O_EXCL (a second newcomer fails there and is refused),
  then replaces the owner file (a claim older than the lease, left by a newcomer that died
  meanwhile, is removed). The old writer, if it was only frozen (SIGSTOP, a suspended VM, a
  network partition), finds another token at its next check and stops before writing anything.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import socket
import threading
import time
from pathlib import Path

import orjson

from pdbench.core.errors import PdbenchError, WriteFailed
from pdbench.storage.processes import process_alive, process_start

OWNER_FILE = ".owner"
LEASE_ENV = "PDBENCH_LEASE_S"
HOST_ENV = "PDBENCH_HOST"  # the name written in owner files (default: the host name)
DEFAULT_LEASE_S = 120.0


def lease_seconds() -> float:
    try:
        return max(0.5, float(os.environ.get(LEASE_ENV, DEFAULT_LEASE_S)))
    except ValueError:
        return DEFAULT_LEASE_S


def host_name() -> str:
    return os.environ.get(HOST_ENV) or socket.gethostname()


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
            if holder is None or not self._stale(holder):
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

    def _read(self) -> dict | None:
        try:
            holder = orjson.loads(self.path.read_bytes())
        except FileNotFoundError:
            return {}  # released meanwhile: stale, take it
        except (OSError, orjson.JSONDecodeError):
            return None  # being written: try again later
        return holder if isinstance(holder, dict) else None

    def _stale(self, holder: dict) -> bool:
        if not holder:
            return True
        if holder.get("host") == self._me["host"]:
            return not process_alive(int(holder.get("pid", 0)), holder.get("process_start"))
        renewed = float(holder.get("renewed_unix", 0))
        return time.time() - renewed > float(holder.get("lease_s", self.lease))

    def _take_over(self, holder: dict) -> None:
        claim = self.path.with_name(f"{OWNER_FILE}.takeover-{holder.get('token', 'none')}")
        if not self._claim(claim):
            raise PdbenchError(self._held_message(holder, taking_over=True))
        try:
            if self._read() == holder:  # nobody else took it between our looks
                with contextlib.suppress(FileNotFoundError):
                    self.path.unlink()
            if not self._create():
                raise PdbenchError(self._held_message(self._read(), taking_over=True))
        finally:
            with contextlib.suppress(OSError):
                claim.unlink()

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
        return False

    def _held_message(self, holder: dict | None, *, taking_over: bool = False) -> str:
        who = (
            f"{holder.get('host')} pid {holder.get('pid')}, lease renewed "
            f"{time.time() - float(holder.get('renewed_unix', 0)):.0f} s ago"
            if holder
            else "a process whose owner file is being written"
        )
        what = "is being taken over by another process" if taking_over else "is being written"
        return (
            f"{self.path.parent} {what} ({who}; {OWNER_FILE}); a stale owner is taken over "
            f"once its lease of {self.lease:.0f} s runs out (sooner on its own host once it "
            "has ended): run the same command again then"
        )

    def _renew(self) -> None:
        while not self._stop.wait(self.lease / 4):
            holder = self._read()
            if holder is None or holder.get("token") != self.token:
                return  # taken over: the next check stops the writer
            with contextlib.suppress(OSError):
                temporary = self.path.with_name(f"{OWNER_FILE}.{self.token}")
                temporary.write_bytes(self._line())
                os.replace(temporary, self.path)

    def check(self) -> None:
        """Before a write: this process still owns the run dir, or PdbenchError."""
        holder = self._read()
        if holder is None:
            time.sleep(0.05)  # caught mid-rename on a filesystem without atomic replace
            holder = self._read()
        if not holder or holder.get("token") != self.token:
            shown = f"{holder.get('host')} pid {holder.get('pid')}" if holder else "nobody"
            raise PdbenchError(
                f"{self.path.parent} was taken over by {shown} after this process's lease ran "
                "out (it was frozen or cut off for longer than the lease): this process stops "
                "writing; what it stored before stays"
            )

    def release(self) -> None:
        """Give the run dir up (never raises: it runs while another error is on its way out)."""
        self._stop.set()
        holder = self._read()
        if holder and holder.get("token") == self.token:
            with contextlib.suppress(OSError):
                self.path.unlink()
