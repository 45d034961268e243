"""Issue 13, what replicates mean and what a run cost: the sampling model (case 5), spend and
unknown prices (6) and the budget's exit code (12), against a local OpenAI-compatible stub
through litellm. The console script's entry point runs in this process (litellm imports once).
"""

from __future__ import annotations

import pytest
from silently_wrong_helpers import (
    FIXTURES,
    console_in_process,
    litellm_experiment,
    moves,
    open_viewer,
    read_manifest,
    read_rounds,
    run_experiment_file,
    stub_server_class,
    viewer_texts,
)
from stub_http import stub_fixtures

server, stub = stub_fixtures(stub_server_class())


def condition(name: str, temperature: float = 0.0, opponent: str = "tft") -> str:
    agent = f'{{ref: "agent/llm_default.yaml", overrides: {{temperature: {temperature}}}}}'
    return f"  - {{name: {name}, agent_a: {agent}, agent_b: {opponent}}}\n"


def summary_line(stdout: str, condition_name: str) -> str:
    lines = [line for line in stdout.splitlines() if line.split()[:1] == [condition_name]]
    assert lines, f"no summary line for {condition_name}:\n{stdout}"
    return lines[0]


@pytest.fixture
def sampling_run(stub, tmp_path, monkeypatch):
    """A T=0 LLM condition, a T=0.7 one and a policy one, 3 replicates, through the console."""
    config = litellm_experiment(
        tmp_path,
        stub.api_base,
        condition("llm_replayed")
        + condition("llm_sampled", 0.7)
        + "  - {name: tft_vs_grim, agent_a: tft, agent_b: grim}\n",
    )
    done = console_in_process(
        "run", str(config), f"run.output_dir={tmp_path}", "--run-id", "s", monkeypatch=monkeypatch
    )
    assert done.returncode == 0, done
    return done, tmp_path / "s"


# --- case 5: the sampling model ------------------------------------------------------------------


def test_manifest_declares_the_sampling_model_of_each_condition(sampling_run):
    _, run_dir = sampling_run
    manifest = read_manifest(run_dir)
    assert "sampling" in manifest, sorted(manifest)
    assert manifest["sampling"] == {
        "llm_replayed": {"replicates": "deterministic_replay", "effective_n": 1},
        "llm_sampled": {"replicates": "independent", "effective_n": 3},
        "tft_vs_grim": {"replicates": "independent", "effective_n": 3},
    }


def test_summary_says_temperature_zero_replicates_are_deterministic_replays(sampling_run):
    done, _ = sampling_run
    assert "deterministic replays" in done.stdout, done


def test_sampled_answers_are_fresh_samples_in_every_condition(stub, tmp_path):
    config = litellm_experiment(
        tmp_path, stub.api_base, condition("first", 0.7) + condition("second", 0.7), replicates=2
    )
    outcome = run_experiment_file(config, [], output_dir=tmp_path / "runs", run_id="t")
    assert outcome.status == "complete", outcome.error
    # 2 conditions x 2 replicates x 2 rounds, each a fresh sample from the server.
    assert len(stub.state.requests) == 8


def test_sampled_mock_answers_differ_between_conditions(tmp_path):
    outcome = run_experiment_file(
        FIXTURES / "sampled_mock.yaml", [], output_dir=tmp_path, run_id="m"
    )
    rounds = read_rounds(outcome.run_dir)
    pairs = [(moves(rounds, "first", r), moves(rounds, "second", r)) for r in range(3)]
    assert all(len(first) == 8 for first, _ in pairs)
    assert any(first != second for first, second in pairs), pairs


def test_a_cache_namespace_draws_fresh_samples_on_purpose(stub, tmp_path, monkeypatch):
    config = litellm_experiment(tmp_path, stub.api_base, condition("llm"), replicates=1)
    sent = []
    for run_id, namespace in (("a", "first"), ("b", "second"), ("c", "first")):
        done = console_in_process(
            "run",
            str(config),
            f"run.output_dir={tmp_path / 'runs'}",
            f"run.cache.namespace={namespace}",
            "--run-id",
            run_id,
            "-q",
            monkeypatch=monkeypatch,
        )
        assert done.returncode == 0, done
        sent.append(len(stub.state.requests))
    # A new namespace calls the model again; the first namespace replays from the cache.
    assert sent == [2, 4, 4]


# --- case 6 and 12: spend, unknown prices, the budget -------------------------------------------


@pytest.fixture
def budget_runs(stub, tmp_path, monkeypatch):
    """A priced model whose every call costs $0.015 (100,000 prompt tokens of gpt-4o-mini) and
    one 5-round match: with a $0.04 budget the run stops after 3 calls, before the match ends;
    the same command with $1 resumes it, replaying the 3 paid answers from the cache.
    Returns (stopped command, resumed command, run dir)."""
    stub.state.prompt_tokens = 100_000
    config = litellm_experiment(
        tmp_path,
        stub.api_base,
        condition("gpt_vs_tft"),
        model="openai/gpt-4o-mini",
        rounds=5,
        replicates=1,
    )
    command = ["run", str(config), f"run.output_dir={tmp_path}", "--run-id", "b"]
    try:
        stopped = console_in_process(*command, "run.max_cost_usd=0.04", monkeypatch=monkeypatch)
        resumed = console_in_process(*command, "run.max_cost_usd=1", monkeypatch=monkeypatch)
    finally:
        stub.state.prompt_tokens = 12
    assert resumed.returncode == 0, resumed
    return stopped, resumed, tmp_path / "b"


def test_a_budget_stop_exits_with_its_own_code(budget_runs):
    stopped, _, _ = budget_runs
    assert "budget" in stopped.stderr, stopped
    assert stopped.returncode == 4, stopped


def test_summary_shows_what_was_spent(budget_runs):
    _, resumed, run_dir = budget_runs
    spent = read_manifest(run_dir)["spend"]["cost_usd"]
    assert abs(spent - 5 * 0.015) < 0.001
    assert f"{spent:.4f}" in resumed.stdout, resumed


def test_an_unknown_price_shows_as_unknown(sampling_run):
    done, _ = sampling_run
    for name in ("llm_replayed", "llm_sampled"):
        line = summary_line(done.stdout, name)
        assert "0.0000" not in line and "unknown" in line, line


def test_viewer_shows_what_was_spent(budget_runs, tmp_path, monkeypatch):
    _, _, run_dir = budget_runs
    spent = read_manifest(run_dir)["spend"]["cost_usd"]
    shown = viewer_texts(open_viewer(run_dir, tmp_path, monkeypatch))
    assert any(f"${spent:.4f}" in text for text in shown), shown


def test_viewer_shows_an_unknown_price_as_unknown(sampling_run, tmp_path, monkeypatch):
    _, run_dir = sampling_run
    shown = viewer_texts(open_viewer(run_dir, tmp_path, monkeypatch))
    assert not [text for text in shown if "$0.0000" in text], shown
    assert any("unknown" in text.lower() for text in shown if "cost" in text.lower()), shown
