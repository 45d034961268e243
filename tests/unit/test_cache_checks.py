"""Issue 40: what the replay cache's checks refuse, and `cache merge` with answers that disagree.

- An entry stored without its checksum (a rewritten one, or one written before entries carried
  checksums) is refused like a damaged one: not replayed, counted bad by `cache verify`; `cache
  migrate` gives genuinely old entries their checksum, on the user's word, and lists them.
- Two sources (or a source and the cache written into) holding different answers for one key is a
  conflict: `cache merge` reports every one, and writes nothing unless told which side wins.
- A shard that is not a regular file (a FIFO, a folder, a link) and a line longer than the cap for
  one answer are refused, each in one line naming the file (and the line).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import diskcache
import orjson
import pytest
from in_process import run_front_door

from pdbench.providers.cache import ReplayCache
from pdbench.providers.cache_shards import ANSWER_LINE_CAP_BYTES, ShardedCache


def cli(args: list[str], tmp: Path, wall_limit_s: float | None = None):
    env = {**os.environ, "PDBENCH_CACHE_DIR": str(tmp / "default")}
    return run_front_door("cli", args, cwd=tmp, env=env, wall_limit_s=wall_limit_s)


# --- entries without a checksum ------------------------------------------------------------------


def test_an_entry_without_its_checksum_is_refused_and_migrate_adopts_it_on_request(tmp_path):
    folder = tmp_path / "cache"
    with ReplayCache(folder) as cache:
        cache.set("good", {"text": "C"})
    with diskcache.Cache(str(folder)) as raw:  # an answer flipped and stored without a checksum
        raw["flipped"] = json.dumps({"text": "D", "input_tokens": 1, "output_tokens": 1})
    said: list[str] = []
    with ReplayCache(folder, warn=said.append) as cache:
        assert cache.get("flipped") is None  # asked again, never replayed
        assert cache.rejected == 1 and "no checksum" in said[0]

    checked = cli(["cache", "verify", str(folder)], tmp_path)
    assert checked.code == 1
    assert "2 entries checked, 1 bad" in checked.stdout
    assert "key flipped: it carries no checksum" in checked.stderr
    assert "pdbench cache migrate" in checked.stderr

    migrated = cli(["cache", "migrate", str(folder)], tmp_path)
    assert migrated.code == 0, migrated.stderr
    (listed,) = folder.glob("migrated-*.jsonl")
    assert [orjson.loads(line)["key"] for line in listed.read_bytes().splitlines()] == ["flipped"]
    assert "1 entries without a checksum were given one" in migrated.stdout
    assert str(listed) in migrated.stdout
    with ReplayCache(folder) as cache:
        assert cache.get("flipped") == {"text": "D", "input_tokens": 1, "output_tokens": 1}
    assert cli(["cache", "verify", str(folder)], tmp_path).code == 0


def test_migrate_leaves_damaged_entries_to_prune(tmp_path):
    folder = tmp_path / "cache"
    with ReplayCache(folder) as cache:
        cache.set("good", {"text": "C"})
    with diskcache.Cache(str(folder)) as raw:
        raw["garbage"] = "{not json"
    migrated = cli(["cache", "migrate", str(folder)], tmp_path)
    assert migrated.code == 0, migrated.stderr
    assert "nothing to migrate" in migrated.stdout
    assert "1 other bad entries" in migrated.stdout and "cache prune" in migrated.stdout
    assert not list(folder.glob("migrated-*.jsonl"))


# --- conflicts ------------------------------------------------------------------------------------


def two_machines(tmp_path: Path) -> list[str]:
    """Two sweep folders whose jobs bought: the same answer twice (another response id), two
    different answers for one key, and an answer each that the other lacks."""
    answers = {
        "machine-0": {"same": ("C", "r1"), "differs": ("C", "r2"), "only-0": ("C", "r3")},
        "machine-1": {"same": ("C", "r4"), "differs": ("D", "r5"), "only-1": ("D", "r6")},
    }
    for machine, bought in answers.items():
        shard = ShardedCache(tmp_path / machine / "cache", "job", None)
        for key, (text, response_id) in bought.items():
            shard.set(key, {"text": text, "response_id": response_id})
    return [str(tmp_path / "machine-0"), str(tmp_path / "machine-1")]


def test_conflicting_answers_are_reported_and_nothing_is_merged_by_default(tmp_path):
    into = tmp_path / "merged"
    done = cli(["cache", "merge", *two_machines(tmp_path), "--into", str(into)], tmp_path)
    assert done.code == 2
    lines = done.stderr.splitlines()
    assert lines[0] == (
        f'conflict: key differs: {tmp_path}/machine-0/cache/job.jsonl line 2 answers "C", '
        f'{tmp_path}/machine-1/cache/job.jsonl line 2 answers "D"'
    )
    assert lines[-1].startswith("error: 1 key holds different answers in the sources (above):")
    assert "nothing was merged" in lines[-1] and "--on-conflict keep" in lines[-1]
    assert len(lines) == 2
    with ReplayCache(into) as cache:
        assert cache.stored_keys() == []


@pytest.mark.parametrize(("choice", "wins"), [("keep", "C"), ("replace", "D")])
def test_the_user_chooses_which_side_wins(tmp_path, choice, wins):
    into = tmp_path / "merged"
    args = ["cache", "merge", *two_machines(tmp_path), "--into", str(into)]
    done = cli([*args, "--on-conflict", choice], tmp_path)
    assert done.code == 0, done.stderr
    assert done.stderr.startswith("conflict: key differs:")
    assert f"merged into {into}: 4 answers added, 1 already there, 1 conflict" in done.stdout
    with ReplayCache(into) as cache:
        assert cache.get("differs")["text"] == wins
        assert cache.get("same") == {"text": "C", "response_id": "r1"}  # the same answer: kept
        assert {key for key in cache.stored_keys()} == {"same", "differs", "only-0", "only-1"}


def test_a_source_that_disagrees_with_the_cache_written_into_is_a_conflict(tmp_path):
    into = tmp_path / "merged"
    with ReplayCache(into) as cache:
        cache.set("differs", {"text": "D"})
    sources = two_machines(tmp_path)[:1]
    refused = cli(["cache", "merge", *sources, "--into", str(into)], tmp_path)
    assert refused.code == 2
    assert f'key differs: {into} (the cache merged into) answers "D", ' in refused.stderr
    kept = cli(["cache", "merge", *sources, "--into", str(into), "--on-conflict", "keep"], tmp_path)
    assert kept.code == 0 and "2 answers added, 0 already there, 1 conflict" in kept.stdout
    with ReplayCache(into) as cache:
        assert cache.get("differs") == {"text": "D"}


# --- what is not a shard --------------------------------------------------------------------------


def shard_folder_with(tmp_path: Path, make) -> Path:
    sweep = tmp_path / "sweep"
    ShardedCache(sweep / "cache", "job", None).set("k", {"text": "C"})
    make(sweep / "cache" / "odd.jsonl")
    return sweep


@pytest.mark.parametrize(
    ("make", "what"),
    [
        (os.mkfifo, "a FIFO"),
        (os.mkdir, "a folder"),
        (lambda path: path.symlink_to(path.with_name("job.jsonl")), "a symbolic link"),
    ],
)
def test_a_shard_that_is_not_a_regular_file_is_refused_in_one_line(tmp_path, make, what):
    sweep = shard_folder_with(tmp_path, make)
    odd = sweep / "cache" / "odd.jsonl"
    listed = cli(["cache", "list", str(sweep)], tmp_path, wall_limit_s=60)
    assert listed.code == 0, listed.stderr  # list reports; verify judges
    assert "job.jsonl: shard, 1 answers, 0 damaged" in listed.stdout
    assert listed.stderr.splitlines() == [f"skipped: {odd}: {what}, not a regular file"]
    merged = cli(["cache", "merge", str(sweep), "--into", str(tmp_path / "i")], tmp_path, 60)
    assert merged.code == 1, merged.stderr
    assert "1 answers added" in merged.stdout
    assert merged.stderr.splitlines() == [f"skipped: {odd}: {what}, not a regular file"]
    verified = cli(["cache", "verify", str(sweep)], tmp_path, wall_limit_s=60)
    assert verified.code == 1 and f"bad: {odd}: {what}, not a regular file" in verified.stderr
    job = ShardedCache(sweep / "cache", "other", None)  # a job of the sweep reads past it
    assert job.get("k") == {"text": "C"} and job.rejected == 1


def test_a_line_longer_than_any_answer_is_refused_without_being_read_whole(tmp_path):
    sweep = tmp_path / "sweep"
    shard = ShardedCache(sweep / "cache", "job", None)
    shard.set("before", {"text": "C"})
    huge = {"text": "x" * ANSWER_LINE_CAP_BYTES}
    with (sweep / "cache" / "job.jsonl").open("ab") as out:
        out.write(orjson.dumps({"key": "huge", "checksum": "0", "value": huge}) + b"\n")
    shard.set("after", {"text": "D"})
    merged = cli(["cache", "merge", str(sweep), "--into", str(tmp_path / "i")], tmp_path)
    assert merged.code == 1
    assert "2 answers added" in merged.stdout
    assert merged.stderr.splitlines() == [
        f"skipped: {sweep}/cache/job.jsonl line 2: longer than {ANSWER_LINE_CAP_BYTES} bytes "
        "(the most one answer's line may hold)"
    ]
    job = ShardedCache(sweep / "cache", "other", None)
    assert job.get("after") == {"text": "D"} and job.rejected == 1


def test_the_end_of_a_sweep_keeps_the_caches_answer_and_says_how_many_differed(tmp_path, capsys):
    from pdbench.cli.cache import merge_sweep_cache

    two_machines(tmp_path)
    with ReplayCache(tmp_path / "cache") as cache:
        cache.set("differs", {"text": "D"})
    merge_sweep_cache(tmp_path / "machine-0", tmp_path / "cache")
    warning, merged = capsys.readouterr().err.splitlines()
    assert warning.startswith("warning: 1 answer of the jobs' shards differs from the one")
    assert f"pdbench cache merge {tmp_path / 'machine-0'} --into {tmp_path / 'cache'}" in warning
    assert merged == f"cache: 2 answers from the jobs' shards merged into {tmp_path / 'cache'}"
    with ReplayCache(tmp_path / "cache") as cache:
        assert cache.get("differs") == {"text": "D"}
