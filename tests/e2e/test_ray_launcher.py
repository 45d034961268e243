"""`hydra/launcher=ray` on a real Ray cluster of one node: a head started here with `ray start
--head` (small memory, its own temp folder and port, stopped in a finalizer whatever happens),
joined with `hydra.launcher.ray.init.address=auto` (and RAY_ADDRESS=<head>, so that `auto` can
only mean this test's head) as a user joins a running cluster. The same
tiny sweep (2 jobs, an LLM agent on the mock provider, 6 rounds) under Ray and under Hydra's own
serial launcher must store the same rounds (every field of every line but timestamp_utc, in file
order) and the same aggregates.parquet (every column, compared as frames). The serial sweep starts
before the head and runs while it starts (they share nothing). That joblib and submitit_local
store what the serial launcher stores is tests/e2e/test_hydra_sweeps.py's: checked here again,
they cost two more sweeps' processes and added nothing.

Ray binds to this machine's own address, not only to loopback: the Ray processes (and the sweep
that joins them) run with PDBENCH_TEST_ALLOW_OWN_ADDRESSES=1, which lets tests/network_guard
reach this machine's addresses too, in those processes only.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import socket
import subprocess
from pathlib import Path

import pandas as pd
import pytest
from project_copy import (
    PROJECT,
    command_env,
    run_in_shared_copy,
    shared_copy,
    start_in_shared_copy,
)

UV = shutil.which("uv")
RAY = Path(PROJECT / ".venv" / "bin" / "ray")
pytestmark = pytest.mark.skipif(UV is None, reason="uv is not on PATH")
needs_ray = pytest.mark.skipif(
    importlib.util.find_spec("ray") is None or not RAY.exists(),
    reason="the `ray` group is not installed (uv sync --group ray)",
)

SWEEP = [
    "-m",
    "agent_a=llm_default",
    "agent_b=tft,alld",
    "provider=mock",
    "horizon.rounds=6",
    "run.replicates=2",
    "run.run_id=tiny",
]
LAUNCHERS = {"serial": []}  # the reference the Ray sweep must match


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def ray_env(tmp: Path) -> dict[str, str]:
    env = command_env(tmp)
    env["PDBENCH_TEST_ALLOW_OWN_ADDRESSES"] = "1"
    env["RAY_TMPDIR"] = str(tmp / "ray")  # short: Ray's socket paths must stay under 107 bytes
    env["RAY_USAGE_STATS_ENABLED"] = "0"
    # A throwaway cluster of this test's own: no token to hand from the head to the sweep.
    env["RAY_AUTH_MODE"] = "disabled"
    return env


@pytest.fixture(scope="module")
def ray_head(tmp_path_factory):
    """A Ray head on this machine: 1 CPU worker slot each for 2 jobs, 80 MB object store."""
    tmp = Path(tmp_path_factory.mktemp("rayhead"))
    port = free_port()
    env = ray_env(tmp)
    env["RAY_TMPDIR"] = f"/tmp/pdbray{port}"
    started = subprocess.run(
        [
            str(RAY),
            "start",
            "--head",
            f"--port={port}",
            "--num-cpus=2",
            "--object-store-memory=80000000",
            "--memory=500000000",
            "--include-dashboard=false",
            "--disable-usage-stats",
        ],
        cwd=shared_copy(),
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    try:
        assert started.returncode == 0, started.stdout[-2000:] + started.stderr[-2000:]
        yield f"127.0.0.1:{port}", env
    finally:
        subprocess.run(
            [str(RAY), "stop", "--force"], env=env, capture_output=True, timeout=120, check=False
        )
        shutil.rmtree(env["RAY_TMPDIR"], ignore_errors=True)


def sweep_command(folder: Path, extra: list[str]) -> list[str]:
    return [
        str(UV),
        "run",
        "--project",
        str(PROJECT),
        "python",
        "-m",
        "pdbench",
        *SWEEP,
        *extra,
        f"run.output_dir={folder / 'runs'}",
        f"hydra.sweep.dir={folder / 'hydra'}",
        # each launcher's sweep has its own output folder, so its own workspace key unless one
        # is pinned: the same key deals the same rounds (docs/security.md)
        f"run.deal_key_file={PROJECT / 'tests' / 'golden' / 'deal.key'}",
    ]


def sweep(folder: Path, extra: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return run_in_shared_copy(sweep_command(folder, extra), env, timeout=400)


@pytest.fixture(scope="module")
def reference_sweeps(tmp_path_factory):
    """The reference sweeps, started (not awaited) before the Ray head, so they run while it
    starts: the same commands as the Ray sweep's, each in its own folder with its own cache, so
    nothing is shared; the test waits for each to exit and checks what it stored.
    Listed before ray_head in the test's arguments, so set up first."""
    tmp = Path(tmp_path_factory.mktemp("reference"))
    started = {}
    for name, extra in LAUNCHERS.items():
        folder = tmp / name
        folder.mkdir()
        env = {**ray_env(folder), "PDBENCH_CACHE_DIR": str(folder / "cache")}
        started[name] = (start_in_shared_copy(sweep_command(folder, extra), env), folder)
    yield started
    for proc, _ in started.values():
        if proc.poll() is None:  # the test failed before waiting for it
            proc.kill()
            proc.communicate()


