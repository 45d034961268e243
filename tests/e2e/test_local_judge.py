"""A debate judged by a real language model: SmolLM2-135M served by llama.cpp (the provider=local
preset) as the President of nuclear_war, the players house debaters, played by `pdbench run` in
this process (tests/in_process.py; the process's own contract is checked in test_local_model.py).
The 135M model's verdicts may be weak: the test checks the game completes, every judge turn's
calls are stored and each decision is either parsed into a legal verdict or counted
invalid (then the marked fallback decides), and the replay answers every call from the cache.
Needs the `local` dependency group, skipped with the reason without it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from local_server_check import needs_local_server

from pdbench.providers.local_server import LocalServer

pytestmark = [needs_local_server, pytest.mark.slow]  # a real model on one CPU thread


@pytest.fixture(scope="module")
def server():
    with LocalServer(port=0, threads=1, ctx=2048) as running:
        yield running


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_a_real_model_judges_a_whole_nuclear_war_debate_and_replays_free(server, tmp_path):
    from test_local_model import _local_provider, _run_here  # the local model tests' set-up

    experiment = {
        "run": {"seed": 4, "replicates": 1, "output_dir": str(tmp_path / "runs")},
        "game": {"id": "nuclear_war"},
        "provider": _local_provider(server.api_base),
        "conditions": [
            {
                "name": "local_president",
                "agent_a": "debate_fixed",
                "agent_b": "debate_priorities",
                # 40 tokens, not the game's 300: generating is what costs on one thread, and a
                # response is any text while a decision still has room to name its winner (or
                # is counted invalid and the marked fallback decides, as checked below).
                "judge": {
                    "ref": "judge/llm.yaml",
                    "overrides": {"max_retries": 1, "max_tokens": 40},
                },
            }
        ],
    }
    path = tmp_path / "judge.yaml"
    path.write_text(yaml.safe_dump(experiment))
    cache = tmp_path / "cache"
    live = _run_here("cli", ["run", str(path), "--run-id", "live", "-q"], cache)
    assert live.returncode == 0, live.stderr
    run_dir = tmp_path / "runs" / "live"
    manifest = json.loads((run_dir / "run_manifest.json").read_text())
    assert manifest["status"] == "complete" and not manifest["matches"]["failed"]
    judge_turns = [t for t in _lines(run_dir / "rounds.jsonl") if "judge" in t["seats"]]
    assert len(judge_turns) == 5  # a response after each of the first four phases, a decision
    attempts = 0
    for turn in judge_turns:
        decision = turn["decisions"]["judge"]
        assert decision["attempts"], decision  # every call stored with its turn
        attempts += len(decision["attempts"])
        # parsed into the legal action, or counted invalid and the marked fallback played
        assert decision["fallback"] or decision["attempts"][-1]["valid"], decision
        assert decision["invalid_outputs"] == sum(not a["valid"] for a in decision["attempts"])
    (verdict,) = [t for t in judge_turns if t["actions"]["judge"]["type"] == "decision"]
    assert verdict["actions"]["judge"]["winner"] in ("for", "against")
    assert manifest["provider_calls"]["live"] == attempts
    print(
        f"{attempts} judge calls, {sum(t['decisions']['judge']['invalid_outputs'] for t in judge_turns)} invalid"
    )

    replay = _run_here("cli", ["run", str(path), "--run-id", "replay", "-q"], cache)
    assert replay.returncode == 0, replay.stderr
    again = json.loads((tmp_path / "runs" / "replay" / "run_manifest.json").read_text())
    assert again["provider_calls"]["live"] == 0
    assert again["provider_calls"]["cached"] == attempts
