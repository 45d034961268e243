"""Issue 13, runs against a real provider over HTTP (a local OpenAI-compatible stub, through
litellm): per-condition provider overrides (case 1), transport failures (3) and game ids (7).

The `pdbench` console script's entry point is called in this process (see
`silently_wrong_helpers.console_in_process`): litellm is imported once, not once per command.
"""

from __future__ import annotations

import json
import re

from silently_wrong_helpers import (
    FIXTURES,
    ROOT,
    console_in_process,
    free_port,
    litellm_experiment,
    read_manifest,
    read_rounds,
    rounds_per_match,
    run_experiment_file,
    stub_server_class,
)
from stub_http import stub_fixtures

WAITING_LINE = re.compile(r"^(\d+) matches wait: run the same command again to resume them$")


server, stub = stub_fixtures(stub_server_class())


def llm_experiment(
    folder, api_base: str, *, agent: str = '{ref: "agent/llm_default.yaml"}', replicates=2
):
    """One LLM-vs-TFT condition on a shared litellm provider at `api_base` (3 rounds)."""
    return litellm_experiment(
        folder,
        api_base,
        f"  - {{name: llm_vs_tft, agent_a: {agent}, agent_b: tft}}",
        model="openai/shared-model",
        rounds=3,
        replicates=replicates,
    )


def run_command(config, tmp_path, *extra):
    return [
        "run",
        str(config),
        f"run.output_dir={tmp_path / 'runs'}",
        "--run-id",
        "r",
        "-q",
        *extra,
    ]


# --- case 1: provider overrides merge onto the shared provider -----------------------------------


def loaded_provider(config):
    """The provider agent_a of the first condition ends up with, as the manifest records it."""
    from pdbench.runners.prepare import load

    spec = load(config, [], project_root=ROOT).spec.model_dump(mode="json")
    return spec["conditions"][0]["agent_a"]["provider"]


def test_a_model_override_calls_that_model_on_the_shared_provider(stub, tmp_path):
    agent = '{ref: "agent/llm_default.yaml", overrides: {provider: {model: openai/gpt-4o}}}'
    config = llm_experiment(tmp_path, stub.api_base, agent=agent, replicates=1)
    outcome = run_experiment_file(config, [], output_dir=tmp_path / "runs", run_id="m")
    assert outcome.status == "complete", outcome.error
    assert [request["model"] for request in stub.state.requests] == ["gpt-4o"] * 3


def test_a_name_and_model_override_keeps_the_shared_api_base(tmp_path):
    agent = (
        '{ref: "agent/llm_default.yaml", '
        "overrides: {provider: {name: litellm, model: openai/other-model}}}"
    )
    provider = loaded_provider(llm_experiment(tmp_path, "http://127.0.0.1:9/v1", agent=agent))
    assert (provider["name"], provider["model"]) == ("litellm", "openai/other-model")
    assert provider["api_base"] == "http://127.0.0.1:9/v1"
    assert provider["max_attempts"] == 1


def test_a_transport_override_keeps_the_shared_provider(tmp_path):
    agent = '{ref: "agent/llm_default.yaml", overrides: {provider: {timeout_s: 30}}}'
    provider = loaded_provider(llm_experiment(tmp_path, "http://127.0.0.1:9/v1", agent=agent))
    assert provider["timeout_s"] == 30
    assert (provider["name"], provider["model"]) == ("litellm", "openai/shared-model")
    assert provider["api_base"] == "http://127.0.0.1:9/v1"


# --- case 3: transport failures are not results --------------------------------------------------


def assert_incomplete(done, run_dir, waiting: int) -> None:
    assert done.returncode == 3, done
    last = done.stderr.strip().splitlines()[-1]
    found = WAITING_LINE.match(last)
    assert found and int(found[1]) == waiting, done
    manifest = read_manifest(run_dir)
    assert manifest["status"] == "incomplete"
    ledger = run_dir / "matches.jsonl"
    assert not ledger.exists() or not ledger.read_text().strip(), "a failed match was ledgered"
    assert not read_rounds(run_dir)


