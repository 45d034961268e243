"""Issue 22, damaged files: a garbage line anywhere in rounds.jsonl or matches.jsonl, a tampered or
unreadable replay cache entry, a cache database that is not one. Recovery keeps the longest valid
prefix the ledger vouches for, moves the rest aside (never deletes it), says so in one line and
resumes to the same rounds as a run that was never damaged."""

from __future__ import annotations

import json
from pathlib import Path

import diskcache
import pytest

from pdbench.core.errors import PdbenchError
from pdbench.providers.base import Completion
from pdbench.providers.cache import ReplayCache
from pdbench.runners.experiment import run_experiment
from pdbench.runners.prepare import load

ROOT = Path(__file__).resolve().parents[2]
POLICIES = ROOT / "tests" / "fixtures" / "configs" / "policies.yaml"
MOCK_LLM = """
run: {seed: 2, replicates: 3}
horizon: {type: fixed, rounds: 4}
conditions:
  - name: llm_vs_tft
    agent_a: {ref: agent/llm_default.yaml}
    agent_b: tft
"""


def strip(lines: list[str]) -> list[dict]:
    return [{k: v for k, v in json.loads(line).items() if k != "timestamp_utc"} for line in lines]


def policy_run(tmp_path: Path, run_id: str = "r", replicates: int = 3):
    loaded = load(
        POLICIES,
        [f"run.output_dir={tmp_path / 'runs'}", f"run.replicates={replicates}"],
        run_id=run_id,
        project_root=ROOT,
    )
    return loaded


def insert_line(path: Path, after: int, line: bytes) -> None:
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join([*lines[:after], line, *lines[after:]]))


@pytest.mark.parametrize(
    ("file", "after", "kept"),
    [
        ("rounds.jsonl", 9, 2),  # inside the third match's rounds (4 rounds a match)
        ("matches.jsonl", 4, 4),  # between the ledger's 4th and 5th lines
    ],
)
def test_a_garbage_line_inside_a_file_is_moved_aside_and_the_run_resumes(
    tmp_path, capsys, file, after, kept
):
    loaded = policy_run(tmp_path)
    first = run_experiment(loaded)
    run_dir = first.run_dir
    clean_rounds = (run_dir / "rounds.jsonl").read_text().splitlines()
    clean_ledger = (run_dir / "matches.jsonl").read_bytes()
    insert_line(run_dir / file, after, b"garbage\n")
    damaged = (run_dir / file).read_bytes()
    capsys.readouterr()

    resumed = run_experiment(loaded)
    warning = capsys.readouterr().err.strip().splitlines()
    assert len(warning) == 1 and warning[0].startswith("warning: "), warning
    assert file in warning[0] and "quarantine/" in warning[0], warning[0]
    assert f"kept the {kept} matches" in warning[0], warning[0]
    assert resumed.status == "complete" and resumed.matches_skipped == kept
    # The same rounds as the undamaged run, and the damaged rest kept aside, byte for byte.
    assert strip((run_dir / "rounds.jsonl").read_text().splitlines()) == strip(clean_rounds)
    assert [
        json.loads(x)["replicate"] for x in (run_dir / "matches.jsonl").read_bytes().splitlines()
    ] == [json.loads(x)["replicate"] for x in clean_ledger.splitlines()]
    (folder,) = (run_dir / "quarantine").iterdir()
    moved = (folder / file).read_bytes()
    assert b"garbage\n" in moved and damaged.endswith(moved)
    manifest = json.loads((run_dir / "run_manifest.json").read_text())
    assert manifest["moved_aside"] == [str(folder.relative_to(run_dir))]


def test_a_torn_last_line_is_a_kills_leftover_and_is_cut_silently(tmp_path, capsys):
    loaded = policy_run(tmp_path)
    run_dir = run_experiment(loaded).run_dir
    with (run_dir / "rounds.jsonl").open("ab") as rounds:
        rounds.write(b'{"condition": "tft_vs_al')  # a kill in the middle of a write
    capsys.readouterr()
    assert run_experiment(loaded).status == "complete"
    assert capsys.readouterr().err == ""
    assert not (run_dir / "quarantine").exists()


def test_aggregate_names_the_damaged_line_instead_of_a_parser_traceback(tmp_path):
    from pdbench.analysis.metrics.aggregate import write_aggregates

    run_dir = run_experiment(policy_run(tmp_path)).run_dir
    insert_line(run_dir / "rounds.jsonl", 5, b"[1, 2\n")
    with pytest.raises(PdbenchError, match=r"rounds.jsonl line 6: not valid JSON"):
        write_aggregates(run_dir)
    insert_line(run_dir / "matches.jsonl", 1, b"{}\n")
    with pytest.raises(PdbenchError, match=r"matches.jsonl line 2: no condition"):
        write_aggregates(run_dir)


# --- the replay cache ------------------------------------------------------------------------------


