"""Two writers on two machines cannot both write one run, without flock: the owner file with a
lease (pdbench/storage/run_owner.py). Two processes play two machines (PDBENCH_HOST names them;
flock is not involved: RunOwner alone, as on a filesystem that does not honour it)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pdbench.core.errors import PdbenchError
from pdbench.storage.run_owner import OWNER_FILE, Lease, RunOwner

HOLDER = """
import sys, time
from pathlib import Path
from pdbench.core.errors import PdbenchError
from pdbench.storage.run_owner import RunOwner
owner = RunOwner(Path(sys.argv[1])).acquire()
print("held", flush=True)
while True:
    time.sleep(0.1)
    try:
        owner.check()  # what RunStore.append does before every batch it writes
    except PdbenchError as error:
        print("stopped:", error, flush=True)
        sys.exit(2)
"""


def start_holder(run_dir, host: str, lease: str) -> subprocess.Popen:
    env = {**os.environ, "PDBENCH_HOST": host, "PDBENCH_LEASE_S": lease}
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(run_dir)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


def test_a_live_owner_on_another_machine_is_refused_and_a_frozen_one_is_taken_over(
    tmp_path, monkeypatch
):
    first = start_holder(tmp_path, "machine-a", lease="1.5")
    try:
        monkeypatch.setenv("PDBENCH_HOST", "machine-b")
        monkeypatch.setenv("PDBENCH_LEASE_S", "1.5")
        time.sleep(1.0)  # the holder renews its lease meanwhile
        with pytest.raises(PdbenchError, match=f"machine-a pid {first.pid}"):
            RunOwner(tmp_path).acquire()

        os.kill(first.pid, signal.SIGSTOP)  # frozen: no more renewals
        time.sleep(2.0)  # longer than the lease
        second = RunOwner(tmp_path).acquire()  # stale: taken over
        os.kill(first.pid, signal.SIGCONT)
        out, _ = first.communicate(timeout=30)
        assert first.returncode == 2  # the old writer stopped at its next check
        assert "taken over by machine-b" in out
        second.check()  # the new one goes on
        second.release()
        assert not (tmp_path / OWNER_FILE).exists()
    finally:
        if first.poll() is None:
            os.kill(first.pid, signal.SIGCONT)
            first.kill()
            first.wait()


def test_a_dead_owner_on_the_same_machine_is_taken_over_at_once(tmp_path, monkeypatch):
    monkeypatch.setenv("PDBENCH_LEASE_S", "600")
    first = start_holder(tmp_path, "same-host", lease="600")
    first.kill()  # kill -9: no release, the owner file stays
    first.wait()
    assert (tmp_path / OWNER_FILE).exists()
    monkeypatch.setenv("PDBENCH_HOST", "same-host")
    owner = RunOwner(tmp_path).acquire()  # its pid is gone: no need to wait for the lease
    owner.check()
    owner.release()


def test_a_killed_owner_nobody_reaped_yet_is_taken_over_at_once(tmp_path, monkeypatch):
    """A process killed in a container whose pid 1 reaps nothing stays a zombie: its pid still
    answers kill(pid, 0), but it has ended and writes nothing more."""
    monkeypatch.setenv("PDBENCH_LEASE_S", "600")
    first = start_holder(tmp_path, "same-host", lease="600")
    first.kill()  # kill -9, and no wait(): it stays a zombie of this test process
    stat = Path(f"/proc/{first.pid}/stat")
    deadline = time.monotonic() + 10
    while stat.read_text().rsplit(")", 1)[1].split()[0] != "Z":
        assert time.monotonic() < deadline, "the holder never ended"
        time.sleep(0.01)
    monkeypatch.setenv("PDBENCH_HOST", "same-host")
    owner = RunOwner(tmp_path).acquire()
    owner.check()
    owner.release()
    first.wait()


def test_two_newcomers_cannot_both_take_over(tmp_path, monkeypatch):
    monkeypatch.setenv("PDBENCH_HOST", "machine-c")
    monkeypatch.setenv("PDBENCH_LEASE_S", "0.5")
    first = start_holder(tmp_path, "machine-a", lease="0.5")
    try:
        os.kill(first.pid, signal.SIGSTOP)
        time.sleep(1.0)
        stale = RunOwner(tmp_path)._read()
        assert isinstance(stale, Lease)
        # Another newcomer is in the middle of taking the same stale owner over.
        (tmp_path / f"{OWNER_FILE}.takeover-{stale.token}").touch()
        with pytest.raises(PdbenchError, match="being taken over"):
            RunOwner(tmp_path).acquire()
    finally:
        os.kill(first.pid, signal.SIGCONT)
        first.kill()
        first.wait()


def test_a_claim_left_by_a_newcomer_that_died_does_not_block_for_ever(tmp_path, monkeypatch):
    monkeypatch.setenv("PDBENCH_HOST", "machine-c")
    monkeypatch.setenv("PDBENCH_LEASE_S", "0.5")
    first = start_holder(tmp_path, "machine-a", lease="0.5")
    try:
        os.kill(first.pid, signal.SIGSTOP)
        time.sleep(1.0)
        stale = RunOwner(tmp_path)._read()
        assert isinstance(stale, Lease)
        claim = tmp_path / f"{OWNER_FILE}.takeover-{stale.token}"
        claim.touch()
        os.utime(claim, (time.time() - 60, time.time() - 60))  # older than the lease
        owner = RunOwner(tmp_path).acquire()
        owner.check()
        owner.release()
        assert not claim.exists()
    finally:
        os.kill(first.pid, signal.SIGCONT)
        first.kill()
        first.wait()