def test_server_errors_leave_matches_unfinished_and_the_same_command_resumes(
    stub, tmp_path, monkeypatch
):
    config = llm_experiment(tmp_path, stub.api_base)
    stub.reset(script=[(500, "")] * 50)
    failed = console_in_process(*run_command(config, tmp_path), monkeypatch=monkeypatch)
    run_dir = tmp_path / "runs" / "r"
    assert_incomplete(failed, run_dir, waiting=2)

    stub.reset(default_text="C")  # the server is back
    resumed = console_in_process(*run_command(config, tmp_path), monkeypatch=monkeypatch)
    assert resumed.returncode == 0, resumed
    assert read_manifest(run_dir)["status"] == "complete"
    assert rounds_per_match(run_dir) == {("llm_vs_tft", 0): 3, ("llm_vs_tft", 1): 3}
    assert stub.state.requests, "the resumed run called nobody"


def test_a_server_that_is_down_leaves_the_run_incomplete(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "dummy")
    config = llm_experiment(tmp_path, f"http://127.0.0.1:{free_port()}/v1")
    done = console_in_process(*run_command(config, tmp_path), monkeypatch=monkeypatch)
    assert_incomplete(done, tmp_path / "runs" / "r", waiting=2)


def test_a_rejected_key_is_a_config_error(stub, tmp_path, monkeypatch):
    """No retry and no resume changes a rejected key (issue 26): exit 2, one line."""
    stub.reset(script=[(401, "")] * 50)
    config = llm_experiment(tmp_path, stub.api_base)
    done = console_in_process(*run_command(config, tmp_path), monkeypatch=monkeypatch)
    assert done.returncode == 2, done
    assert "API key for openai/shared-model was rejected" in done.stderr, done
    assert len(stub.state.requests) == 1


def test_an_answer_that_never_parses_is_a_result(stub, tmp_path, monkeypatch):
    """The other kind of provider error: the model answered, just not validly."""
    stub.reset(default_text="I would rather not say")
    config = llm_experiment(tmp_path, stub.api_base)
    done = console_in_process(*run_command(config, tmp_path), monkeypatch=monkeypatch)
    # Every match was played; none finished, so the run is aborted, not complete (issue 26).
    assert done.returncode == 6, done
    run_dir = tmp_path / "runs" / "r"
    assert read_manifest(run_dir)["status"] == "aborted"
    ledger = [json.loads(line) for line in (run_dir / "matches.jsonl").read_text().splitlines()]
    assert sorted(entry["replicate"] for entry in ledger) == [0, 1]
    assert all("I would rather not say" in entry["error"] for entry in ledger)


# --- case 7: a game's id brings its payoffs and labels -------------------------------------------


def payoffs_and_system_prompt(run_dir):
    rounds = read_rounds(run_dir)
    assert rounds and all(r["agent_a_action"] == "C" == r["agent_b_action"] for r in rounds)
    return {(r["agent_a_payoff"], r["agent_b_payoff"]) for r in rounds}, rounds[0][
        "agent_a_attempts"
    ][0]["system"]


def test_changing_the_game_id_loads_that_games_payoffs_and_labels(tmp_path):
    outcome = run_experiment_file(
        FIXTURES / "explicit_pd_game.yaml", ["game.id=stag_hunt"], output_dir=tmp_path, run_id="g"
    )
    payoffs, system = payoffs_and_system_prompt(outcome.run_dir)
    assert payoffs == {(4.0, 4.0)}  # (stag, stag) in the stag hunt; the PD's CC pays 3
    assert "stag" in system and "hare" in system


def test_choosing_a_game_by_name_on_an_experiment_file(tmp_path, monkeypatch):
    config = str(FIXTURES / "explicit_pd_game.yaml")
    checked = console_in_process("validate", config, "game=stag_hunt", monkeypatch=monkeypatch)
    assert checked.returncode == 0, checked
    outcome = run_experiment_file(
        FIXTURES / "explicit_pd_game.yaml", ["game=stag_hunt"], output_dir=tmp_path, run_id="g"
    )
    payoffs, system = payoffs_and_system_prompt(outcome.run_dir)
    assert payoffs == {(4.0, 4.0)}
    assert "stag" in system


def test_labels_given_with_the_new_game_id_are_kept(tmp_path):
    outcome = run_experiment_file(
        FIXTURES / "explicit_pd_game.yaml",
        ["game.id=stag_hunt", "game.labels=[hunt,rest]"],
        output_dir=tmp_path,
        run_id="g",
    )
    payoffs, system = payoffs_and_system_prompt(outcome.run_dir)
    assert payoffs == {(4.0, 4.0)}
    assert "hunt" in system and "rest" in system
