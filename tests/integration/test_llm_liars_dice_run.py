"""Issue 29's done-when with an LLM agent, offline: `python -m pdbench -m game=liars_dice
agent_a=llm_default agent_b=liars_probability,liars_random` runs on the mock with no invalid
answer, and the same command into a new folder replays every answer from the cache (0 live
calls) to the same turns when it is dealt with the same key (run.deal_key_file)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from helpers import only_run_dir
from project_copy import copy_project


def _sweep(project: Path, out: Path, cache: Path, *extra: str) -> Path:
    env = {k: v for k, v in os.environ.items() if k not in ("PDBENCH_SWEEP_ID", "PDBENCH_RUN_DIR")}
    done = subprocess.run(
        [sys.executable, "-m", "pdbench", "-m", "game=liars_dice", "agent_a=llm_default",
         "agent_b=liars_probability,liars_random", "run.replicates=5",
         f"run.output_dir={out}", f"hydra.sweep.dir={out.parent / ('hydra-' + out.name)}",
         *extra],
        cwd=project, env={**env, "COLUMNS": "200", "PDBENCH_CACHE_DIR": str(cache)},
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    run_dir = only_run_dir(out)
    return run_dir


def _turns(run_dir: Path) -> list[dict]:
    lines = [json.loads(line) for line in (run_dir / "rounds.jsonl").read_text().splitlines()]
    for line in lines:
        line.pop("timestamp_utc")
        line.pop("run_id")
    return lines


def test_an_llm_agent_plays_the_issues_grid_on_the_mock_and_replays_for_free(tmp_path):
    project = copy_project(tmp_path / "project")
    cache = tmp_path / "cache"
    live = _sweep(project, tmp_path / "live", cache)
    # another runs folder, dealt as the first (its own key would deal other dice: other prompts)
    replay = _sweep(
        project, tmp_path / "replay", cache, f"run.deal_key_file={tmp_path / 'live' / 'deal.key'}"
    )
    turns = _turns(live)
    model = [t["decisions"]["a"] for t in turns if "a" in t["seats"]]
    assert len({(t["condition"], t["replicate"]) for t in turns}) == 10
    assert model and all(d["invalid_outputs"] == 0 and not d["fallback"] for d in model)
    assert all(d["attempts"][0]["prompt"].startswith("You are playing Liar's Dice") for d in model)
    first = json.loads((live / "run_manifest.json").read_text())["provider_calls"]
    again = json.loads((replay / "run_manifest.json").read_text())["provider_calls"]
    # a prompt seen twice (same dice, same bids) is answered once, as at temperature 0 it should
    assert first["live"] + first["cached"] == len(model) and first["live"] > 0
    assert again["live"] == 0 and again["cached"] == len(model)
    assert _turns(replay) == turns
