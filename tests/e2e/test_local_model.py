"""A real language model in the loop: SmolLM2-135M served by llama.cpp (xllamacpp) on 127.0.0.1,
reached through litellm with the provider=local preset, by `pdbench run`: the first live run in a
subprocess (its exit code, 6 for an aborted run, is the process's contract), every other run in
this process (tests/in_process.py: the same entry function, argv, folder and environment), which
spares each the few seconds a new interpreter spends importing litellm.

The model rarely answers a bare label, so strict parsing, correction re-prompts and both
on_invalid paths really run; with the grammar or JSON-schema constraint every answer is valid.
Needs the `local` dependency group (`uv sync --group local`, which .ci/run installs); without it
the module is skipped and says so. One thread and short answers keep it within about a minute
on two cores.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from in_process import run_front_door
from local_server_check import needs_local_server

from pdbench.core.parse import parse_answer
from pdbench.games.matrix.stored import as_rounds
from pdbench.games.tables import GAMES
from pdbench.providers.local_server import LocalServer

PROJECT = Path(__file__).resolve().parents[2]
PDBENCH = str(Path(sys.executable).with_name("pdbench"))
SERVED_MODEL = "smollm2-135m-instruct"


pytestmark = [needs_local_server, pytest.mark.slow]  # a real model on one CPU thread


@pytest.fixture(scope="module")
def server():
    with LocalServer(port=0, threads=1, ctx=2048) as running:
        yield running


def _environment(cache: Path) -> dict[str, str]:
    """No OpenAI key: the placeholder key is what lets litellm's openai/ client talk to the
    local server."""
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    return env | {"PDBENCH_CACHE_DIR": str(cache), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}


def _run(args: list[str], cache: Path, cwd: Path = PROJECT) -> subprocess.CompletedProcess:
    return subprocess.run(
        args, cwd=cwd, capture_output=True, text=True, env=_environment(cache), timeout=240
    )


def _run_here(
    entry: str, args: list[str], cache: Path, cwd: Path = PROJECT
) -> subprocess.CompletedProcess:
    """`pdbench <args>` (entry "cli") or `python -m pdbench <args>` (entry "module") run in this
    process with `_run`'s folder and environment: what it prints and its exit code, as `_run`
    returns them."""
    done = run_front_door(entry, args, cwd=cwd, env=_environment(cache))
    return subprocess.CompletedProcess(args, done.code, done.stdout, done.stderr)


def _local_provider(api_base: str) -> dict:
    """conf/provider/local.yaml, pointed at the test's server."""
    preset = yaml.safe_load((PROJECT / "conf" / "provider" / "local.yaml").read_text())
    return preset | {"api_base": api_base}


def _experiment(tmp_path: Path, api_base: str) -> Path:
    llm = "agent/llm_default.yaml"
    short = {"max_tokens": 8, "max_retries": 1}
    experiment = {
        "run": {"seed": 11, "replicates": 3, "output_dir": str(tmp_path / "runs")},
        # Three rounds, not five: each condition still plays rounds after its first, whose prompts
        # carry a history (fallback must keep playing past a fallback round), with a third fewer
        # live calls; replicates repeat the same prompts, answered from the run's own cache.
        "horizon": {"type": "fixed", "rounds": 3},
        "provider": _local_provider(api_base),
        "persona": "cooperative",
        "conditions": [
            {
                "name": "free_abort",
                "agent_a": {"ref": llm, "overrides": short | {"on_invalid": "abort"}},
                "agent_b": "tft",
            },
            {
                "name": "free_fallback",
                "agent_a": {"ref": llm, "overrides": short | {"on_invalid": "fallback"}},
                "agent_b": "tft",
            },
            {
                "name": "grammar",
                "agent_a": {"ref": llm, "overrides": short | {"constrain": "grammar"}},
                "agent_b": "tft",
            },
            {
                "name": "json_schema",
                "agent_a": {
                    "ref": llm,
                    "overrides": {
                        "max_tokens": 16,
                        "max_retries": 1,
                        "response_format": "json",
                        "constrain": "json_schema",
                    },
                },
                "agent_b": "tft",
            },
        ],
    }
    path = tmp_path / "local.yaml"
    path.write_text(yaml.safe_dump(experiment, sort_keys=False))
    return path


