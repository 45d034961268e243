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

`KilledRun(args, more_than=0, log=..., after="batch-submitted")` kills the run instead right
after it journals a batch's id (pdbench/storage/batch_journal.py): submitted to the provider, not
yet answered; `wait_for_kill()` waits for it.

Run as a script (what `KilledRun` starts): `python tests/killed_runs.py <more_than> <pdbench
args...>`, or `python tests/killed_runs.py batch-submitted <pdbench args...>`.
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
        after: str = "ledger",
    ) -> None:
        self.log, self.more_than = log, more_than
        when = BATCH_SUBMITTED if after == BATCH_SUBMITTED else str(more_than)
        self.moment = (
            "it submitted a batch"
            if after == BATCH_SUBMITTED
            else f"its ledger passed {more_than} lines"
        )
        command = [sys.executable, str(Path(__file__)), when, *args]
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
        self.wait_for_kill(timeout)
        return complete_lines(ledger)

    def wait_for_kill(self, timeout: float = 120.0) -> None:
        """Wait until the run has killed itself; a run that ends any other way (or not in
        time) fails the test with the run's output."""
        try:
            code = self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)
            pytest.fail(f"the run was not killed ({self.moment}) in time:\n{self.log.read_text()}")
        if code != -signal.SIGKILL:
            pytest.fail(
                f"the run ended (exit {code}) before {self.moment}, so it could not be killed "
                f"mid-run:\n{self.log.read_text()}"
            )


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


BATCH_SUBMITTED = "batch-submitted"


def _run_and_die_after_a_batch_is_submitted(args: list[str]) -> None:
    """pdbench's CLI with the batch journal's `submitted` wrapped: once a batch's id is written,
    SIGKILL the session, while the provider holds the batch unanswered."""
    from pdbench.cli.app import main
    from pdbench.storage.batch_journal import BatchJournal

    real_submitted = BatchJournal.submitted

    def submitted_then_die(self: BatchJournal, *a: object, **kw: object) -> None:
        real_submitted(self, *a, **kw)  # type: ignore[arg-type]
        os.killpg(0, signal.SIGKILL)

    BatchJournal.submitted = submitted_then_die  # type: ignore[method-assign]
    sys.argv = ["pdbench", *args]
    main()


if __name__ == "__main__":
    if sys.argv[1] == BATCH_SUBMITTED:
        _run_and_die_after_a_batch_is_submitted(sys.argv[2:])
    else:
        _run_and_die_after(int(sys.argv[1]), sys.argv[2:])
