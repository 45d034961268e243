"""The run's progress reporter (pdbench.cli.progress) leaves cleanly however the run stops."""

from __future__ import annotations

import threading

import pytest

from pdbench.cli.progress import ProgressReporter


def test_a_stop_while_the_status_thread_is_being_started_leaves_as_a_stop():
    """Ctrl-C can land inside `start` while the status thread is starting (its Thread exists
    and was never started): leaving must let the KeyboardInterrupt through (the door's exit
    130), not fail joining a thread that never ran (a RuntimeError: exit 1, a traceback)."""
    reporter = ProgressReporter(enabled=False, status_every_s=60)
    with pytest.raises(KeyboardInterrupt), reporter:
        reporter._ticker = threading.Thread(target=reporter._tick, daemon=True)  # never started
        raise KeyboardInterrupt