def _read_lines(path: Path) -> list[dict]:
    return list(as_rounds(json.loads(line) for line in path.read_text().splitlines()))


def _without_run_facts(rounds: list[dict]) -> list[dict]:
    return [{k: v for k, v in r.items() if k not in ("run_id", "timestamp_utc")} for r in rounds]


def test_a_real_model_through_provider_local_then_a_free_replay(server, tmp_path):
    experiment = _experiment(tmp_path, server.api_base)
    cache = tmp_path / "cache"
    live = _run([PDBENCH, "run", str(experiment), "--run-id", "live", "-q"], cache)
    run_dir = tmp_path / "runs" / "live"
    rounds = _read_lines(run_dir / "rounds.jsonl")
    ledger = _read_lines(run_dir / "matches.jsonl")
    manifest = json.loads((run_dir / "run_manifest.json").read_text())
    # The tiny model often fails every match of free_abort: then the run is aborted (exit 6,
    # issue 26), else complete (exit 0).
    finished = {e["condition"] for e in ledger if not e.get("error")}
    empty = len(finished) < 4
    assert live.returncode == (6 if empty else 0), live.stderr
    assert manifest["status"] == ("aborted" if empty else "complete")
    by_condition = {
        name: [r for r in rounds if r["condition"] == name]
        for name in ("free_abort", "free_fallback", "grammar", "json_schema")
    }

    # Every attempt, kept with its raw answer and judged as the strict parser judges it, with
    # what the server reported about it.
    labels = GAMES["pd"].labels
    formats = {"json_schema": "json"}
    aborted = [a for e in ledger for a in e.get("aborted_round_attempts", [])]
    stored = [(r["condition"], a) for r in rounds for a in r["agent_a_attempts"]]
    stored += [(e["condition"], a) for e in ledger for a in e.get("aborted_round_attempts", [])]
    assert stored and aborted
    for condition, attempt in stored:
        assert isinstance(attempt["raw"], str) and attempt["prompt"]
        response_format = formats.get(condition, "label")
        assert attempt["valid"] == parse_answer(attempt["raw"], labels, response_format).valid
        assert attempt["reported_model"] == SERVED_MODEL
        assert attempt["response_id"].startswith("chatcmpl-")
        assert attempt["system_fingerprint"] and attempt["input_tokens"] > 0
        assert "cached" not in attempt

    # on_invalid: abort ends the match, on record: its error and the attempts of its last round.
    failed = [f for f in manifest["matches"]["failed"] if f["condition"] == "free_abort"]
    assert failed, "SmolLM2 answered validly in every round: the abort path did not run"
    for entry in (e for e in ledger if e["condition"] == "free_abort" and e["error"]):
        assert "no valid action after 2 attempts" in entry["error"]
        assert [a["valid"] for a in entry["aborted_round_attempts"]] == [False, False]
    assert {f["condition"] for f in manifest["matches"]["failed"]} == {"free_abort"}

    # on_invalid: fallback plays D, marked, and keeps playing all three rounds.
    fallback = by_condition["free_fallback"]
    assert len(fallback) == 3 * 3
    marked = [r for r in fallback if r["agent_a_fallback"]]
    assert marked, "SmolLM2 answered validly in every round: the fallback path did not run"
    for r in fallback:
        invalid = sum(not a["valid"] for a in r["agent_a_attempts"])
        assert r["agent_a_invalid_outputs"] == invalid
        assert r["agent_a_fallback"] == (invalid == 2)
    for r in marked:
        assert r["agent_a_action"] == "D" and "played the fallback D" in r["agent_a_error"]

    # Constrained: every answer is valid on the first attempt.
    for name in ("grammar", "json_schema"):
        assert len(by_condition[name]) == 3 * 3
        for r in by_condition[name]:
            assert [a["valid"] for a in r["agent_a_attempts"]] == [True], r["agent_a_attempts"]
            assert r["agent_a_invalid_outputs"] == 0 and not r["agent_a_fallback"]
    assert {a["raw"] for r in by_condition["grammar"] for a in r["agent_a_attempts"]} <= {"C", "D"}

    # The manifest's config snapshot says which constraint each agent used.
    constraints = {c["name"]: c["agent_a"]["constrain"] for c in manifest["config"]["conditions"]}
    assert constraints == {
        "free_abort": "none",
        "free_fallback": "none",
        "grammar": "grammar",
        "json_schema": "json_schema",
    }
    assert manifest["provider_calls"]["live"] > 0

    # The same experiment again: every answer from the cache, the same rounds.
    replay = _run_here("cli", ["run", str(experiment), "--run-id", "replay", "-q"], cache)
    assert replay.returncode == (6 if empty else 0), replay.stderr
    replay_dir = tmp_path / "runs" / "replay"
    again = json.loads((replay_dir / "run_manifest.json").read_text())
    assert again["provider_calls"]["live"] == 0
    first = manifest["provider_calls"]
    assert again["provider_calls"]["cached"] == first["live"] + first["cached"]
    assert _without_run_facts(_read_lines(replay_dir / "rounds.jsonl")) == _without_run_facts(
        rounds
    )
    assert again["matches"]["failed"] == manifest["matches"]["failed"]


