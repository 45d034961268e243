"""Hydra's front door, `python -m pdbench [-m] overrides`, run as a user types it in a copy of the
committed project (tests/project_copy.py; `uv run --project <checkout>` keeps the checkout's
environment): a sweep is one run dir (shards merged at the end), a single run is a plain run dir, and the
joblib and submitit_local launchers store the same rounds as the serial launcher. The launchers'
grid runs as processes; the one-run and one-sweep checks, about what a run stores and prints, run
in this process (tests/in_process.py: the same entry, argv, folder and environment).

Every command points run.output_dir and Hydra's own output folder (hydra.run.dir /
hydra.sweep.dir) into a temp folder, so nothing lands in data/ or outputs/.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path

import pandas as pd
import pytest
from in_process import run_front_door
from project_copy import PROJECT, command_env, shared_copy, start_in_shared_copy

UV = shutil.which("uv")
# Two jobs, each launcher's parallel workers (joblib's two, submitit's job per condition) get one
# each: every process the launchers start costs an interpreter and pdbench's imports.
GRID = ["-m", "agent_a=tft,grim", "agent_b=alld"]
GRID_CONDITIONS = {"agent_a=tft", "agent_a=grim"}  # a swept key names a condition

pytestmark = pytest.mark.skipif(UV is None, reason="uv is not on PATH")


def pdbench_module(*args: str, tmp: Path) -> list[str]:
    return [str(UV), "run", "--project", str(PROJECT), "python", "-m", "pdbench", *args]


def run_here(args: list[str], tmp: Path) -> subprocess.CompletedProcess:
    """`python -m pdbench <args>` in the shared copy with `command_env(tmp)`, run in this process
    (tests/in_process.py: the same entry function, argv, folder and environment; no interpreter
    start and imports): these tests are about what a run stores and prints, not the process."""
    done = run_front_door("module", args, cwd=shared_copy(), env=command_env(tmp))
    return subprocess.CompletedProcess(
        ["python", "-m", "pdbench", *args], done.code, done.stdout, done.stderr
    )


def ok(proc) -> None:
    assert proc.returncode == 0, f"exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    assert "Traceback" not in proc.stderr, proc.stderr


def rounds_without_timestamps(run_dir: Path) -> list[dict]:
    rows = []
    for line in (run_dir / "rounds.jsonl").read_text().splitlines():
        row = json.loads(line)
        assert row.pop("timestamp_utc")
        rows.append(row)
    return rows


def only_run_dir(output: Path) -> Path:
    """The one run folder in `output` (beside the workspace's deal.key)."""
    dirs = [d for d in output.iterdir() if d.is_dir()]
    assert len(dirs) == 1, dirs
    return dirs[0]


def test_sweep_is_one_run_with_one_condition_per_job(tmp_path):
    output = tmp_path / "runs"
    proc = run_here(
        [
            "-m",
            "agent_a=tft,grim",
            "persona=cooperative",
            f"run.output_dir={output}",
            f"hydra.sweep.dir={tmp_path / 'hydra'}",
        ],
        tmp_path,
    )
    ok(proc)
    run_dir = only_run_dir(output)
    assert run_dir.name.startswith("sweep-")
    for name in ("rounds.jsonl", "run_manifest.json", "aggregates.parquet"):
        assert (run_dir / name).is_file(), name
    # Conditions are named by the keys that vary (issue 14); persona is a fixed override.
    expected = {"agent_a=tft", "agent_a=grim"}

    rounds = rounds_without_timestamps(run_dir)
    assert {r["condition"] for r in rounds} == expected
    assert {r["run_id"] for r in rounds} == {run_dir.name}
    assert {r["agent_a"] for r in rounds} == {"TFT", "GRIM"}
    assert {r["replicate"] for r in rounds} == {0, 1, 2}

    table = pd.read_parquet(run_dir / "aggregates.parquet")
    assert set(table["condition"]) == expected

    manifest = json.loads((run_dir / "run_manifest.json").read_text())
    assert manifest["status"] == "complete"
    assert manifest.get("kind") == "sweep"
    assert set(manifest["conditions"]) == expected
    shards = list((run_dir / "shards").iterdir())
    assert len(shards) == 2
    assert f"run {run_dir.name}: complete" in proc.stdout
    # One deal for the whole sweep: its jobs copied the sweep's key, a copy of the workspace's.
    workspace = (output / "deal.key").read_bytes()
    assert [(d / "deal.key").read_bytes() for d in (run_dir, *shards)] == [workspace] * 3
    assert manifest["deal"]["file"] == "deal.key"
    assert {json.loads((d / "run_manifest.json").read_text())["deal"]["fingerprint"]
            for d in shards} == {manifest["deal"]["fingerprint"]}  # fmt: skip


def test_a_sweep_composes_each_job_once_before_launch_and_once_to_run_it(tmp_path, monkeypatch):
    """The preflight composes and validates every job before Hydra launches anything; Hydra's
    sweeper would compose every job once more only to validate the batch (a second pass over
    a grid of hundreds of jobs before the first starts), so it is told the batch is checked."""
    from hydra._internal.config_loader_impl import ConfigLoaderImpl

    import pdbench.cli.hydra_door as door

    composed: list[str] = []
    by_preflight, by_hydra = door.compose_primary, ConfigLoaderImpl.load_sweep_config

    def preflight_compose(*args, **kwargs):
        composed.append("preflight")
        return by_preflight(*args, **kwargs)

    def hydra_compose(self, *args, **kwargs):
        composed.append("hydra")
        return by_hydra(self, *args, **kwargs)

    monkeypatch.setattr(door, "compose_primary", preflight_compose)
    monkeypatch.setattr(ConfigLoaderImpl, "load_sweep_config", hydra_compose)
    output = tmp_path / "runs"
    args = [*GRID, "horizon.rounds=3", "run.replicates=1", f"run.output_dir={output}"]
    ok(run_here([*args, f"hydra.sweep.dir={tmp_path / 'hydra'}"], tmp_path))
    assert sorted(composed) == ["hydra", "hydra", "preflight", "preflight"]
    rounds = rounds_without_timestamps(only_run_dir(output))
    assert {r["condition"] for r in rounds} == GRID_CONDITIONS


def test_single_hydra_run_without_multirun(tmp_path):
    output = tmp_path / "runs"
    proc = run_here(
        [
            "agent_a=gtft",
            "agent_b=alld",
            "horizon=geometric",
            "horizon.stop_prob=0.05",
            "run.replicates=2",
            f"run.output_dir={output}",
            f"hydra.run.dir={tmp_path / 'hydra'}",
        ],
        tmp_path,
    )
    ok(proc)
    run_dir = only_run_dir(output)
    assert run_dir.name.startswith("config-")
    assert not (run_dir / "shards").exists()
    for name in ("rounds.jsonl", "run_manifest.json", "aggregates.parquet"):
        assert (run_dir / name).is_file(), name
    rounds = rounds_without_timestamps(run_dir)
    name = "agent_a=gtft,agent_b=alld,horizon.stop_prob=0.05,horizon=geometric"
    assert {r["condition"] for r in rounds} == {name}
    assert {(r["horizon_type"], r["stop_prob"], r["fixed_n"]) for r in rounds} == {
        ("geometric", 0.05, None)
    }
    assert {(r["agent_a"], r["agent_b"]) for r in rounds} == {("GTFT", "ALLD")}
    assert {r["replicate"] for r in rounds} == {0, 1}
    manifest = json.loads((run_dir / "run_manifest.json").read_text())
    assert manifest["status"] == "complete"
    assert manifest["conditions"] == [name]
    assert name in proc.stdout


# --- launchers -------------------------------------------------------------------------------


LAUNCHERS = {
    "serial": [],
    "joblib": ["hydra/launcher=joblib"],
    "submitit_local": ["hydra/launcher=submitit_local", "hydra.launcher.timeout_min=5"],
}


@pytest.fixture(scope="module")
def grid_runs(tmp_path_factory):
    """The same 2x2 grid under every launcher, started together (they share no files: each has
    its own output dir, Hydra dir and cache). Same run id and the same pinned deal key, so the
    rounds must match exactly."""
    tmp = tmp_path_factory.mktemp("launchers")
    key = tmp / "shared.key"
    key.write_text("5a" * 32 + "\n")
    started = time.monotonic()
    procs = {}
    for name, extra in LAUNCHERS.items():
        folder = tmp / name
        folder.mkdir()
        command = pdbench_module(
            *GRID,
            *extra,
            "run.run_id=grid",
            f"run.deal_key_file={key}",
            f"run.output_dir={folder / 'runs'}",
            f"hydra.sweep.dir={folder / 'hydra'}",
            tmp=folder,
        )
        procs[name] = start_in_shared_copy(command, command_env(folder))
    results = {}
    for name, proc in procs.items():
        try:
            stdout, stderr = proc.communicate(timeout=300)
        except subprocess.TimeoutExpired:
            proc.kill()
            stdout, stderr = proc.communicate()
        results[name] = (
            subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr),
            tmp / name / "runs" / "grid",
            time.monotonic() - started,
        )
    return results


