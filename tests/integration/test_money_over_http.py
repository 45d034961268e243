"""What a run pays for and what it says about it, against the OpenAI-compatible stub on 127.0.0.1
through real litellm, each command run in this process (tests/in_process.py) as a user types it
(issue 40): a budget that cannot be enforced is refused before any call."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from in_process import run_front_door
from openai_stub_server import StubServer
from project_copy import command_env
from stub_http import stub_fixtures

from pdbench.config.schema import ProviderSpec
from pdbench.games.matrix.stored import as_rounds
from pdbench.providers.base import CompletionRequest
from pdbench.providers.litellm import LiteLLMProvider, import_litellm

ROOT = Path(__file__).resolve().parents[2]
UNPRICED = "openai/pdbench-unpriced-model"  # a model litellm's price map does not know

server, stub = stub_fixtures(StubServer, import_litellm=True)


def _run(
    tmp_path: Path,
    stub,
    *overrides: str,
    model: str = UNPRICED,
    run_id: str = "r",
    command: str = "run",
):
    """`pdbench run conf/config.yaml` with an LLM agent against TFT, 5 rounds, 1 replicate."""
    args = [
        command,
        "conf/config.yaml",
        "agent_a=llm_default",
        "agent_b=tft",
        "horizon.rounds=5",
        "provider=litellm",
        f"provider.model={model}",
        f"provider.api_base={stub.api_base}",
        "run.replicates=1",
        f"run.output_dir={tmp_path / 'runs'}",
        *(["--run-id", run_id] if command == "run" else []),
        *overrides,
    ]
    env = {**command_env(tmp_path), "OPENAI_API_KEY": "dummy"}
    return run_front_door("cli", args, cwd=ROOT, env=env)


def _manifest(tmp_path: Path, run_id: str = "r") -> dict:
    return json.loads((tmp_path / "runs" / run_id / "run_manifest.json").read_text())


# --- a budget needs a price -------------------------------------------------------------------


def test_a_budget_on_a_model_without_a_price_is_refused_before_any_call(tmp_path, stub):
    ran = _run(tmp_path, stub, "run.max_cost_usd=0.00001")
    assert ran.code == 2, ran.stderr
    lines = ran.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), ran.stderr
    assert UNPRICED in lines[0] and "run.max_cost_usd" in lines[0]
    assert "provider.usd_per_million_tokens" in lines[0]  # how to give the price
    assert "run.allow_unpriced_calls=true" in lines[0]  # how to go on anyway
    assert stub.state.requests == []
    assert not (tmp_path / "runs" / "r").exists()  # nothing written
    checked = _run(tmp_path, stub, "run.max_cost_usd=0.00001", command="validate")
    assert checked.code == 2 and checked.stderr.strip() == lines[0], checked.stderr


def test_the_user_may_go_on_without_a_price_and_is_told_what_that_means(tmp_path, stub):
    ran = _run(tmp_path, stub, "run.max_cost_usd=0.00001", "run.allow_unpriced_calls=true")
    assert ran.code == 0, ran.stderr
    assert len(stub.state.requests) == 5
    assert f"the price of {UNPRICED} is unknown" in ran.stderr
    assert _manifest(tmp_path)["spend"]["unknown_price"] == 5


def test_a_price_given_in_the_config_prices_the_calls_and_enforces_the_budget(tmp_path, stub):
    stub.state.prompt_tokens, stub.state.completion_tokens = 1_000_000, 10
    price = "provider.usd_per_million_tokens={input: 2.0, output: 8.0}"
    ran = _run(tmp_path, stub, price, "run.max_cost_usd=3")
    assert ran.code == 4, ran.stderr  # stopped by the budget: it is enforced
    assert len(stub.state.requests) == 2  # $2.00008 each: the second call passes $3
    spend = _manifest(tmp_path)["spend"]
    assert spend["unknown_price"] == 0
    assert spend["cost_usd"] == pytest.approx(2 * (2.0 + 10 * 8.0 / 1e6))
    # the estimate before the run uses the same price, and says where it comes from
    checked = _run(tmp_path, stub, price, command="validate")
    assert checked.code == 0, checked.stderr
    assert "(provider.usd_per_million_tokens)" in checked.stdout, checked.stdout


# --- an answer from another model ------------------------------------------------------------


def _attempts(tmp_path: Path, run_id: str) -> list[dict]:
    lines = (tmp_path / "runs" / run_id / "rounds.jsonl").read_text().splitlines()
    rounds = as_rounds(json.loads(line) for line in lines)  # as the readers read them
    return [a for record in rounds for a in record["agent_a_attempts"]]


def _spend_lines(tmp_path: Path, run_id: str) -> list[dict]:
    text = (tmp_path / "runs" / run_id / "spend.jsonl").read_text()
    return [json.loads(line) for line in text.splitlines()]


def test_an_answer_from_another_model_is_said_once_and_both_names_are_stored(tmp_path, stub):
    stub.state.reported_model = "gpt-4o"  # asked openai/gpt-4o-mini
    try:
        ran = _run(tmp_path, stub, "run.replicates=2", model="openai/gpt-4o-mini")
    finally:
        stub.state.reported_model = None
    assert ran.code == 0, ran.stderr
    said = [line for line in ran.stderr.splitlines() if "gpt-4o answered" in line]
    assert len(said) == 1 and "asked openai/gpt-4o-mini" in said[0], ran.stderr
    attempts = _attempts(tmp_path, "r")
    assert len(attempts) == 10
    assert {(a["requested_model"], a["reported_model"]) for a in attempts} == {
        ("openai/gpt-4o-mini", "gpt-4o")
    }
    journal = _spend_lines(tmp_path, "r")
    assert len(journal) == len(stub.state.requests) == 5  # temperature 0: replicate 2 replays
    assert {(line["model"], line["reported_model"]) for line in journal} == {
        ("openai/gpt-4o-mini", "gpt-4o")
    }
    # the replay of the same answers (another run, the same cache) stores the same names
    again = _run(tmp_path, stub, "run.replicates=2", model="openai/gpt-4o-mini", run_id="again")
    assert again.code == 0 and len(stub.state.requests) == 5, again.stderr
    assert _attempts(tmp_path, "again") == attempts


def test_an_answer_from_the_model_asked_stores_no_second_name(tmp_path, stub):
    ran = _run(tmp_path, stub, model="openai/gpt-4o-mini")
    assert ran.code == 0, ran.stderr
    assert all("requested_model" not in a for a in _attempts(tmp_path, "r"))
    journal = _spend_lines(tmp_path, "r")
    assert {line["model"] for line in journal} == {"openai/gpt-4o-mini"}
    assert all("reported_model" not in line for line in journal)


# --- an answer the client gave up on ---------------------------------------------------------


def _warm_up(stub) -> None:
    """litellm's first call in a process imports more of itself (a second or more on a loaded
    machine), which would eat a short timeout before anything is sent: made once beforehand."""
    spec = ProviderSpec(name="litellm", model="openai/warm-up", api_base=stub.api_base)
    request = CompletionRequest(
        provider="litellm",
        model="openai/warm-up",
        api_base=stub.api_base,
        system="",
        messages=(("user", "warm up"),),
        temperature=0.0,
        max_tokens=4,
    )
    asyncio.run(LiteLLMProvider(spec, project_root=ROOT).acomplete(request))
    stub.reset()


def test_a_call_that_timed_out_is_counted_as_an_estimate_apart_from_the_spend(tmp_path, stub):
    _warm_up(stub)
    stub.state.delay_s = 2.0  # answers (and would bill) after the client's 0.3 s timeout
    impatient = ("provider.timeout_s=0.3", "provider.max_attempts=1")
    try:
        slow = _run(tmp_path, stub, *impatient, model="openai/gpt-4o-mini")
    finally:
        stub.state.delay_s = 0.0
    assert slow.code == 3, slow.stderr  # the match waits
    (sent,) = stub.state.requests
    journal = _spend_lines(tmp_path, "r")
    (line,) = journal
    assert line["estimate"].startswith("timed out after 0.3 s")
    assert line["live"] == 0 and line["cost_usd"] == 0  # not counted as paid
    assert line["model"] == "openai/gpt-4o-mini"
    # the prompt's tokens as counted before sending, and at most max_tokens of answer
    assert 100 < line["estimated_input_tokens"] < 2000
    assert line["estimated_output_tokens"] == sent["max_tokens"]
    price = import_litellm().model_cost["gpt-4o-mini"]
    assert line["estimated_cost_usd"] == pytest.approx(
        line["estimated_input_tokens"] * price["input_cost_per_token"]
        + sent["max_tokens"] * price["output_cost_per_token"]
    )
    spend = _manifest(tmp_path)["spend"]
    assert (spend["live"], spend["cost_usd"]) == (0, 0)
    assert spend["estimated_calls"] == 1
    assert spend["estimated_cost_usd"] == pytest.approx(line["estimated_cost_usd"])
    # the summary says it apart from what was spent
    said = [s for s in slow.stdout.splitlines() if s.startswith("may have been billed")]
    assert len(said) == 1 and "1 call that timed out" in said[0], slow.stdout
    assert "(an estimate" in said[0]

    resumed = _run(tmp_path, stub, *impatient, model="openai/gpt-4o-mini")  # answered in time
    assert resumed.code == 0, resumed.stderr
    spend = _manifest(tmp_path)["spend"]
    assert spend["live"] == 5 and spend["estimated_calls"] == 1  # kept apart, over both attempts