def test_a_real_model_negotiates_with_the_example_agent_then_replays_for_free(server, tmp_path):
    """Issue 19's command with the real model: SmolLM2 writes its messages (cut to 280
    characters when it runs on), the example negotiator answers, both commit; a replay from
    the cache makes no live call and writes the same rounds."""
    cache = tmp_path / "cache"
    command = [
        "game=agentduel_split_or_steal",
        "agent_a=llm_default", "agent_a.constrain=grammar", "agent_b=arena",
        "agent_b.path=examples/agents/negotiator.py", "provider=local",
        f"provider.api_base={server.api_base}", "horizon.rounds=1", "run.replicates=1",
        f"run.output_dir={tmp_path / 'runs'}", f"hydra.run.dir={tmp_path / 'hydra'}",
    ]  # fmt: skip
    live = _run_here("module", [*command, "run.run_id=live"], cache)
    assert live.returncode == 0, live.stderr
    rounds = _read_lines(tmp_path / "runs" / "live" / "rounds.jsonl")
    assert len(rounds) == 1  # one round keeps the three calls within the module's minute
    for record in rounds:
        talk = record["conversation"]
        assert [m["speaker"] for m in talk] == ["a", "b", "a", "b"]
        for message in (m for m in talk if m["speaker"] == "a"):
            assert len(message["text"]) <= 280 and message["cut"] == (
                len(message["attempts"][0]["raw"].strip()) > 280
            )
            assert message["attempts"][0]["reported_model"] == SERVED_MODEL
        assert record["agent_a_attempts"][0]["valid"]  # the grammar allows only a label

    replay = _run_here("module", [*command, "run.run_id=replay", "run.cache.mode=replay"], cache)
    assert replay.returncode == 0, replay.stderr
    manifest = json.loads((tmp_path / "runs" / "replay" / "run_manifest.json").read_text())
    assert manifest["provider_calls"]["live"] == 0
    assert manifest["provider_calls"]["cached"] == 3  # two messages and the commit

    def same(rounds: list[dict]) -> list[dict]:
        kept = _without_run_facts(rounds)
        for record in kept:
            for attempt in record["agent_b_attempts"]:
                attempt.pop("elapsed_s")
            for message in record["conversation"]:
                for attempt in message.get("attempts", ()):
                    attempt.pop("elapsed_s", None)
        return kept

    again = _read_lines(tmp_path / "runs" / "replay" / "rounds.jsonl")
    assert same(again) == same(rounds)
