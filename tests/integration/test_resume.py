"""A run killed with SIGKILL and started again with the same command ends exactly like a run that
was never interrupted: status complete, the same rounds (timestamps and run id aside), no round
lost or duplicated.

The run is the real command line, `uv run pdbench run <exp> run.output_dir=<tmp> --run-id r -q`,
in its own process group, so SIGKILL reaches uv and the Python process under it. The experiment
(tests/fixtures/experiments/resume.yaml) makes mock calls with a latency, so it lasts a few seconds;
it is killed twice, each time once the ledger (matches.jsonl) has grown but before the run ends.
"""

from __future__ import annotations

import os
import sys
import threading
from collections import Counter
from pathlib import Path

import orjson
import pandas as pd
import pytest
from helpers import TEST_DEAL
from in_process import run_front_door
from killed_runs import KilledRun, complete_lines

from pdbench.games.matrix.stored import as_rounds
from pdbench.runners.deal import planned_deal
from pdbench.runners.experiment import run_experiment
from pdbench.runners.plan import plan_matches
from pdbench.runners.prepare import load

ROOT = Path(__file__).resolve().parents[2]
RESUME = ROOT / "tests" / "fixtures" / "experiments" / "resume.yaml"
SECRET = "sk-test-secret-123"


def read_rounds(run_dir: Path) -> list[dict]:
    data = (run_dir / "rounds.jsonl").read_bytes()
    assert data.endswith(b"\n")
    return list(as_rounds(orjson.loads(line) for line in data.split(b"\n") if line))


def strip(rounds: list[dict]) -> list[dict]:
    return [{k: v for k, v in r.items() if k not in ("timestamp_utc", "run_id")} for r in rounds]


@pytest.fixture
def out_dir(tmp_path) -> Path:
    return tmp_path / "runs"


