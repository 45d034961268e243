"""A sweep's worker processes end with their launcher.

joblib's workers are separate processes the launcher (`python -m pdbench -m ...`) starts; when the
launcher is killed (kill -9, the OOM killer, a closed terminal) nothing tells them, and they kept
playing, and paying for, matches nobody would merge. Each worker watches its parent: once the
parent is gone it stops as Ctrl-C does (the shard's manifest says interrupted; the same command
resumes it) and exits once its job has ended (`job_over`), or after a few seconds if it has not:
an idle worker, or one whose job stored what finished, has nothing left to wait for.
"""

from __future__ import annotations

import _thread
import os
import threading
import time

LAUNCHER_PID_ENV = "PDBENCH_LAUNCHER_PID"  # set by the launcher for the jobs it starts
POLL_S = 0.5
GRACE_S = 5.0

_watching = False
_job_over = threading.Event()  # set between two jobs: a stop need not wait for one
_job_over.set()


def watch_launcher(exit_code: int) -> None:
    """In a worker process of a sweep (not the launcher itself), end this process when the
    launcher ends. Idempotent: a worker that runs several jobs watches once."""
    global _watching
    launcher = os.environ.get(LAUNCHER_PID_ENV)
    if not launcher or int(launcher) == os.getpid():
        return
    _job_over.clear()  # a job starts: once the launcher is gone, let it store what finished
    if _watching:
        return
    _watching = True
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(POLL_S)
        _thread.interrupt_main()  # as Ctrl-C: what finished is kept, the manifest says so
        _job_over.wait(GRACE_S)  # the job stored what finished (it kept the worker 5 s more)
        os._exit(exit_code)

    threading.Thread(target=watch, name="pdbench-launcher-watch", daemon=True).start()


def job_over() -> None:
    """A job of this process has ended (stored what finished, whatever its outcome): a worker
    whose launcher is gone may exit now."""
    _job_over.set()
