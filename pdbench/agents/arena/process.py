"""The child process that runs a user's agent file: start it, talk to it in JSON lines, time its
answers, log what it prints, and end it (with whatever it started).

The other side of the pipes is `child.py`.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pdbench.agents.base import AgentContext

LOG_CAP_BYTES = 1 << 20  # what one agent may print per match before the rest is discarded
WORKER_SCRIPT = Path(__file__).with_name("child.py")


def agent_log_path(context: AgentContext | None, agent_path: Path) -> Path:
    """<run_dir>/agent_logs/<condition>__rep<replicate>__<side>.log, or a temp file."""
    if context is not None and context.run_dir is not None:
        name = f"{context.condition}__rep{context.replicate}__{context.side}.log"
        return Path(context.run_dir) / "agent_logs" / re.sub(r"[^\w.=+-]", "_", name)
    handle, name = tempfile.mkstemp(prefix=f"pdbench-arena-{agent_path.stem}-", suffix=".log")
    os.close(handle)
    return Path(name)


class AgentLog:
    """The agent's printed output (capped) and pdbench's notes about it, in one file."""

    def __init__(self, path: Path, cap_bytes: int = LOG_CAP_BYTES) -> None:
        self.path = path
        self.cap_bytes = cap_bytes
        self.written = 0
        self.dropped = 0
        self._lock = threading.Lock()
        self._file = None

    def _handle(self):
        if self._file is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = open(self.path, "ab")  # noqa: SIM115 - kept open for the match
        return self._file

    def write(self, data: bytes) -> None:
        with self._lock:
            room = self.cap_bytes - self.written
            if room > 0:
                self._handle().write(data[:room])
                self.written += min(room, len(data))
                if len(data) >= room:
                    self._write_note(f"\noutput cut off after {self.cap_bytes} bytes")
            self.dropped += max(0, len(data) - max(room, 0))
            self._handle().flush()

    def note(self, text: str) -> None:
        with self._lock:
            self._write_note(text)
            self._handle().flush()

    def _write_note(self, text: str) -> None:
        lead = "\n" if text.startswith("\n") else ""
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
        self._handle().write(f"{lead}[pdbench {stamp}] {text.lstrip()}\n".encode())

    def close(self) -> None:
        if self.dropped:
            self.note(f"{self.dropped} further bytes of output were discarded")
            self.dropped = 0
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None


class WorkerTimeout(Exception):
    pass


class WorkerDied(Exception):
    pass


# What a user's agent process inherits: enough to run Python, never the provider keys or other
# secrets of the runner's environment.
_PASSED_ENVIRONMENT = ("PATH", "HOME", "LANG", "LC_ALL", "TZ", "TMPDIR", "PYTHONPATH", "SYSTEMROOT")


def worker_environment() -> dict[str, str]:
    env = {k: os.environ[k] for k in _PASSED_ENVIRONMENT if k in os.environ}
    env["PYTHONUNBUFFERED"] = "1"
    return env


class Worker:
    """One child process running the user's Agent: JSON lines in, JSON lines out, output to log."""

    def __init__(self, agent_path: Path, cwd: Path, log: AgentLog) -> None:
        self.log = log
        self.started_at = time.perf_counter()
        self.proc = subprocess.Popen(
            [sys.executable, "-u", str(WORKER_SCRIPT), str(agent_path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=worker_environment(),
            start_new_session=True,  # Ctrl-C reaches the runner, which then ends its workers
        )
        self.replies: queue.Queue[bytes | None] = queue.Queue()
        self._seq = 0
        self.history_sent = 0  # rounds of history this process already holds
        self._threads = [
            threading.Thread(target=self._read_replies, daemon=True),
            threading.Thread(target=self._pump_output, daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def _read_replies(self) -> None:
        for line in self.proc.stdout:
            self.replies.put(line)
        self.replies.put(None)

    def _pump_output(self) -> None:
        while chunk := self.proc.stderr.read1(65536):
            self.log.write(chunk)

    def _reply(self, seq: int, timeout: float) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.replies.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise WorkerTimeout from None
            if line is None:
                self.proc.wait()
                raise WorkerDied(f"the agent process exited with code {self.proc.returncode}")
            try:
                reply = json.loads(line)
            except ValueError:
                continue  # not ours: the protocol descriptor was written to by user code
            if isinstance(reply, dict) and reply.get("seq") == seq:
                return reply

    def ready(self, timeout: float) -> dict:
        """Wait for the start-up reply: {"ok", "hooks", "game"} or {"ok": False, "error"}."""
        return self._reply(0, timeout)

    def call(self, hook: str, arg: dict, timeout: float, **extra: Any) -> dict:
        self._seq += 1
        request = {"seq": self._seq, "hook": hook, "arg": arg, **extra}
        try:
            self.proc.stdin.write(json.dumps(request).encode())
            self.proc.stdin.write(b"\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            self.proc.wait()
            raise WorkerDied(f"the agent process exited with code {self.proc.returncode}") from None
        return self._reply(self._seq, timeout)

    def kill(self) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)  # also whatever the agent spawned
            except (AttributeError, OSError):
                self.proc.kill()
        self._reap()

    def shutdown(self, grace: float) -> None:
        """Ask the worker to exit; kill it if it has not within `grace` seconds."""
        with contextlib.suppress(OSError):
            self.proc.stdin.write(b'{"seq": -1, "hook": "exit"}\n')
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            self.kill()
        self._reap()

    def _reap(self) -> None:
        self.proc.wait()
        for thread in self._threads:
            thread.join(timeout=1.0)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            with contextlib.suppress(OSError):
                stream.close()