def llm_run(tmp_path: Path, cache: Path):
    config = tmp_path / "llm.yaml"
    config.write_text(MOCK_LLM)
    return load(
        config,
        [f"run.output_dir={tmp_path / 'runs'}", f"run.cache.dir={cache}"],
        run_id="llm",
        project_root=ROOT,
    )


def test_a_tampered_cache_entry_is_a_miss_said_once_and_counted(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("PDBENCH_CACHE_DIR")
    cache = tmp_path / "cache"
    first = run_experiment(llm_run(tmp_path, cache))
    assert first.calls.live == 12
    with diskcache.Cache(str(cache)) as raw:
        keys = list(raw.iterkeys())
        for key in keys[:2]:  # flip the answers of two entries, leave their checksums
            entry = json.loads(raw[key])
            entry["value"]["text"] = "D" if entry["value"]["text"] == "C" else "C"
            raw[key] = json.dumps(entry)
        raw[keys[2]] = "{not json"
    capsys.readouterr()

    loaded = llm_run(tmp_path, cache)
    again = run_experiment(loaded, run_dir=tmp_path / "runs" / "again", run_id="again")
    warnings = capsys.readouterr().err.strip().splitlines()
    assert (len(warnings) == 1 and "checksum" in warnings[0]) or "not valid JSON" in warnings[0]
    assert again.calls.live == 3  # the three damaged answers were asked again
    manifest = json.loads((again.run_dir / "run_manifest.json").read_text())
    assert manifest["cache_rejected"] == 3
    rounds = lambda d: strip((d / "rounds.jsonl").read_text().splitlines())  # noqa: E731
    assert [{**r, "run_id": 0} for r in rounds(again.run_dir)] == [
        {**r, "run_id": 0} for r in rounds(first.run_dir)
    ]
    with ReplayCache(cache) as repaired:  # the entries were replaced by good ones
        assert all(repaired.get(key) is not None for key in keys)


def test_a_cache_database_that_is_not_one_is_moved_aside(tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "cache.db").write_bytes(b"this is not a SQLite database\n" * 100)
    said: list[str] = []
    with ReplayCache(cache, warn=said.append) as fresh:
        assert len(fresh) == 0
        fresh.set("k", Completion("C").to_json_dict())
        assert fresh.get("k")["text"] == "C"
    assert len(said) == 1 and "moved it to" in said[0]
    (aside,) = cache.glob("quarantine-*/cache.db")
    assert aside.read_bytes().startswith(b"this is not a SQLite database")


def test_an_entry_rewritten_without_its_checksum_is_not_replayed(tmp_path, monkeypatch, capsys):
    """Issue 40: answers flipped and stored without their checksum (the format entries had
    before checksums) were replayed as old entries, flipping the moves. They are refused like
    damaged ones: asked again, counted, and the rounds are the first run's."""
    monkeypatch.delenv("PDBENCH_CACHE_DIR")
    cache = tmp_path / "cache"
    first = run_experiment(llm_run(tmp_path, cache))
    with diskcache.Cache(str(cache)) as raw:
        keys = list(raw.iterkeys())
        for key in keys[:3]:
            answer = json.loads(raw[key])["value"]
            answer["text"] = "D" if answer["text"] == "C" else "C"
            raw[key] = json.dumps(answer)
    capsys.readouterr()

    again = run_experiment(llm_run(tmp_path, cache), run_dir=tmp_path / "runs" / "b", run_id="b")
    (warning,) = capsys.readouterr().err.strip().splitlines()
    assert "carries no checksum" in warning and "pdbench cache migrate" in warning
    assert again.calls.live == 3
    assert json.loads((again.run_dir / "run_manifest.json").read_text())["cache_rejected"] == 3
    rounds = lambda d: strip((d / "rounds.jsonl").read_text().splitlines())  # noqa: E731
    assert [{**r, "run_id": 0} for r in rounds(again.run_dir)] == [
        {**r, "run_id": 0} for r in rounds(first.run_dir)
    ]


def test_another_applications_sqlite_file_is_not_adopted_as_the_cache(tmp_path):
    """Issue 27: a SQLite database of another application named cache.db was adopted silently
    (diskcache added its tables beside the others'). It is moved aside, said in one line."""
    import sqlite3

    cache = tmp_path / "cache"
    cache.mkdir()
    other = sqlite3.connect(cache / "cache.db")
    other.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
    other.execute("INSERT INTO invoices (total) VALUES (12.5)")
    other.commit()
    other.close()
    said: list[str] = []
    with ReplayCache(cache, warn=said.append) as fresh:
        assert len(fresh) == 0
    assert len(said) == 1 and "not a pdbench cache" in said[0] and "invoices" in said[0], said
    (aside,) = cache.glob("quarantine-*/cache.db")
    kept = sqlite3.connect(aside)
    assert kept.execute("SELECT total FROM invoices").fetchall() == [(12.5,)]  # untouched
    tables = {row[0] for row in kept.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    kept.close()
    assert tables == {"invoices"}