@pytest.mark.slow
def test_a_killed_run_resumes_to_the_same_artifacts_as_an_uninterrupted_one(
    tmp_path, out_dir, monkeypatch
):
    loaded_ref = load(RESUME, [f"run.output_dir={out_dir}"], run_id="ref", project_root=ROOT)
    planned = len(plan_matches(loaded_ref.spec, TEST_DEAL))  # how many: the same in any deal

    # The uninterrupted reference, in this process with its own cache, while the CLI run works.
    monkeypatch.setenv("PDBENCH_CACHE_DIR", str(tmp_path / "cache_ref"))
    reference: dict = {}

    def run_reference() -> None:
        try:
            reference["outcome"] = run_experiment(loaded_ref)
        except BaseException as error:  # reported by the main thread
            reference["error"] = error

    worker = threading.Thread(target=run_reference)
    worker.start()

    logs = tmp_path / "logs"
    logs.mkdir()
    env = {
        **os.environ,
        "PDBENCH_CACHE_DIR": str(tmp_path / "cache_cli"),
        "OPENAI_API_KEY": SECRET,
        "PYTHONUNBUFFERED": "1",
    }
    run_dir = out_dir / "r"
    ledger = run_dir / "matches.jsonl"
    args = ["run", str(RESUME), f"run.output_dir={out_dir}", "--run-id", "r", "-q"]
    seen = 0
    for attempt in (1, 2):
        run = KilledRun(args, more_than=seen, log=logs / f"r_{attempt}.log", env=env)
        now = run.lines_when_killed(ledger, timeout=45)
        manifest = orjson.loads((run_dir / "run_manifest.json").read_bytes())
        assert manifest["status"] != "complete", "killed too late: the run had finished"
        assert seen < now < planned, (attempt, seen, now, planned)
        seen = now
        print(f"attempt {attempt}: killed with {now} of {planned} matches stored")

    # The reference ends first: the resume below runs in this process, in its own cwd and env.
    worker.join(timeout=90)
    assert not worker.is_alive(), "the reference run did not finish"
    if "error" in reference:
        raise reference["error"]
    assert reference["outcome"].status == "complete"
    final = run_front_door("cli", args, cwd=ROOT, env=env)
    assert final.code == 0, final.stderr
    assert "resumed:" in final.stdout + final.stderr, final
    ref_dir = out_dir / "ref"

    # The resumed run is complete and its manifest accounts for every match.
    manifest = orjson.loads((run_dir / "run_manifest.json").read_bytes())
    assert manifest["status"] == "complete"
    assert manifest["matches"]["planned"] == planned
    assert manifest["matches"]["completed"] == planned
    assert manifest["config_hash"] == loaded_ref.config_hash

    # No round lost or duplicated: one line per (condition, replicate, round_index), every match
    # exactly as long as planned.
    rounds = read_rounds(run_dir)
    keys = Counter((r["condition"], r["replicate"], r["round_index"]) for r in rounds)
    duplicated = [k for k, n in keys.items() if n > 1]
    assert not duplicated, f"rounds stored twice: {duplicated[:5]}"
    lengths = Counter((r["condition"], r["replicate"]) for r in rounds)
    plan = plan_matches(loaded_ref.spec, planned_deal(loaded_ref)[0])  # the workspace's key
    assert (out_dir / "r" / "deal.key").read_bytes() == (out_dir / "ref" / "deal.key").read_bytes()
    for match in plan:
        assert lengths[match.key] == match.n_rounds, (match.key, lengths[match.key], match.n_rounds)
        indices = sorted(i for (c, rep, i) in keys if (c, rep) == match.key)
        assert indices == list(range(1, match.n_rounds + 1)), match.key
    assert {r["run_id"] for r in rounds} == {"r"}
    assert complete_lines(ledger) == planned

    # Every stored attempt is counted once, as live or cached (a killed attempt's calls for
    # matches it never stored come back from the cache).
    def attempts(rounds: list[dict]) -> int:
        return sum(len(r.get(f"agent_{s}_attempts") or []) for r in rounds for s in "ab")

    calls = manifest["provider_calls"]
    assert calls["live"] + calls["cached"] == attempts(rounds), calls
    assert calls["live"] > 0 and calls["cached"] > 0, calls

    # The same artifacts as the run that was never interrupted.
    ref_rounds = read_rounds(ref_dir)
    assert len(rounds) == len(ref_rounds)
    for number, (got, want) in enumerate(zip(strip(rounds), strip(ref_rounds), strict=True), 1):
        assert got == want, f"rounds.jsonl line {number} differs from the uninterrupted run"
    ledger_keys = [
        (e["condition"], e["replicate"], e["n_rounds"], e["seeds"])
        for e in map(orjson.loads, ledger.read_bytes().splitlines())
    ]
    ref_ledger_keys = [
        (e["condition"], e["replicate"], e["n_rounds"], e["seeds"])
        for e in map(orjson.loads, (ref_dir / "matches.jsonl").read_bytes().splitlines())
    ]
    assert ledger_keys == ref_ledger_keys
    pd.testing.assert_frame_equal(
        pd.read_parquet(run_dir / "aggregates.parquet").drop(columns="run_id"),
        pd.read_parquet(ref_dir / "aggregates.parquet").drop(columns="run_id"),
    )
    ref_manifest = orjson.loads((ref_dir / "run_manifest.json").read_bytes())
    ref_calls = ref_manifest["provider_calls"]
    assert (ref_calls["live"], ref_calls["cached"]) == (attempts(ref_rounds), 0), ref_calls
    assert manifest["seeds"] == ref_manifest["seeds"]
    for snapshot in (manifest["config"], ref_manifest["config"]):
        snapshot["run"].pop("run_id")  # the only difference: "r" and "ref"
    assert manifest["config"] == ref_manifest["config"]

    # The key in the environment reached none of the files.
    for path in run_dir.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), f"the API key leaked into {path}"


def test_resume_of_a_run_that_does_not_exist_exits_2(out_dir, monkeypatch, capsys):
    from pdbench.cli import main

    monkeypatch.setattr(
        sys,
        "argv",
        [
            "pdbench",
            "run",
            str(RESUME),
            f"run.output_dir={out_dir}",
            "--run-id",
            "nope",
            "--resume",
            "-q",
        ],
    )
    with pytest.raises(SystemExit) as done:
        main()
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.strip().count("\n") == 0, f"expected one line, got:\n{err}"
    assert "nope" in err
    assert not (out_dir / "nope").exists(), "--resume must not create a run dir"
