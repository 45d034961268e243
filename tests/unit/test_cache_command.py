"""`pdbench cache`: verify names an entry whose checksum no longer matches its key and answer,
prune moves it to a kept file and leaves the good ones, merge copies a sweep's shards, and list
counts them."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
from in_process import run_front_door

from pdbench.providers.cache import ReplayCache
from pdbench.providers.cache_shards import ShardedCache


def cli(args: list[str], tmp: Path):
    env = {**os.environ, "PDBENCH_CACHE_DIR": str(tmp / "default")}
    return run_front_door("cli", args, cwd=tmp, env=env)


def damaged_cache(folder: Path) -> None:
    with ReplayCache(folder) as cache:
        cache.set("good", {"text": "C"})
        cache.set("edited", {"text": "C"})
        entry = orjson.loads(cache._cache.get("edited"))
        entry["value"]["text"] = "D"  # edited after it was stored: the checksum no longer fits
        cache._cache.set("edited", orjson.dumps(entry).decode())


def test_verify_names_the_bad_entry_and_prune_keeps_it_aside(tmp_path):
    folder = tmp_path / "cache"
    damaged_cache(folder)
    checked = cli(["cache", "verify", str(folder)], tmp_path)
    assert checked.code == 1
    assert "2 entries checked, 1 bad" in checked.stdout
    assert "key edited: its checksum does not match" in checked.stderr

    pruned = cli(["cache", "prune", str(folder)], tmp_path)
    assert pruned.code == 0, pruned.stderr
    assert "removed 1 bad entries" in pruned.stdout
    (kept,) = folder.glob("pruned-*.jsonl")
    assert orjson.loads(kept.read_bytes())["key"] == "edited"
    with ReplayCache(folder) as cache:
        assert cache.stored_keys() == ["good"]
        assert cache.get("good") == {"text": "C"}
    assert cli(["cache", "verify", str(folder)], tmp_path).code == 0


def test_merge_and_list_a_sweeps_shards(tmp_path):
    sweep = tmp_path / "sweep"
    for job, answer in (("job-a", "C"), ("job-b", "D")):
        shard = ShardedCache(sweep / "cache", job, None)
        shard.set(f"key-{job}", {"text": answer})
    with (sweep / "cache" / "job-b.jsonl").open("ab") as out:
        out.write(b'{"key": "torn", "checksum": "0", "value": {"text": "C"}}\n')

    listed = cli(["cache", "list", str(sweep)], tmp_path)
    assert listed.code == 0, listed.stderr
    assert "job-a.jsonl: shard, 1 answers, 0 damaged" in listed.stdout
    assert "job-b.jsonl: shard, 1 answers, 1 damaged" in listed.stdout

    merged = cli(["cache", "merge", str(sweep), "--into", str(tmp_path / "into")], tmp_path)
    assert merged.code == 1  # the damaged line is named and skipped
    assert "2 answers added, 0 already there" in merged.stdout
    assert "job-b.jsonl line 2: its checksum does not match" in merged.stderr
    with ReplayCache(tmp_path / "into") as cache:
        assert cache.get("key-job-a") == {"text": "C"}
        assert cache.get("key-job-b") == {"text": "D"}
        assert cache.get("torn") is None
    again = cli(["cache", "merge", str(sweep), "--into", str(tmp_path / "into")], tmp_path)
    assert "0 answers added, 2 already there" in again.stdout


def test_a_job_reads_the_answers_other_jobs_bought(tmp_path):
    """Two jobs' shards: one job replays what the other bought, even after it started."""
    first = ShardedCache(tmp_path / "cache", "job-a", None)
    second = ShardedCache(tmp_path / "cache", "job-b", None)
    first.set("k", {"text": "C"})
    assert second.get("k") == {"text": "C"}
    assert not (tmp_path / "cache" / "job-b.jsonl").exists()  # nothing written by a reader


