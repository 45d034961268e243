"""A whole run against real litellm over HTTP (a local OpenAI-compatible stub): costs are
recorded from litellm's price map, `max_cost_usd` stops the run cleanly, and the same run with a
larger budget resumes it to the end without repeating a paid call."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from openai_stub_server import StubServer

from pdbench.games.matrix.stored import as_rounds
from pdbench.runners.experiment import run_experiment
from pdbench.runners.prepare import load

PROJECT = Path(__file__).resolve().parents[2]


@pytest.fixture
def stub(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "dummy")
    with StubServer() as server:
        # A big prompt bill per call, so a small budget runs out after a few calls.
        server.state.prompt_tokens = 100_000
        yield server


def _experiment(tmp_path: Path, api_base: str) -> Path:
    path = tmp_path / "paid.yaml"
    path.write_text(
        f"""
run: {{seed: 1, replicates: 2, output_dir: {tmp_path / "runs"}, max_concurrency: 1}}
horizon: {{type: fixed, rounds: 5}}
provider: {{name: litellm, model: openai/gpt-4o-mini, api_base: "{api_base}", max_attempts: 2}}
persona: cooperative
conditions:
  - name: gpt_vs_tft
    agent_a: {{ref: "agent/llm_default.yaml"}}
    agent_b: tft
"""
    )
    return path


@pytest.mark.slow
def test_budget_stops_the_run_and_a_larger_budget_resumes_it(tmp_path, stub):
    experiment = _experiment(tmp_path, stub.api_base)
    stopped = run_experiment(
        load(experiment, ["run.max_cost_usd=0.04"], run_id="paid", project_root=PROJECT)
    )
    assert stopped.status == "stopped" and "budget" in stopped.error
    manifest = json.loads((stopped.run_dir / "run_manifest.json").read_text())
    assert manifest["status"] == "stopped"
    assert manifest["spend"]["cost_usd"] >= 0.04  # the call in flight at the limit may finish
    calls_before = len(stub.state.requests)
    assert 0 < calls_before < 10  # 2 matches x 5 rounds would be 10 calls

    resumed = run_experiment(
        load(experiment, ["run.max_cost_usd=10"], run_id="paid", project_root=PROJECT)
    )
    assert resumed.status == "complete"
    manifest = json.loads((resumed.run_dir / "run_manifest.json").read_text())
    rounds = (resumed.run_dir / "rounds.jsonl").read_text().splitlines()
    assert len(rounds) == 10
    keys = {(r["replicate"], r["round_index"]) for r in as_rounds(map(json.loads, rounds))}
    assert len(keys) == 10
    # No paid call was made twice: the resumed run took the answers it already had from the
    # cache. At temperature 0 both replicates send the same 5 prompts, so 5 calls in all.
    sent = [json.dumps(request, sort_keys=True) for request in stub.state.requests]
    assert len(sent) == len(set(sent)) == 5
    calls = manifest["provider_calls"]
    # provider_calls counts the calls behind the stored rounds: the stopped attempt's calls for
    # the match it did not finish came back from the cache in the resumed attempt.
    assert calls["live"] + calls["cached"] == 10 and calls["unknown_price"] == 0
    # spend counts what was paid, over both attempts: every one of the 5 calls, once.
    spend = manifest["spend"]
    assert spend["live"] == 5 and spend["input_tokens"] == 100_000 * 5
    assert spend["cost_usd"] > 0.04

    # The budget is for the whole run: resuming a complete run under the spend changes nothing,
    # and a budget already spent stops before any new call.
    again = run_experiment(
        load(experiment, ["run.max_cost_usd=0.01"], run_id="paid", project_root=PROJECT)
    )
    assert again.status == "complete" and len(stub.state.requests) == 5


# --- what a server reports about a paid answer (issue 27) ----------------------------------------


def test_impossible_usage_never_lowers_the_spend(tmp_path, stub, capsys):
    stub.state.prompt_tokens = -5_000_000  # a broken or hostile server
    experiment = _experiment(tmp_path, stub.api_base)
    done = run_experiment(
        load(experiment, ["run.max_cost_usd=1"], run_id="odd", project_root=PROJECT)
    )
    assert done.status == "complete"
    spend = json.loads((done.run_dir / "run_manifest.json").read_text())["spend"]
    calls = len(stub.state.requests)
    assert spend["live"] == spend["impossible_usage"] == spend["unknown_price"] == calls
    assert spend["cost_usd"] == 0.0 and spend["input_tokens"] == 0
    warnings = [line for line in capsys.readouterr().err.splitlines() if "impossible" in line]
    assert len(warnings) == 1, warnings
    assert "counted as 0 tokens at an unknown price" in warnings[0]


def test_an_answer_from_another_model_is_said_counted_and_priced_as_reported(
    tmp_path, stub, capsys
):
    stub.state.reported_model = "gpt-4o"  # asked openai/gpt-4o-mini
    experiment = _experiment(tmp_path, stub.api_base)
    done = run_experiment(load(experiment, [], run_id="other", project_root=PROJECT))
    assert done.status == "complete"
    spend = json.loads((done.run_dir / "run_manifest.json").read_text())["spend"]
    calls = len(stub.state.requests)
    assert spend["live"] == spend["other_model"] == calls == 5
    # gpt-4o's price ($2.50 per million input tokens), not gpt-4o-mini's ($0.15)
    assert spend["cost_usd"] == pytest.approx(0.25 * calls, rel=0.01)
    err = capsys.readouterr().err
    said = [line for line in err.splitlines() if "gpt-4o answered" in line]
    assert len(said) == 1 and "asked openai/gpt-4o-mini" in said[0], err
