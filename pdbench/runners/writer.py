"""The ordered writer: finished matches go to disk strictly in plan order, in batches, on one
background thread, so rounds.jsonl is the same file whatever the concurrency and a resumed run
ends identical to an uninterrupted one.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

from pdbench.analysis.metrics.columns import StoredMatches
from pdbench.storage.run_store import FinishedMatch, RunStore

FLUSH_EVERY_S = 1.0  # store finished matches at least this often...
FLUSH_EVERY_MATCHES = 512  # ...or when this many are waiting


class OrderedWriter:
    """Stores finished matches in plan order, in batches.

    The file writes (and their fsync) run on one background thread, in submission order, so
    the next matches are played and formatted while the previous batch goes to disk.
    """

    def __init__(self, store: RunStore, on_stored: Callable[[], None] | None = None) -> None:
        self.store = store
        self.on_stored = on_stored  # called on the writer thread after each batch is stored
        self.ready: dict[int, FinishedMatch] = {}
        self.next_index = 0
        self.last_flush = time.monotonic()
        self.stored_columns: list[StoredMatches] = []  # in file order
        self.stopped_at = float("inf")  # the first index that will not be stored (see stop_at)
        self._disk = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pdbench-writer")
        self._writes: list[Future] = []
        self.failed: BaseException | None = None  # the first failed write (a full disk)
        # Called on the writer thread when a write fails, so the run stops at once rather than
        # play (and pay for) matches that can no longer be stored.
        self.on_failure: Callable[[], object] | None = None

    def stop_at(self, index: int) -> None:
        """Match `index` will not be stored in this attempt: store nothing from there on."""
        self.stopped_at = min(self.stopped_at, index)

    def add(self, index: int, match: FinishedMatch) -> None:
        self.ready[index] = match
        waiting = len(self.ready)
        # A match that bought answers is stored at once: held for the batch, the run would keep
        # paying for up to FLUSH_EVERY_S after the disk filled, before a write could say so.
        # Its write costs nothing next to the calls it follows.
        bought = match.ledger.calls.live > 0
        if (
            bought
            or waiting >= FLUSH_EVERY_MATCHES
            or time.monotonic() - self.last_flush >= FLUSH_EVERY_S
        ):
            self.flush()

    def flush(self) -> None:
        if self.failed is not None:
            raise self.failed
        batch = []
        while self.next_index in self.ready and self.next_index < self.stopped_at:
            batch.append(self.ready.pop(self.next_index))
            self.next_index += 1
        if batch:
            self._writes.append(self._disk.submit(self._store, batch))
        self.stored_columns.extend(m.columns for m in batch if m.columns is not None)
        self.last_flush = time.monotonic()

    def _store(self, batch: list[FinishedMatch]) -> None:
        if self.failed is not None:
            return  # after a failed write nothing more is stored: the file ends at a match
        try:
            self.store.append(batch)
            if self.on_stored is not None:
                self.on_stored()
        except BaseException as error:
            self.failed = error
            if self.on_failure is not None:
                self.on_failure()
            raise

    def finish(self) -> None:
        """Wait until everything flushed is on disk; a failed write raises here."""
        try:
            for write in self._writes:
                write.result()
        finally:
            self._disk.shutdown(wait=True)
