"""A `pdbench run` killed mid-run, for the resume tests.

`KilledRun(args, more_than=n, log=..., env=...)` starts `pdbench <args>` in a session of its own
with its output in a file; the run SIGKILLs its whole session (itself and everything it started),
as a crash or an OOM kill would, right after the store's write that takes the ledger
(matches.jsonl) past `n` complete lines. `lines_when_killed(ledger)` waits for that and returns
the lines the ledger had. The resume that follows is the same command, run to its end in the
test's process (tests/in_process.py), where a process start and its imports add nothing the test
is about.

The kill is decided inside the run, not by a test polling the ledger from outside: the run stores
finished matches in batches (pdbench/runners/writer.py), so a resume whose remaining matches fit
one batch writes the ledger once, just before it ends, and a poller on a loaded machine could
miss the moment between that write and the end (it did, once in CI: "the run ended before its
ledger passed 17 lines").

Run as a script (what `KilledRun` starts): `python tests/killed_runs.py <more_than> <pdbench
args...>`.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def complete_lines(path: Path) -> int:
    """Newline-terminated lines of a file (0 when it does not exist yet)."""
    return path.read_bytes().count(b"\n") if path.exists() else 0


class KilledRun:
    def __init__(
        self,
        args: Sequence[str],
        *,
        more_than: int,
        log: Path,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.log, self.more_than = log, more_than
        command = [sys.executable, str(Path(__file__)), str(more_than), *args]
        with log.open("wb") as out:
            self.process = subprocess.Popen(
                command,
                cwd=ROOT,
                env=None if env is None else dict(env),
                stdout=out,
                stderr=out,
                start_new_session=True,  # one session: the kill reaches everything it started
            )

    def lines_when_killed(self, ledger: Path, timeout: float = 120.0) -> int:
        """Wait until the run has killed itself; returns the ledger's lines then. A run that
        ends any other way (or not in time) fails the test with the run's output."""
        try:
            code = self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)
            pytest.fail(f"the ledger never passed {self.more_than} lines:\n{self.log.read_text()}")
        if code != -signal.SIGKILL:
            pytest.fail(
                f"the run ended (exit {code}) before its ledger passed {self.more_than} "
                f"lines, so it could not be killed mid-run:\n{self.log.read_text()}"
            )
        return complete_lines(ledger)


def _run_and_die_after(more_than: int, args: list[str]) -> None:
    """pdbench's CLI with the store's append wrapped: once an append leaves the ledger with more
    than `more_than` lines, SIGKILL the session (this process included) before anything else."""
    from pdbench.cli.app import main
    from pdbench.storage.run_store import RunStore

    real_append = RunStore.append

    def append_then_maybe_die(self: RunStore, *a: object, **kw: object) -> None:
        real_append(self, *a, **kw)  # type: ignore[arg-type]
        if complete_lines(self.ledger_path) > more_than:
            os.killpg(0, signal.SIGKILL)

    RunStore.append = append_then_maybe_die  # type: ignore[method-assign]
    sys.argv = ["pdbench", *args]
    main()


if __name__ == "__main__":
    _run_and_die_after(int(sys.argv[1]), sys.argv[2:])
