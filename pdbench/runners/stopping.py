"""Stopping a run on Ctrl-C or SIGTERM: no new provider call and no new match from the moment the
signal arrives, the calls in flight get a short grace to finish (so what they cost is journaled
and their answers cached), then whatever still runs is cancelled.

The flag is set by a plain signal handler, which Python runs in the main thread between two
bytecodes: it takes effect even while a match that never yields (the mock provider answers at
once) holds the event loop. A second signal stops at once, as Ctrl-C always did.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from typing import Any

# How long the calls already sent may take to come back after the signal before they are
# cancelled: an answer that arrives is journaled and cached (paid once), one cancelled is not.
GRACE_S = 3.0

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class RunInterrupted(KeyboardInterrupt):
    """A run stopped by a signal, after it stored what finished and saved its manifest."""

    def __init__(self, stored: int, planned: int) -> None:
        super().__init__(f"{stored} of {planned} matches stored")
        self.stored = stored
        self.planned = planned


class Stopping:
    """Whether the run was asked to stop, and what to do (once) when it is."""

    def __init__(self, grace_s: float = GRACE_S) -> None:
        self.grace_s = grace_s
        self.signal_number: int | None = None
        self._on_stop: Callable[[], None] | None = None

    @property
    def requested(self) -> bool:
        return self.signal_number is not None

    def request(self, signal_number: int = signal.SIGINT) -> None:
        """Ask the run to stop (what the signal handler does; tests call it directly)."""
        if self.signal_number is not None:
            return
        self.signal_number = signal_number
        if self._on_stop is not None:
            self._on_stop()

    def cancel_after_grace(self, tasks: list[asyncio.Task[Any]]) -> None:
        """From now on, a stop request cancels `tasks` after the grace (from any thread)."""
        loop = asyncio.get_running_loop()

        def cancel() -> None:
            for task in tasks:
                task.cancel()

        def on_stop() -> None:
            loop.call_soon_threadsafe(loop.call_later, self.grace_s, cancel)

        self._on_stop = on_stop
        if self.requested:
            on_stop()

    @contextlib.contextmanager
    def on_signals(self) -> Iterator[Stopping]:
        """While the block runs, SIGINT and SIGTERM request the stop; a second one raises
        KeyboardInterrupt at once. The handlers in place before are put back after."""
        if threading.current_thread() is not threading.main_thread():
            yield self  # only the main thread may set handlers (a test's worker thread)
            return

        def handler(signal_number: int, frame: object) -> None:
            if self.requested:
                raise KeyboardInterrupt
            self.request(signal_number)

        # A signal the process was started ignoring (nohup, a background job) stays ignored.
        kept = {
            number: previous
            for number in SIGNALS
            if (previous := signal.getsignal(number)) is not signal.SIG_IGN
        }
        for number in kept:
            signal.signal(number, handler)
        try:
            yield self
        finally:
            for number, previous in kept.items():
                signal.signal(number, previous)
