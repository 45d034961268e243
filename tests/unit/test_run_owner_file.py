"""Issue 40: crafted `.owner` files. A token with `/`, a 300-character token, `pid: "abc"` gave
tracebacks and left the run blocked; a lease naming pid 1, or garbage, was refused for ever while
the message promised a takeover. The lease file is read strictly: a damaged one is said to be
damaged, in one line saying exactly what lets the run go on, and is taken over once it is a lease
old; a lease naming a live process that does not renew it runs out like any other."""

from __future__ import annotations

import json
import os
import time

import pytest
from in_process import run_front_door
from project_copy import command_env, shared_copy

from pdbench.core.errors import PdbenchError
from pdbench.storage.run_owner import OWNER_FILE, RunOwner, host_name

LEASE_S = 60.0


def lease(**changed) -> bytes:
    fields = {
        "host": host_name(),
        "pid": 1,
        "process_start": None,
        "token": "0123456789abcdef",
        "renewed_unix": time.time(),
        "lease_s": LEASE_S,
    }
    return json.dumps({**fields, **changed}).encode()


CRAFTED = {
    "a token with /": (lease(token="../../etc/x"), "token: String should match pattern"),
    "a 300-character token": (lease(token="a" * 300), "token: String should match pattern"),
    'pid "abc"': (lease(pid="abc"), "pid: Input should be a valid integer"),
    "pid true": (lease(pid=True), "pid: Input should be a valid integer"),
    "pid 0": (lease(pid=0), "pid: Input should be greater than or equal to 1"),
    "garbage": (b"\x00\xff garbage \x1b]52;c;eA==\x07", "not JSON"),
    "empty": (b"", "not JSON"),
    "a list": (b"[1, 2]", "the file: Input should be a valid dictionary"),
    "no token": (json.dumps({"host": "h", "pid": 5}).encode(), "token: Field required"),
    "a host with an escape": (lease(host="h\x1b]0;x\x07"), "host: Value error"),
    "a lease of a thousand years": (lease(lease_s=3e10), "lease_s: Input should be less than"),
    "a renewal in the future": (lease(renewed_unix=1e12), "renewed_unix: a renewal in the future"),
}


@pytest.fixture(autouse=True)
def lease_of_a_minute(monkeypatch):
    monkeypatch.setenv("PDBENCH_LEASE_S", str(LEASE_S))
    monkeypatch.delenv("PDBENCH_HOST", raising=False)


def refusal(run_dir) -> str:
    with pytest.raises(PdbenchError) as refused:
        RunOwner(run_dir).acquire()
    return str(refused.value)


@pytest.mark.parametrize("case", CRAFTED)
def test_a_damaged_owner_file_is_said_to_be_and_taken_over_once_a_lease_old(tmp_path, case):
    content, problem = CRAFTED[case]
    owner_file = tmp_path / OWNER_FILE
    owner_file.write_bytes(content)
    message = refusal(tmp_path)
    assert "\n" not in message and "\x1b" not in message
    assert f"is claimed by a damaged owner file ({owner_file}: {problem}" in message
    assert "it is taken over once it is 60 s old: run the same command again in 60 s" in message
    assert f"if no pdbench process is writing this run on any machine, remove {owner_file}" in (
        message
    )
    assert owner_file.read_bytes() == content  # refused: left as it was

    an_hour_ago = time.time() - 3600
    os.utime(owner_file, (an_hour_ago, an_hour_ago))
    owner = RunOwner(tmp_path).acquire()  # no traceback, no claim file in the way
    assert json.loads(owner_file.read_bytes())["token"] == owner.token
    owner.check()
    owner.release()
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_removing_a_damaged_owner_file_lets_the_run_go_on_at_once(tmp_path):
    (tmp_path / OWNER_FILE).write_bytes(b"garbage")
    assert "remove" in refusal(tmp_path)
    (tmp_path / OWNER_FILE).unlink()  # what the message says to do
    RunOwner(tmp_path).acquire().release()


@pytest.mark.parametrize(("what", "make"), [("a folder", os.mkdir), ("a FIFO", os.mkfifo)])
def test_an_owner_file_that_is_no_file_is_damaged_too(tmp_path, what, make):
    make(tmp_path / OWNER_FILE)
    assert f"({tmp_path / OWNER_FILE}: {what}, not a regular file)" in refusal(tmp_path)
    an_hour_ago = time.time() - 3600
    os.utime(tmp_path / OWNER_FILE, (an_hour_ago, an_hour_ago))
    if what == "a FIFO":
        RunOwner(tmp_path).acquire().release()
    else:  # a folder cannot be replaced by a file: the one line says to remove it
        message = refusal(tmp_path)
        assert "could not be removed to take the run over" in message
        assert "remove it yourself, then run the same command again" in message


def test_a_lease_naming_a_live_process_that_renews_nothing_runs_out(tmp_path):
    """pid 1 is alive on this host, but it is no pdbench writer: it never renews the lease."""
    owner_file = tmp_path / OWNER_FILE
    owner_file.write_bytes(lease(pid=1, renewed_unix=time.time() - 20))
    message = refusal(tmp_path)
    assert f"is being written by {host_name()} pid 1 (its lease in {owner_file} renewed 20 s" in (
        message
    )
    assert "its lease runs out in 40 s: run the same command again then" in message

    owner_file.write_bytes(lease(pid=1, renewed_unix=time.time() - 2 * LEASE_S))
    owner = RunOwner(tmp_path).acquire()
    owner.check()
    owner.release()


def test_a_run_with_a_damaged_owner_file_is_exit_2_in_one_line_and_resumes_once_removed(tmp_path):
    args = ["run", "conf/config.yaml", "agent_a=tft", "agent_b=alld", "horizon.rounds=3"]
    args += [f"run.output_dir={tmp_path / 'runs'}", "--run-id", "r"]
    first = run_front_door("cli", args, cwd=shared_copy(), env=command_env(tmp_path))
    assert first.code == 0, first.stderr
    owner_file = tmp_path / "runs" / "r" / OWNER_FILE
    owner_file.write_bytes(lease(token="a/b"))
    refused = run_front_door("cli", args, cwd=shared_copy(), env=command_env(tmp_path))
    assert refused.code == 2
    assert refused.stderr.count("\n") == 1 and refused.stderr.startswith("error: ")
    assert "damaged owner file" in refused.stderr and "Traceback" not in refused.stderr
    owner_file.unlink()
    again = run_front_door("cli", args, cwd=shared_copy(), env=command_env(tmp_path))
    assert again.code == 0, again.stderr
