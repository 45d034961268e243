"""Liar's Dice with a real language model: SmolLM2-135M served by llama.cpp (the provider=local
preset), played by `pdbench run` in this process (tests/in_process.py), whole matches against the
house players. With `constrain: grammar` each turn's legal moves go to the server as a GBNF
grammar, so every answer is legal on the first attempt (0 invalid answers); the replay answers
every call from the cache. Needs the `local` dependency group, skipped with the reason without it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from local_server_check import needs_local_server

from pdbench.core.phrases import liars_answer_action
from pdbench.providers.local_server import LocalServer

pytestmark = [needs_local_server, pytest.mark.slow]  # a real model on one CPU thread


@pytest.fixture(scope="module")
def server():
    with LocalServer(port=0, threads=1, ctx=2048) as running:
        yield running


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_a_grammar_constrained_real_model_plays_whole_liars_dice_matches_legally(server, tmp_path):
    from test_local_model import _local_provider, _run_here  # the local model tests' set-up

    experiment = {
        # One match against each house player (two whole matches, two opponents' styles of
        # play), not two: every model turn is still checked, at half the live calls.
        "run": {"seed": 3, "replicates": 1, "output_dir": str(tmp_path / "runs")},
        "game": {"id": "liars_dice", "options": {"dice_per_player": 2}},
        "provider": _local_provider(server.api_base),
        "persona": "none",
        "conditions": [
            {
                "name": name,
                "agent_a": {
                    "ref": "agent/llm_default.yaml",
                    "overrides": {"constrain": "grammar", "max_retries": 0},
                },
                "agent_b": name,
            }
            for name in ("liars_probability", "liars_random")
        ],
    }
    path = tmp_path / "liars.yaml"
    path.write_text(yaml.safe_dump(experiment))
    cache = tmp_path / "cache"
    live = _run_here("cli", ["run", str(path), "--run-id", "live", "-q"], cache)
    assert live.returncode == 0, live.stderr
    run_dir = tmp_path / "runs" / "live"
    turns = _lines(run_dir / "rounds.jsonl")
    manifest = json.loads((run_dir / "run_manifest.json").read_text())
    assert manifest["status"] == "complete" and not manifest["matches"]["failed"]
    model_turns = [t for t in turns if "a" in t["seats"]]
    assert len({(t["condition"], t["replicate"]) for t in turns}) == 2
    for turn in model_turns:
        decision = turn["decisions"]["a"]
        assert decision["invalid_outputs"] == 0 and not decision["fallback"], decision
        (attempt,) = decision["attempts"]
        assert attempt["valid"] and liars_answer_action(attempt["raw"]) == turn["actions"]["a"]
    print(f"{len(model_turns)} model turns, 0 invalid")

    replay = _run_here("cli", ["run", str(path), "--run-id", "replay", "-q"], cache)
    assert replay.returncode == 0, replay.stderr
    again = json.loads((tmp_path / "runs" / "replay" / "run_manifest.json").read_text())
    assert again["provider_calls"]["live"] == 0
    assert again["provider_calls"]["cached"] == len(model_turns)
