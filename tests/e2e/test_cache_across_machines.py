"""A sweep whose jobs never share a cache database: each job writes the answers it buys into a
shard of its own (`<sweep>/cache/<job>.jsonl`), as jobs on separate machines must; the launching
process merges the shards into its cache; and on another machine (another, empty cache folder),
`pdbench cache merge <sweep>` then a re-run of the same grid replays every answer: 0 live calls,
the same rounds. And when every job has a cache folder of its own (a node-local cache on each
machine), each job keeps what it bought in its own folder: merging those folders gives one cache
that replays the whole sweep, with no call reaching the server.

The sweeps that buy answers are real `python -m pdbench -m` processes whose jobs run in joblib's
worker processes (a process per job, as on separate machines); the merges, the checks and the
replays run through the same entry functions in the test's process (tests/in_process.py).
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from in_process import Ran, run_front_door
from project_copy import PROJECT, command_env, run_in_shared_copy, shared_copy

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration"))
from openai_stub_server import StubServer

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


def sweep(tmp: Path, run_id: str, cache: Path, grid: list[str] = GRID):
    env = {**command_env(tmp), "PDBENCH_CACHE_DIR": str(cache)}
    command = [str(UV), "run", "--project", str(PROJECT), "python", "-m", "pdbench", *grid]
    command += [f"run.run_id={run_id}", f"run.output_dir={tmp / 'runs'}"]
    command += [f"hydra.sweep.dir={tmp / 'hydra' / run_id}"]
    done = run_in_shared_copy(command, env, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done, tmp / "runs" / run_id


def replay_sweep(tmp: Path, run_id: str, cache: Path, grid: list[str] = GRID):
    """The same grid again, on another machine's cache, through the Hydra door in this process:
    its jobs one after the other (Hydra's basic launcher), since a replay buys nothing and needs
    no process of its own per job; what is checked is that every answer comes from `cache`."""
    serial = [o for o in grid if not o.startswith(("hydra/launcher=", "hydra.launcher."))]
    args = [*serial, f"run.run_id={run_id}", f"run.output_dir={tmp / 'runs'}"]
    args += [f"hydra.sweep.dir={tmp / 'hydra' / run_id}"]
    env = {**command_env(tmp), "PDBENCH_CACHE_DIR": str(cache)}
    done = run_front_door("module", args, cwd=shared_copy(), env=env)
    assert done.code == 0, done.stderr[-3000:]
    return tmp / "runs" / run_id


def cache_command(tmp: Path, *args: str) -> Ran:
    """`pdbench cache ...` in this process, with a default cache folder no test uses."""
    env = {**command_env(tmp), "PDBENCH_CACHE_DIR": str(tmp / "unused")}
    return run_front_door("cli", ["cache", *args], cwd=shared_copy(), env=env)


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
    lines = [line for p in shards for line in p.read_text().splitlines()]
    assert len(lines) == live  # every answer a job bought is in its shard
    # Two jobs may buy one answer (the same first-round prompt, asked at the same time): the
    # merge keeps it once.
    bought = len({json.loads(line)["key"] for line in lines})
    twice = live - bought
    assert f"cache: {bought} answers from the jobs' shards merged" in done.stderr

    other_machine = tmp_path / "cache-2"
    merged = cache_command(tmp_path, "merge", str(first), "--into", str(other_machine))
    assert merged.code == 0, merged.stderr
    assert f"{bought} answers added, {twice} already there" in merged.stdout
    verified = cache_command(tmp_path, "verify", str(other_machine))
    assert verified.code == 0, verified.stderr
    assert f"{bought} entries checked, 0 bad" in verified.stdout

    again = replay_sweep(tmp_path, "again", other_machine)
    assert calls(again)["live"] == 0
    assert calls(again)["cached"] == calls(first)["live"] + calls(first)["cached"]
    assert rounds(again) == rounds(first)


def shard_lines(folder: Path) -> int:
    return sum(len(p.read_text().splitlines()) for p in folder.rglob("*.jsonl"))


def shard_text(cache_folder: Path) -> list[str]:
    return [
        line for p in (cache_folder / "shards").rglob("*.jsonl") for line in p.read_text().split()
    ]


@pytest.mark.slow
def test_jobs_with_caches_of_their_own_replay_everything_after_merging_those_caches(tmp_path):
    """Each job's cache folder is its own (Hydra sets PDBENCH_CACHE_DIR per job, as a node-local
    cache on each machine would be); the calls go over HTTP to a stub server that counts them."""
    with StubServer() as server:
        grid = [*GRID[:3], "provider=litellm", "provider.model=openai/test-model"]
        grid += [f"provider.api_base={server.api_base}", *GRID[4:]]
        per_job = f"+hydra.job.env_set.PDBENCH_CACHE_DIR={tmp_path}/machine-${{hydra:job.num}}"
        _, first = sweep(tmp_path, "first", tmp_path / "launcher", [*grid, per_job])
        live = len(server.state.requests)
        assert live > 0
        assert calls(first)["live"] == live

        machines = [tmp_path / "machine-0", tmp_path / "machine-1"]
        assert [shard_lines(m / "shards") > 0 for m in machines] == [True, True]
        assert sum(shard_lines(m / "shards") for m in machines) == live  # what each job bought

        merged_cache = tmp_path / "merged"
        merged = cache_command(tmp_path, "merge", *map(str, machines), "--into", str(merged_cache))
        assert merged.code == 0, merged.stderr
        # Two jobs may buy one answer (the same first-round prompt, asked at the same time).
        bought = {json.loads(line)["key"] for m in machines for line in shard_text(m)}
        twice = live - len(bought)
        assert f"{len(bought)} answers added, {twice} already there" in merged.stdout
        verified = cache_command(tmp_path, "verify", str(merged_cache))
        assert verified.code == 0, verified.stderr
        assert f"{len(bought)} entries checked, 0 bad" in verified.stdout

        server.reset()
        again = replay_sweep(tmp_path, "again", merged_cache, grid)
        assert len(server.state.requests) == 0  # not one call reached the server
    assert calls(again)["live"] == 0
    assert calls(again)["cached"] == calls(first)["live"] + calls(first)["cached"]
    # An answer both jobs bought is replayed in one of its two copies (its response id).
    replayed, bought_ids = rounds(again), rounds(first)
    assert response_ids(replayed) <= response_ids(bought_ids)
    assert without_response_ids(replayed) == without_response_ids(bought_ids)


def response_ids(rows: list[dict]) -> set[str]:
    return {a.get("response_id") for row in rows for a in row["agent_a_attempts"]}


def without_response_ids(rows: list[dict]) -> list[dict]:
    for row in rows:
        for attempt in row["agent_a_attempts"]:
            attempt.pop("response_id", None)
    return rows
