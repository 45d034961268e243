"""The child process that runs a user's agent file: start it, talk to it in JSON lines, time its
answers, log what it prints, and end it together with everything it started.

The other side of the pipes is `child.py`; how the process is contained is `sandbox.launch`.
Nothing here ever blocks on the pipes without a limit: a process the agent started may hold them
open long after the worker itself is gone.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import select
import selectors
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from pdbench.agents.arena.log import AgentLog
from pdbench.agents.arena.sandbox import MARKER_VARIABLE, Launch

POLL_S = 0.05  # how often a wait for a reply checks whether the worker is still alive
EXIT_GRACE_S = 0.2  # after the worker exited, how long its last reply may still be on its way
DRAIN_S = 2.0  # after a kill, how long the pipes get to close before reading them stops
MAX_PENDING_BYTES = 1 << 20  # a reply line longer than this is garbage, not a reply
MAX_OUTPUT_READS_BEFORE_ANSWER = 16  # at most 1 MiB of printed output handed on ahead of an answer
SWEEP_PASSES = 20  # rounds of /proc scanning, for offspring forked while being killed


class WorkerTimeout(Exception):
    pass


class WorkerDied(Exception):
    pass


def read_reply(line: bytes, seq: int) -> dict | None:
    """The reply to call `seq` in one line from the worker, or None when the line is not one
    (user code wrote to the protocol descriptor). The agent's bytes can only fail its own turn:
    JSON nested too deeply to read is this call's unreadable answer, and a lone surrogate (text
    no file can hold) is replaced, never an error in pdbench itself."""
    try:
        reply = json.loads(line)
    except ValueError:
        return None  # not ours: the protocol descriptor was written to by user code
    except RecursionError:
        unreadable = "a reply nested too deeply to read (more than Python's recursion limit)"
        return {"seq": seq, "ok": True, "result": {"__unreadable__": unreadable}}
    if not (isinstance(reply, dict) and reply.get("seq") == seq):
        return None
    if b"\\ud" in line.lower():  # a \uD800-\uDFFF escape: perhaps a lone surrogate
        text = json.dumps(reply, ensure_ascii=False)
        reply = json.loads(text.encode("utf-8", "replace").decode("utf-8"))
    return reply


class Worker:
    """One child process running the user's Agent: JSON lines in, JSON lines out, output to log."""

    def __init__(self, launch: Launch, log: AgentLog) -> None:
        self.log = log
        self.launch = launch
        self.started_at = time.perf_counter()
        # bwrap's --die-with-parent watches the thread that starts it: a worker must be started
        # from a thread that outlives it (ArenaAgent's executor thread, kept for the match).
        self.proc = subprocess.Popen(
            launch.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=launch.cwd,
            env=launch.env,
            start_new_session=True,  # Ctrl-C reaches the runner, which then ends its workers
        )
        self.stdin: IO[bytes] = _opened(self.proc.stdin)
        os.set_blocking(self.stdin.fileno(), False)  # a full pipe must not stall us past a limit
        self.replies: queue.Queue[bytes | None] = queue.Queue()
        self._seq = 0
        self._ended = False
        self.history_sent = 0  # rounds of history this process already holds
        self._pipes = {os.fstat(stream.fileno()).st_ino for stream in self._streams()}
        self._pump = _Pump(
            _opened(self.proc.stdout).fileno(),
            _opened(self.proc.stderr).fileno(),
            self.replies.put,
            log.write,
        )

    def ready(self, timeout: float) -> dict:
        """Wait for the start-up reply: {"ok", "hooks", "game"} or {"ok": False, "error"}."""
        return self._reply(0, timeout)

    def call(self, hook: str, arg: dict, timeout: float, **extra: Any) -> dict:
        """Send one hook call and wait for its reply, both within `timeout` seconds."""
        self._seq += 1
        request = {"seq": self._seq, "hook": hook, "arg": arg, **extra}
        deadline = time.monotonic() + timeout
        try:
            self._send(json.dumps(request).encode() + b"\n", deadline)
        except OSError:
            raise WorkerDied(self._exit_message()) from None
        return self._reply(self._seq, deadline - time.monotonic())

    def _send(self, data: bytes, deadline: float) -> None:
        fd = self.stdin.fileno()
        while data:
            if not select.select([], [fd], [], max(0.0, deadline - time.monotonic()))[1]:
                raise WorkerTimeout  # nobody reads: a hung worker, or what it left holding stdin
            with contextlib.suppress(BlockingIOError):
                data = data[os.write(fd, data) :]

    def _reply(self, seq: int, timeout: float) -> dict:
        deadline = time.monotonic() + timeout
        exited_at: float | None = None
        while True:
            now = time.monotonic()
            try:
                line = self.replies.get(timeout=max(0.0, min(deadline - now, POLL_S)))
            except queue.Empty:
                if time.monotonic() >= deadline:
                    raise WorkerTimeout from None
                # Gone, but something it started keeps the reply pipe open, so no end of file
                # will tell: the process table does.
                if self._exited():
                    exited_at = exited_at or time.monotonic()
                    if time.monotonic() - exited_at > EXIT_GRACE_S:
                        raise WorkerDied(self._exit_message()) from None
                continue
            if line is None:
                raise WorkerDied(self._exit_message())
            reply = read_reply(line, seq)
            if reply is not None:
                return reply

    def _exited(self) -> bool:
        return self._exit_status() is not None

    def _exit_status(self) -> int | None:
        """The worker's exit code (minus the signal that killed it), None while it runs. It is
        not reaped here: until `kill` reaps it, its pid and process group id cannot be reused,
        so signalling the group stays safe."""
        try:
            info = os.waitid(os.P_PID, self.proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return self.proc.returncode
        if info is None:
            return None
        return info.si_status if info.si_code == os.CLD_EXITED else -info.si_status

    def _exit_message(self) -> str:
        deadline = time.monotonic() + EXIT_GRACE_S
        while (code := self._exit_status()) is None and time.monotonic() < deadline:
            time.sleep(0.01)
        if code is None:
            return "the agent process stopped reading its requests"
        return f"the agent process exited with code {code}"

    def kill(self) -> None:
        """End the worker and everything it started, then stop reading its pipes. Idempotent.

        In the sandbox, killing bwrap ends its PID namespace and with it every process inside.
        Without, the process group goes first, then whatever `sweep` still finds."""
        if self._ended:
            return
        self._ended = True
        with contextlib.suppress(OSError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        if not self.launch.sandboxed:
            sweep(self.proc.pid, self.launch.marker, self._pipes)
        self.proc.wait()
        if not self._pump.drained.wait(DRAIN_S):
            self.log.note(
                "something the agent started still holds its pipes; pdbench stopped reading them"
            )
        self._pump.stop()
        for stream in self._streams():
            with contextlib.suppress(OSError):
                stream.close()

    def shutdown(self, grace: float) -> None:
        """Ask the worker to exit, give it `grace` seconds, then `kill` what is left."""
        with contextlib.suppress(OSError, WorkerTimeout):
            self._send(b'{"seq": -1, "hook": "exit"}\n', time.monotonic() + grace)
        with contextlib.suppress(OSError):
            self.stdin.close()
        deadline = time.monotonic() + grace
        while not self._exited() and time.monotonic() < deadline:
            time.sleep(0.01)
        self.kill()

    def _streams(self) -> list[IO[bytes]]:
        return [s for s in (self.proc.stdin, self.proc.stdout, self.proc.stderr) if s is not None]


def _opened(stream: IO[bytes] | None) -> IO[bytes]:
    assert stream is not None, "Popen was asked for this pipe"
    return stream


class _Pump:
    """One thread that reads the reply pipe (line by line, to `on_line`, None at its end) and the
    output pipe (to `on_output`) until both are closed, or until `stop`."""

    def __init__(
        self,
        replies_fd: int,
        output_fd: int,
        on_line: Callable[[bytes | None], None],
        on_output: Callable[[bytes], None],
    ) -> None:
        self.drained = threading.Event()  # both pipes closed: every process holding them is gone
        self._replies_fd, self._output_fd = replies_fd, output_fd
        self._on_line, self._on_output = on_line, on_output
        self._output_open = True
        self._wake_read, self._wake_write = os.pipe()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        with selectors.DefaultSelector() as selector:
            for fd in (self._replies_fd, self._output_fd, self._wake_read):
                selector.register(fd, selectors.EVENT_READ)
            pending = b""
            open_pipes = 2
            while open_pipes:
                ready = {key.fd for key, _ in selector.select()}
                if self._wake_read in ready:
                    return
                if self._output_fd in ready and not self._read_output():
                    selector.unregister(self._output_fd)
                    open_pipes -= 1
                if self._replies_fd not in ready:
                    continue
                # The worker flushes what the agent printed before it writes the answer, so
                # whatever sits in the output pipe now was printed first: hand it on before the
                # answer moves the match on (the selector lists ready pipes in no set order).
                # Bounded, so a process that prints without end cannot hold the answer back.
                for _ in range(MAX_OUTPUT_READS_BEFORE_ANSWER):
                    if not (self._output_open and _readable_now(self._output_fd)):
                        break
                    if not self._read_output():
                        selector.unregister(self._output_fd)
                        open_pipes -= 1
                chunk = os.read(self._replies_fd, 65536)
                if not chunk:
                    selector.unregister(self._replies_fd)
                    open_pipes -= 1
                    self._on_line(None)
                    continue
                *lines, pending = (pending + chunk).split(b"\n")
                for line in lines:
                    self._on_line(line)
                if len(pending) > MAX_PENDING_BYTES:
                    pending = b""
            self.drained.set()

    def _read_output(self) -> bool:
        """Hand on one read of the output pipe; False once it is closed."""
        chunk = os.read(self._output_fd, 65536)
        if chunk:
            self._on_output(chunk)
            return True
        self._output_open = False
        return False

    def stop(self) -> None:
        with contextlib.suppress(OSError):
            os.write(self._wake_write, b"x")
        self._thread.join()
        for fd in (self._wake_read, self._wake_write):
            with contextlib.suppress(OSError):
                os.close(fd)


def _readable_now(fd: int) -> bool:
    """Whether a read of `fd` would return at once (data or end of file), without waiting."""
    readable, _, _ = select.select([fd], [], [], 0)
    return bool(readable)


# --- without a sandbox: find what the agent started --------------------------------------------


def sweep(leader: int, marker: str, pipes: set[int]) -> int:
    """SIGKILL every process (of this user) in the worker's session or process group, carrying
    its marker in the environment, or holding one of its pipes; scan again until none is left
    (what is killed may have forked meanwhile). Returns how many were killed.

    Best effort: a process that left the session, cleared its environment and closed the pipes
    is not found. That is the limit of running agents without bubblewrap."""
    killed = 0
    for _ in range(SWEEP_PASSES):
        found = [pid for pid in _process_ids() if _started_by(pid, leader, marker, pipes)]
        for pid in found:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        killed += len(found)
        if not found:
            break
    return killed


def _process_ids() -> list[int]:
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    me = os.getpid()
    return [int(name) for name in names if name.isdigit() and int(name) != me]


def _started_by(pid: int, leader: int, marker: str, pipes: set[int]) -> bool:
    proc = Path("/proc", str(pid))
    try:
        # Fields after the command name (which may hold spaces): state ppid pgrp session ...
        state, _ppid, group, session = (proc / "stat").read_text().rpartition(")")[2].split()[:4]
    except (OSError, ValueError):
        return False
    if state == "Z":
        return False  # already dead, waiting for its parent
    if leader in (int(group), int(session)):
        return True
    with contextlib.suppress(OSError):
        if f"{MARKER_VARIABLE}={marker}".encode() in (proc / "environ").read_bytes():
            return True
    with contextlib.suppress(OSError):
        for fd in os.listdir(proc / "fd"):
            target = os.readlink(proc / "fd" / fd)
            if target.startswith("pipe:[") and int(target[6:-1]) in pipes:
                return True
    return False
