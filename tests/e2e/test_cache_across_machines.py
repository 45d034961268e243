"""A sweep whose jobs never share a cache database: each job writes the answers it buys into a
shard of its own (`<sweep>/cache/<job>.jsonl`), as jobs on separate machines must; the launching
process merges the shards into its cache; and on another machine (another, empty cache folder),
`pdbench cache merge <sweep>` then a re-run of the same grid replays every answer: 0 live calls,
the same rounds. And when every job has a cache folder of its own (a node-local cache on each
machine), each job keeps what it bought in its own folder: merging those folders gives one cache
that replays the whole sweep, with no call reaching the server.

The sweep that buys answers is a real `python -m pdbench -m` process whose jobs run in joblib's
worker processes (a process per job, as on separate machines), over HTTP to a stub server; one
such sweep serves both cases (module fixture `bought`), since it leaves both kinds of shard. The
merges, the checks and the replays run through the same entry functions in the test's process
(tests/in_process.py).
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

from pdbench.games.matrix.stored import as_rounds

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
    stored = (run_dir / "rounds.jsonl").read_text().splitlines()
    rows = list(as_rounds(json.loads(line) for line in stored))  # as the readers read them
    for row in rows:
        row.pop("timestamp_utc")
        row.pop("run_id")
    return rows


def calls(run_dir: Path) -> dict:
    return json.loads((run_dir / "run_manifest.json").read_text())["provider_calls"]


@pytest.fixture(scope="module")
def bought(tmp_path_factory):
    """One sweep that buys its answers, shared by the two cases (they ran the same grid, one on
    the mock, one over HTTP): its jobs in a process each (joblib), over HTTP to a stub server that
    counts the calls, each job with a cache folder of its own (Hydra sets PDBENCH_CACHE_DIR per
    job, as a node-local cache on each machine would be). Each job also writes what it buys into
    its shard of the sweep (`<sweep>/cache/<job>.jsonl`), which the launcher merges into its own
    cache: the first case's property, on the same run. Yields (server, sweep process, run dir,
    temp folder, grid)."""
    tmp = tmp_path_factory.mktemp("bought")
    with StubServer() as server:
        grid = [*GRID[:3], "provider=litellm", "provider.model=openai/test-model"]
        grid += [f"provider.api_base={server.api_base}", *GRID[4:]]
        per_job = f"+hydra.job.env_set.PDBENCH_CACHE_DIR={tmp}/machine-${{hydra:job.num}}"
        done, first = sweep(tmp, "first", tmp / "launcher", [*grid, per_job])
        yield server, done, first, tmp, grid


@pytest.mark.slow
def test_separate_caches_replay_everything_after_a_merge(bought, tmp_path):
    _, done, first, _, _ = bought
    live = calls(first)["live"]
    assert live > 0
    shards = sorted((first / "cache").glob("*.jsonl"))
    assert len(shards) == 2  # one per job, each written by that job only
    lines = [line for p in shards for line in p.read_text().splitlines()]
    assert len(lines) == live  # every answer a job bought is in its shard
    # Two jobs may buy one answer (the same first-round prompt, asked at the same time): the
    # merge keeps it once.
    bought_keys = len({json.loads(line)["key"] for line in lines})
    twice = live - bought_keys
    assert f"cache: {bought_keys} answers from the jobs' shards merged" in done.stderr

    merge_then_replay(tmp_path, [first], tmp_path / "cache-2", bought_keys, twice, bought)


def shard_lines(folder: Path) -> int:
    return sum(len(p.read_text().splitlines()) for p in folder.rglob("*.jsonl"))


def shard_text(cache_folder: Path) -> list[str]:
    return [
        line for p in (cache_folder / "shards").rglob("*.jsonl") for line in p.read_text().split()
    ]


@pytest.mark.slow
def test_jobs_with_caches_of_their_own_replay_everything_after_merging_those_caches(
    bought, tmp_path
):
    """Each job's cache folder is its own; merging those folders gives one cache that replays
    the whole sweep, with no call reaching the server."""
    _, _, first, tmp, _ = bought
    live = calls(first)["live"]
    assert live > 0
    machines = [tmp / "machine-0", tmp / "machine-1"]
    assert [shard_lines(m / "shards") > 0 for m in machines] == [True, True]
    assert sum(shard_lines(m / "shards") for m in machines) == live  # what each job bought

    # Two jobs may buy one answer (the same first-round prompt, asked at the same time).
    bought_keys = len({json.loads(line)["key"] for m in machines for line in shard_text(m)})
    merge_then_replay(
        tmp_path, machines, tmp_path / "merged", bought_keys, live - bought_keys, bought
    )


def assert_same_rounds(replayed: list[dict], bought_rows: list[dict]) -> None:
    """The same rounds; an answer both jobs bought is replayed in one of its two copies (its
    response id, the one field the stub makes different for each call)."""
    assert response_ids(replayed) <= response_ids(bought_rows)
    assert without_response_ids(replayed) == without_response_ids(bought_rows)


def response_ids(rows: list[dict]) -> set[str]:
    return {a.get("response_id") for row in rows for a in row["agent_a_attempts"]}


def without_response_ids(rows: list[dict]) -> list[dict]:
    for row in rows:
        for attempt in row["agent_a_attempts"]:
            attempt.pop("response_id", None)
    return rows


def merge_then_replay(
    tmp_path: Path, sources: list[Path], into: Path, bought_keys: int, twice: int, bought
) -> None:
    """`cache merge` the sources into one cache (each answer bought once added, the answers
    two jobs both bought counted as already there), `cache verify` it, then replay the bought
    sweep from it: not one call may reach the server, and the rounds are the first sweep's."""
    server, _, first, _, grid = bought
    merged = cache_command(tmp_path, "merge", *map(str, sources), "--into", str(into))
    assert merged.code == 0, merged.stderr
    assert f"{bought_keys} answers added, {twice} already there" in merged.stdout
    verified = cache_command(tmp_path, "verify", str(into))
    assert verified.code == 0, verified.stderr
    assert f"{bought_keys} entries checked, 0 bad" in verified.stdout

    server.reset()
    again = replay_sweep(tmp_path, "again", into, grid)
    assert len(server.state.requests) == 0  # not one call reached the server
    assert calls(again)["live"] == 0
    assert calls(again)["cached"] == calls(first)["live"] + calls(first)["cached"]
    assert_same_rounds(rounds(again), rounds(first))