def finished(proc: subprocess.Popen, timeout: float = 400) -> subprocess.CompletedProcess:
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        stdout, stderr = proc.communicate()
    return subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)


def rounds_without_timestamps(run_dir: Path) -> list[dict]:
    rows = []
    for line in (run_dir / "rounds.jsonl").read_text().splitlines():
        row = json.loads(line)
        assert row.pop("timestamp_utc")
        rows.append(row)
    return rows


@pytest.mark.slow
@needs_ray
def test_a_ray_sweep_stores_what_the_serial_sweep_stores(reference_sweeps, ray_head, tmp_path):
    address, env = ray_head
    folder = tmp_path / "ray"
    folder.mkdir()
    # `auto` joins the cluster RAY_ADDRESS names (not another one here)
    run_env = {**env, "PDBENCH_CACHE_DIR": str(folder / "cache"), "RAY_ADDRESS": address}
    ray_extra = ["hydra/launcher=ray", "hydra.launcher.ray.init.address=auto"]
    runs = {"ray": (sweep(folder, ray_extra, run_env), folder)}
    runs |= {name: (finished(proc), where) for name, (proc, where) in reference_sweeps.items()}
    results = {}
    for name, (done, where) in runs.items():
        assert done.returncode == 0, f"{name}: exit {done.returncode}\n{done.stderr[-3000:]}"
        assert "Traceback" not in done.stderr, done.stderr
        results[name] = where / "runs" / "tiny"
    ray_out = results["ray"]
    manifest = json.loads((ray_out / "run_manifest.json").read_text())
    assert manifest["status"] == "complete"
    assert manifest["provider_calls"]["live"] > 0
    assert len(list((ray_out / "shards").iterdir())) == 2
    expected = rounds_without_timestamps(results["serial"])
    assert len(expected) == 2 * 2 * 6
    assert {r["condition"] for r in expected} == {"agent_b=tft", "agent_b=alld"}
    assert rounds_without_timestamps(ray_out) == expected
    pd.testing.assert_frame_equal(
        pd.read_parquet(ray_out / "aggregates.parquet"),
        pd.read_parquet(results["serial"] / "aggregates.parquet"),
    )


def test_a_launcher_that_is_not_installed_is_one_error_line(tmp_path):
    """hydra/launcher=<x> whose plugin module is missing (as hydra/launcher=ray without the ray
    group): exit 2 and one line before anything is launched, not Hydra's traceback."""
    from in_process import run_front_door
    from project_copy import copy_project

    project = copy_project(tmp_path / "project")
    (project / "conf" / "hydra" / "launcher" / "elsewhere.yaml").write_text(
        "_target_: hydra_plugins.not_installed_launcher.Launcher\n"
    )
    done = run_front_door(
        "module",
        ["-m", "hydra/launcher=elsewhere", "agent_a=tft,grim", f"run.output_dir={tmp_path / 'r'}"],
        cwd=project,
        env=command_env(tmp_path),
    )
    assert done.code == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    assert "the launcher elsewhere is not installed" in lines[0]
    assert "uv sync --group ray" in lines[0]
    assert not (tmp_path / "r").exists()