def test_a_missing_cache_folder_is_one_error_line(tmp_path):
    done = cli(["cache", "verify", str(tmp_path / "nowhere")], tmp_path)
    assert done.code == 2
    assert done.stderr.strip().startswith("error:") and "nowhere" in done.stderr
    assert "Traceback" not in done.stderr


def test_aggregate_merges_a_sweeps_cache_shards_into_the_cache(tmp_path):
    """A launcher that did not see the end of the sweep: `pdbench aggregate` merges the shards,
    and the answers the jobs bought with them."""
    from project_copy import copy_project

    project = copy_project(tmp_path / "project")
    output = tmp_path / "runs"
    env = {**os.environ, "PDBENCH_CACHE_DIR": str(tmp_path / "launcher-cache")}
    ran = run_front_door(
        "module",
        ["-m", "agent_a=llm_default", "agent_b=tft,alld", "run.replicates=1",
         "horizon.rounds=3", "run.run_id=s", f"run.output_dir={output}",
         f"hydra.sweep.dir={tmp_path / 'hydra'}"],
        cwd=project,
        env=env,
    )  # fmt: skip
    assert ran.code == 0, ran.stderr
    elsewhere = tmp_path / "elsewhere"
    done = run_front_door(
        "cli",
        ["aggregate", str(output / "s")],
        cwd=project,
        env={**os.environ, "PDBENCH_CACHE_DIR": str(elsewhere)},
    )
    assert done.code == 0, done.stderr
    assert "answers from the jobs' shards merged into" in done.stderr
    with ReplayCache(elsewhere) as cache:
        assert len(cache.stored_keys()) > 0


def test_a_source_that_is_no_cache_is_refused_before_anything_is_written(tmp_path):
    done = cli(["cache", "merge", str(tmp_path / "nope"), "--into", str(tmp_path / "t")], tmp_path)
    assert done.code == 2
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("error: ")
    assert "nope" in done.stderr
    assert not (tmp_path / "t").exists()


def test_a_job_keeps_what_it_bought_in_its_own_cache_folder_and_merge_reads_it(tmp_path):
    """Two jobs of one sweep, each with a cache folder of its own (two machines): each folder
    keeps what its job bought; merging the folders gives one cache with every answer, and a
    damaged kept line is named and skipped."""
    sweep = tmp_path / "runs" / "sweep-1"
    for job, answer in (("job-a", "C"), ("job-b", "D")):
        shard = ShardedCache(sweep / "cache", job, ReplayCache(tmp_path / f"machine-{job}"))
        shard.set(f"key-{job}", {"text": answer})
        shard.close()
    kept = tmp_path / "machine-job-b" / "shards" / "sweep-1" / "job-b.jsonl"
    assert kept.read_bytes() == (sweep / "cache" / "job-b.jsonl").read_bytes()

    machines = [str(tmp_path / "machine-job-a"), str(tmp_path / "machine-job-b")]
    listed = cli(["cache", "list", *machines], tmp_path)
    assert "shards/sweep-1/job-a.jsonl: shard, 1 answers, 0 damaged" in listed.stdout
    merged = cli(["cache", "merge", *machines, "--into", str(tmp_path / "merged")], tmp_path)
    assert merged.code == 0, merged.stderr
    assert "2 answers added, 0 already there" in merged.stdout
    with ReplayCache(tmp_path / "merged") as cache:
        assert cache.get("key-job-a") == {"text": "C"} and cache.get("key-job-b") == {"text": "D"}

    with kept.open("ab") as out:
        out.write(b'{"key": "torn", "checksum": "0", "value": {"text": "C"}}\n')
    checked = cli(["cache", "verify", machines[1]], tmp_path)
    assert checked.code == 1
    assert "job-b.jsonl line 2: its checksum does not match" in checked.stderr
    again = cli(["cache", "merge", machines[1], "--into", str(tmp_path / "merged")], tmp_path)
    assert again.code == 1 and "1 already there" in again.stdout
