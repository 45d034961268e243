"""A rich progress bar: matches done, provider calls live and cached, cost so far."""

from __future__ import annotations

import sys

from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

from pdbench.storage.schema import CallCounts


class ProgressReporter:
    def __init__(self, *, enabled: bool = True) -> None:
        self.enabled = enabled and sys.stderr.isatty()
        self.live = self.cached = 0
        self.cost = 0.0
        self.progress = Progress(
            TextColumn("matches"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("calls {task.fields[live]} live / {task.fields[cached]} cached"),
            TextColumn("${task.fields[cost]:.4f}"),
            TimeElapsedColumn(),
            disable=not self.enabled,
            transient=False,
        )
        self.task: TaskID | None = None

    def __enter__(self) -> ProgressReporter:
        self.progress.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self.progress.__exit__(*exc)

    def start(self, planned: int, already_done: int) -> None:
        self.task = self.progress.add_task(
            "run", total=planned, completed=already_done, live=0, cached=0, cost=0.0
        )

    def match_done(self, _finished: object, calls: CallCounts) -> None:
        self.live += calls.live
        self.cached += calls.cached
        self.cost += calls.cost_usd
        if self.task is not None:
            self.progress.update(
                self.task, advance=1, live=self.live, cached=self.cached, cost=self.cost
            )
