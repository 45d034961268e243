"""What a run shows while it plays: matches done, provider calls live and cached, cost so far.

On a terminal, a rich progress bar. Without one (a log file, a cluster job), one status line on
stderr every `status_every_s` seconds (`--status-every`, or PDBENCH_STATUS_EVERY for both front
doors; 0: none), so a log shows that the run moves. The calls are read from the gateway as they
are made, not when a match ends.
"""

from __future__ import annotations

import os
import sys
import threading
import time

from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)
from rich.text import Text

from pdbench.storage.schema import CallCounts

STATUS_EVERY_ENV = "PDBENCH_STATUS_EVERY"
STATUS_EVERY_S = 30.0  # default seconds between two status lines when stderr is no terminal


def status_every_default() -> float:
    """PDBENCH_STATUS_EVERY when it is a number of seconds, else STATUS_EVERY_S."""
    try:
        value = float(os.environ.get(STATUS_EVERY_ENV, STATUS_EVERY_S))
    except ValueError:
        return STATUS_EVERY_S
    return value if value >= 0 else STATUS_EVERY_S


class _CallsColumn(ProgressColumn):
    """The calls as the gateway counts them, read at every refresh (not only when a match
    ends: a long match makes many calls)."""

    def __init__(self, reporter: ProgressReporter) -> None:
        super().__init__()
        self.reporter = reporter

    def render(self, task: Task) -> Text:
        calls = self.reporter.calls
        return Text(f"calls {calls.live} live / {calls.cached} cached ${calls.cost_usd:.4f}")


class ProgressReporter:
    def __init__(self, *, enabled: bool = True, status_every_s: float | None = None) -> None:
        terminal = sys.stderr.isatty()
        self.enabled = enabled and terminal
        every = status_every_default() if status_every_s is None else status_every_s
        self.status_every_s = every if enabled and not terminal and every > 0 else None
        self.planned = self.done = 0
        self.calls = CallCounts()  # the gateway's own counters once the run has one
        self.started = time.monotonic()
        self.progress = Progress(
            TextColumn("matches"),
            BarColumn(),
            MofNCompleteColumn(),
            _CallsColumn(self),
            TimeElapsedColumn(),
            disable=not self.enabled,
            transient=False,
        )
        self.task: TaskID | None = None
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None

    def __enter__(self) -> ProgressReporter:
        self.progress.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        # A stop (Ctrl-C) may land while `start` starts the thread: one never started is not
        # joined (Thread.join would raise over the KeyboardInterrupt on its way out).
        if self._ticker is not None and self._ticker.ident is not None:
            self._ticker.join(timeout=5)
        self.progress.__exit__(*exc)

    def start(self, planned: int, already_done: int) -> None:
        self.planned, self.done = planned, already_done
        self.started = time.monotonic()
        self.task = self.progress.add_task("run", total=planned, completed=already_done)
        if self.status_every_s is not None and self._ticker is None:
            self._ticker = threading.Thread(target=self._tick, name="pdbench-status", daemon=True)
            self._ticker.start()

    def watch_calls(self, calls: CallCounts) -> None:
        """Read the calls from `calls`, which the run's gateway updates as it makes them."""
        self.calls = calls

    def match_done(self, _finished: object, _calls: CallCounts) -> None:
        self.done += 1
        if self.task is not None:
            self.progress.update(self.task, advance=1)

    def status_line(self) -> str:
        calls = self.calls
        elapsed = int(time.monotonic() - self.started)
        return (
            f"progress: matches {self.done}/{self.planned} calls {calls.live} live / "
            f"{calls.cached} cached ${calls.cost_usd:.4f} "
            f"{elapsed // 3600}:{elapsed // 60 % 60:02d}:{elapsed % 60:02d}"
        )

    def _tick(self) -> None:
        assert self.status_every_s is not None
        while not self._stop.wait(self.status_every_s):
            print(self.status_line(), file=sys.stderr, flush=True)
