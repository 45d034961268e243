"""A `pdbench run` killed mid-run, for the resume tests.

`KilledRun(args, log=..., env=...)` starts `uv run pdbench <args>` in a session of its own (SIGKILL
then reaches the command and everything it started) with its output in a file, and
`kill_when(ledger, more_than)` kills it, as a crash or an OOM kill would, the moment the run's
ledger (matches.jsonl) has more than `more_than` complete lines. The resume that follows is the
same command, run to its end in the test's process (tests/in_process.py), where a process start
and its imports add nothing the test is about.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def complete_lines(path: Path) -> int:
    """Newline-terminated lines of a file (0 when it does not exist yet)."""
    return path.read_bytes().count(b"\n") if path.exists() else 0


class KilledRun:
    def __init__(
        self, args: Sequence[str], *, log: Path, env: Mapping[str, str] | None = None
    ) -> None:
        self.log = log
        command = ["uv", "run", "--no-sync", "pdbench", *args]
        with log.open("wb") as out:
            self.process = subprocess.Popen(
                command,
                cwd=ROOT,
                env=None if env is None else dict(env),
                stdout=out,
                stderr=out,
                start_new_session=True,
            )

    def kill_when(self, ledger: Path, more_than: int, timeout: float = 120.0) -> int:
        """SIGKILL the whole session once the ledger has more than `more_than` lines; returns
        the lines it had when the run was dead."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                pytest.fail(
                    f"the run ended (exit {self.process.returncode}) before its ledger passed "
                    f"{more_than} lines, so it could not be killed mid-run:\n{self.log.read_text()}"
                )
            if complete_lines(ledger) > more_than:
                self._kill()
                return complete_lines(ledger)
            time.sleep(0.01)
        self._kill()
        pytest.fail(f"the ledger never passed {more_than} lines:\n{self.log.read_text()}")

    def _kill(self) -> None:
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)