def check_grid_run(proc, run_dir: Path) -> None:
    ok(proc)
    assert sorted(p.name for p in run_dir.parent.iterdir()) == ["grid"]
    for name in ("rounds.jsonl", "run_manifest.json", "aggregates.parquet"):
        assert (run_dir / name).is_file(), name
    assert len(list((run_dir / "shards").iterdir())) == len(GRID_CONDITIONS)
    manifest = json.loads((run_dir / "run_manifest.json").read_text())
    assert manifest["status"] == "complete"
    assert set(manifest["conditions"]) == GRID_CONDITIONS


@pytest.mark.slow
@pytest.mark.parametrize("launcher", ["joblib", "submitit_local"])
def test_launcher_gives_the_same_rounds_as_the_serial_sweep(launcher, grid_runs):
    serial, serial_dir, _ = grid_runs["serial"]
    other, other_dir, _ = grid_runs[launcher]
    check_grid_run(serial, serial_dir)
    check_grid_run(other, other_dir)
    serial_rounds = rounds_without_timestamps(serial_dir)
    assert {r["condition"] for r in serial_rounds} == GRID_CONDITIONS
    assert len(serial_rounds) == len(GRID_CONDITIONS) * 3 * 20
    assert rounds_without_timestamps(other_dir) == serial_rounds
    pd.testing.assert_frame_equal(
        pd.read_parquet(other_dir / "aggregates.parquet"),
        pd.read_parquet(serial_dir / "aggregates.parquet"),
    )
