"""Issue 22, processes: stopping is prompt and leaves no process behind. Ctrl-C while an arena
agent is busy in its turn ends the run at once (not at the turn's time limit), and a joblib sweep
whose launcher is killed leaves no worker running (checked by process group)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
import uuid
from pathlib import Path

import pytest
from silently_wrong_helpers import ROOT, console_command, module_command, subprocess_env


def processes_running(name: str) -> list[int]:
    """Pids whose command line mentions `name`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if name.encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def group_members(pgid: int) -> list[int]:
    members = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid and fields[0] != "Z":
                members.append(int(entry.name))
    return members


def wait_until(condition, timeout: float, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert process.poll() is None, f"ended early with {process.returncode}"
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.05)


def test_ctrl_c_during_a_busy_arena_turn_stops_at_once(tmp_path):
    name = f"busy_{uuid.uuid4().hex[:8]}"
    agent = tmp_path / f"{name}.py"
    agent.write_text(  # busy for two minutes in its first turn, once it has said it is in it
        "import time\n\n\n"
        "class Agent:\n"
        "    def on_turn(self, round_state):\n"
        "        print('in my turn', flush=True)\n"
        "        time.sleep(120)\n"
        "        return {'type': 'commit', 'choice': round_state['actions'][0]}\n"
    )
    config = tmp_path / "arena.yaml"
    config.write_text(
        f"run: {{seed: 1, replicates: 1, output_dir: {tmp_path / 'runs'}}}\n"
        "horizon: {type: fixed, rounds: 4}\n"
        "conditions:\n"
        "  - name: busy_vs_tft\n"
        f"    agent_a: {{type: arena, path: {agent}, timeout_s: 100}}\n"
        "    agent_b: tft\n"
    )
    process = subprocess.Popen(
        [*console_command(), "run", str(config), "--run-id", "r", "-q"],
        cwd=ROOT,
        env=subprocess_env(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_until(lambda: bool(processes_running(name)), 60, process)
        # The agent has loaded and is in its turn: its print reached its log (was a fixed 3 s).
        log = tmp_path / "runs" / "r" / "agent_logs" / "busy_vs_tft__rep0__a.log"
        wait_until(lambda: log.exists() and "in my turn" in log.read_text(), 60, process)
        process.send_signal(signal.SIGINT)
        sent = time.monotonic()
        _, stderr = process.communicate(timeout=60)
        took = time.monotonic() - sent
    finally:
        process.kill()
    assert process.returncode == 130, stderr
    assert took < 10, f"Ctrl-C took {took:.1f} s: it waited for the agent's turn"
    assert len(stderr.strip().splitlines()) == 1, stderr
    assert not processes_running(name), "the agent's process is still running"


@pytest.mark.slow
def test_a_killed_joblib_sweep_leaves_no_worker_running(tmp_path):
    process = subprocess.Popen(
        [
            *module_command(),
            "-m",
            "hydra/launcher=joblib",
            "hydra.launcher.n_jobs=2",
            "agent_a=llm_default",
            "agent_b=tft,grim",
            "provider.mock.latency_s=0.2",
            "horizon.rounds=200",
            "run.replicates=1",
            "run.run_id=sweep",
            f"run.output_dir={tmp_path / 'runs'}",
            f"hydra.sweep.dir={tmp_path / 'hydra'}",
        ],
        cwd=ROOT,
        env=subprocess_env(tmp_path),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # its own process group: the launcher and every worker
    )
    shards = tmp_path / "runs" / "sweep" / "shards"
    try:
        # Both workers are playing: each shard's manifest is written once its worker watches the
        # launcher and before its match starts (a match of 200 rounds at 0.2 s, 40 s: the kill
        # lands mid-match). Waiting for rounds.jsonl waited for the whole match to end.
        wait_until(
            lambda: len(list(shards.glob("*/run_manifest.json")) if shards.exists() else []) == 2,
            120,
            process,
        )
        assert len(group_members(process.pid)) >= 3, "the workers are not in the group"
        os.kill(process.pid, signal.SIGKILL)  # the launcher only, as a crash or OOM kill does
        process.wait(timeout=10)
        deadline = time.monotonic() + 20
        while group_members(process.pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        left = group_members(process.pid)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
    assert not left, f"workers left running after the launcher was killed: {left}"
    # Each worker stopped as Ctrl-C does before it exited: its shard says so (resumable).
    statuses = [json.loads(m.read_text())["status"] for m in shards.glob("*/run_manifest.json")]
    assert statuses == ["interrupted", "interrupted"], statuses
