"""Whether a process on this machine is still running: one answer for the run's owner file and
for a writer's temporaries (pdbench.storage.processes). A killed process its parent has not
reaped yet (a zombie, as in a container whose pid 1 reaps nothing) has ended, and a reused pid
is another process."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from pdbench.storage.processes import process_alive, process_start
from pdbench.storage.safe_files import remove_stale_temporaries, temporary_name_of


@pytest.fixture
def zombie():
    """A child that has exited and is not reaped yet (state Z)."""
    child = subprocess.Popen(["true"])
    deadline = time.monotonic() + 10
    while Path(f"/proc/{child.pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
        assert time.monotonic() < deadline, "the child never exited"
        time.sleep(0.01)
    yield child.pid
    child.wait()


def test_this_process_is_alive_and_known_by_its_start():
    me = os.getpid()
    started = process_start(me)
    assert started is not None
    assert process_alive(me) and process_alive(me, started)
    assert not process_alive(me, str(int(started) + 1))  # the pid of another process


def test_a_zombie_has_ended(zombie):
    assert not process_alive(zombie)


def test_a_temporary_of_a_dead_writer_is_removed_and_a_live_ones_is_kept(zombie, tmp_path):
    target = tmp_path / "aggregates.parquet"
    mine = temporary_name_of(target, os.getpid())
    dead = temporary_name_of(target, zombie)
    for path in (mine, dead):
        path.write_bytes(b"half")
    remove_stale_temporaries(target)
    assert mine.exists() and not dead.exists()
