"""Issue 30's done-when for the judged games, offline: an agent file written as the platform's
docs show (examples/agents/passcode.py, nuclear_war.py, nil_recruitment.py) plays each game; a
run of them (one with an LLM judge on the mock) killed with SIGKILL twice resumes to the same
turns and aggregates as an uninterrupted run."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import orjson
import pandas as pd
import pytest
from helpers import TEST_DEAL
from in_process import run_front_door
from killed_runs import KilledRun

from pdbench.runners.experiment import run_experiment
from pdbench.runners.plan import plan_matches
from pdbench.runners.prepare import load

ROOT = Path(__file__).resolve().parents[2]
EXPERIMENT = ROOT / "tests" / "fixtures" / "experiments" / "judged_arena.yaml"
ARENA_SEATS = {"passcode_arena": "a", "nuclear_war_arena_llm_judge": "a", "nil_arena": "b"}


def read_lines(run_dir: Path) -> list[dict]:
    return [orjson.loads(line) for line in (run_dir / "rounds.jsonl").read_bytes().splitlines()]


def strip(lines: list[dict]) -> list[dict]:
    kept = []
    for line in lines:
        line = {k: v for k, v in line.items() if k not in ("timestamp_utc", "run_id")}
        for decision in line.get("decisions", {}).values():
            for attempt in decision.get("attempts", []):
                attempt.pop("elapsed_s", None)
        kept.append(line)
    return kept


@pytest.mark.slow
def test_platform_style_agents_play_the_judged_games_and_a_killed_run_resumes(tmp_path):
    out_dir = tmp_path / "runs"
    reference_loaded = load(
        EXPERIMENT, [f"run.output_dir={out_dir}", f"run.cache.dir={tmp_path / 'ref_cache'}"],
        run_id="ref", project_root=ROOT,
    )  # fmt: skip
    planned = len(plan_matches(reference_loaded.spec, TEST_DEAL))
    reference: dict = {}
    worker = threading.Thread(target=lambda: reference.update(out=run_experiment(reference_loaded)))
    worker.start()
    logs = tmp_path / "logs"
    logs.mkdir()
    ledger = out_dir / "r" / "matches.jsonl"
    cache = tmp_path / "cache"
    args = ["run", str(EXPERIMENT), f"run.output_dir={out_dir}", f"run.cache.dir={cache}",
            "--run-id", "r", "-q"]  # fmt: skip
    seen = 0
    for attempt in (1, 2):
        run = KilledRun(args, more_than=seen, log=logs / f"attempt_{attempt}.log")
        now = run.lines_when_killed(ledger)
        # killed mid-run (the second kill may land after the last match, before the run ends:
        # the resume then only finishes the run)
        assert seen < now <= planned and (attempt == 2 or now < planned), (attempt, now, planned)
        seen = now
    # The reference ends first: the resume below runs in this process, in its own cwd and env.
    worker.join(timeout=300)
    assert reference["out"].status == "complete"
    final = run_front_door("cli", args, cwd=ROOT, env=os.environ)
    assert final.code == 0, final.stderr

    resumed, uninterrupted = read_lines(out_dir / "r"), read_lines(out_dir / "ref")
    assert strip(resumed) == strip(uninterrupted)
    manifest = orjson.loads((out_dir / "r" / "run_manifest.json").read_bytes())
    assert manifest["status"] == "complete" and manifest["matches"]["completed"] == planned
    # each arena agent played every one of its turns itself: legal, no fallback, no re-ask
    for condition, seat in ARENA_SEATS.items():
        turns = [line for line in resumed if line["condition"] == condition]
        mine = [line["decisions"][seat] for line in turns if seat in line["seats"]]
        assert mine and not any(d.get("fallback") or d.get("asked", 1) > 1 for d in mine)
    # the LLM judge decided every debate of its condition
    decisions = [
        line["actions"]["judge"] for line in resumed
        if line["condition"] == "nuclear_war_arena_llm_judge"
        and line["actions"].get("judge", {}).get("type") == "decision"
    ]  # fmt: skip
    assert len(decisions) == 10
    table = pd.read_parquet(out_dir / "r" / "aggregates.parquet")
    reference_table = pd.read_parquet(out_dir / "ref" / "aggregates.parquet")
    pd.testing.assert_frame_equal(
        table.drop(columns="run_id"), reference_table.drop(columns="run_id")
    )
