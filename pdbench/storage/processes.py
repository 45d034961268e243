"""Whether a process of this machine is still running, for the run's owner file
(storage.run_owner) and a writer's temporaries (storage.safe_files): one answer for both.

A pid alone is not enough: a process killed but not yet reaped by its parent (a zombie, as in a
container whose pid 1 reaps nothing) has ended, and a pid can be reused by another process, told
apart by its start time.
"""

from __future__ import annotations

import os
from pathlib import Path


def _stat_fields(pid: int) -> list[str] | None:
    """/proc/<pid>/stat's fields after the command name (Linux), or None: the state is the
    first, the start time (clock ticks since boot) the twentieth."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()


def process_start(pid: int) -> str | None:
    """The start time of a process, or None where /proc cannot tell: with the pid it names one
    process, so a reused pid is not taken for the one that ended."""
    fields = _stat_fields(pid)
    return None if fields is None else fields[19]


def process_alive(pid: int, started: str | None = None) -> bool:
    """Whether process `pid` (that started at `started`, when given) is still running. A process
    that exists but is not ours to signal counts as running."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    fields = _stat_fields(pid)
    if fields is None:  # no /proc (or it just ended): the signal said it exists
        return True
    if fields[0] == "Z":  # ended, not yet reaped
        return False
    return started is None or fields[19] == started
