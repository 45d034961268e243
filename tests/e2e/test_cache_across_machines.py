"""A sweep whose jobs never share a cache database: each job writes the answers it buys into a
shard of its own (`<sweep>/cache/<job>.jsonl`), as jobs on separate machines must; the launching
process merges the shards into its cache; and on another machine (another, empty cache folder),
`pdbench cache merge <sweep>` then a re-run of the same grid replays every answer: 0 live calls,
the same rounds.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from project_copy import PDBENCH, PROJECT, command_env, run_in_shared_copy

UV = shutil.which("uv")
pytestmark = pytest.mark.skipif(UV is None, reason="uv is not on PATH")

GRID = [
    "-m",
    "agent_a=llm_default",
    "agent_b=tft,alld",
    "provider=mock",
    "horizon.rounds=5",
    "run.replicates=2",
    "hydra/launcher=joblib",
    "hydra.launcher.n_jobs=2",
]


def sweep(tmp: Path, run_id: str, cache: Path):
    env = {**command_env(tmp), "PDBENCH_CACHE_DIR": str(cache)}
    command = [str(UV), "run", "--project", str(PROJECT), "python", "-m", "pdbench", *GRID]
    command += [f"run.run_id={run_id}", f"run.output_dir={tmp / 'runs'}"]
    command += [f"hydra.sweep.dir={tmp / 'hydra' / run_id}"]
    done = run_in_shared_copy(command, env, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done, tmp / "runs" / run_id


def rounds(run_dir: Path) -> list[dict]:
    rows = [json.loads(line) for line in (run_dir / "rounds.jsonl").read_text().splitlines()]
    for row in rows:
        row.pop("timestamp_utc")
        row.pop("run_id")
    return rows


def calls(run_dir: Path) -> dict:
    return json.loads((run_dir / "run_manifest.json").read_text())["provider_calls"]


@pytest.mark.slow
def test_separate_caches_replay_everything_after_a_merge(tmp_path):
    first_machine = tmp_path / "cache-1"
    done, first = sweep(tmp_path, "first", first_machine)
    live = calls(first)["live"]
    assert live > 0
    shards = sorted((first / "cache").glob("*.jsonl"))
    assert len(shards) == 2  # one per job, each written by that job only
    bought = sum(len(p.read_text().splitlines()) for p in shards)
    assert bought == live
    assert f"cache: {live} answers from the jobs' shards merged" in done.stderr

    env = {**command_env(tmp_path), "PDBENCH_CACHE_DIR": str(tmp_path / "unused")}
    other_machine = tmp_path / "cache-2"
    merged = run_in_shared_copy(
        [PDBENCH, "cache", "merge", str(first), "--into", str(other_machine)], env, timeout=120
    )
    assert merged.returncode == 0, merged.stderr
    assert f"{live} answers added, 0 already there" in merged.stdout
    verified = run_in_shared_copy([PDBENCH, "cache", "verify", str(other_machine)], env, 120)
    assert verified.returncode == 0, verified.stderr
    assert f"{live} entries checked, 0 bad" in verified.stdout

    _, again = sweep(tmp_path, "again", other_machine)
    assert calls(again)["live"] == 0
    assert calls(again)["cached"] == calls(first)["live"] + calls(first)["cached"]
    assert rounds(again) == rounds(first)
