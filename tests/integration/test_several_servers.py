"""One model on two servers (`provider.api_bases`): calls alternate between them, which server
answered is stored with each attempt and is not in the cache key, a server killed mid-run is left
out while the run goes on with nothing lost, and with every server down the run waits as it does
for one server (incomplete, the same command resumes)."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from openai_stub_server import StubServer

from pdbench.games.matrix.stored import as_rounds
from pdbench.providers.base import CompletionRequest
from pdbench.runners.experiment import run_experiment
from pdbench.runners.prepare import load

PROJECT = Path(__file__).resolve().parents[2]


def experiment(tmp_path: Path, servers: list[str]) -> Path:
    path = tmp_path / "pool.yaml"
    listed = ", ".join(f'"{s}"' for s in servers)
    path.write_text(
        f"""
run: {{seed: 1, replicates: 4, output_dir: {tmp_path / "runs"}, max_concurrency: 2}}
horizon: {{type: fixed, rounds: 6}}
provider: {{name: litellm, model: openai/pool-model, api_bases: [{listed}], max_attempts: 2,
            timeout_s: 5}}
persona: cooperative
conditions:
  - name: pool
    agent_a: {{ref: "agent/llm_default.yaml", overrides: {{temperature: 0.7}}}}
    agent_b: tft
"""
    )
    return path


def attempts(run_dir: Path) -> list[dict]:
    found = []
    stored = (run_dir / "rounds.jsonl").read_text().splitlines()
    for row in as_rounds(json.loads(line) for line in stored):  # as the readers read them
        found += row.get("agent_a_attempts") or []
    return found


@pytest.fixture
def two_servers(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "dummy")
    with StubServer() as first, StubServer() as second:
        yield first, second


@pytest.mark.slow
def test_a_server_killed_mid_run_is_left_out_and_nothing_is_lost(tmp_path, two_servers):
    first, second = two_servers
    first.state.delay_s = second.state.delay_s = 0.02
    killed = threading.Event()

    def kill_first_after_some_calls() -> None:
        while len(first.state.requests) < 3:
            threading.Event().wait(0.01)
        first._server.shutdown()
        first._server.server_close()  # connections are refused from now on
        killed.set()

    threading.Thread(target=kill_first_after_some_calls, daemon=True).start()
    outcome = run_experiment(
        load(experiment(tmp_path, [first.api_base, second.api_base]), [], project_root=PROJECT)
    )
    assert killed.is_set()
    assert outcome.status == "complete", outcome.error
    rows = (outcome.run_dir / "rounds.jsonl").read_text().splitlines()
    assert len(rows) == 4 * 6  # every round of every replicate stored
    stored = attempts(outcome.run_dir)
    servers = [a.get("server") for a in stored]
    assert set(servers) == {first.api_base, second.api_base}
    assert servers.count(first.api_base) == len(first.state.requests)
    assert servers.count(second.api_base) == len(second.state.requests)

    # The cache key names the model, not the server: a re-run replays every answer, the stored
    # attempts (servers included) are the same, and neither server is asked.
    before = len(second.state.requests)
    again = run_experiment(
        load(
            experiment(tmp_path, [first.api_base, second.api_base]),
            ["run.run_id=again"],
            project_root=PROJECT,
        )
    )
    assert again.status == "complete"
    assert len(second.state.requests) == before
    assert attempts(again.run_dir) == stored


def test_the_server_is_not_in_the_cache_key():
    base = dict(provider="litellm", model="openai/m", system="s", messages=(("user", "hi"),))
    base |= dict(temperature=0.0, max_tokens=5)
    pooled = CompletionRequest(api_base=None, **base)  # type: ignore[arg-type]
    assert "server" not in pooled.key_fields()


@pytest.mark.slow
def test_every_server_down_is_a_transport_failure_and_the_run_resumes(tmp_path, two_servers):
    first, second = two_servers
    down = [first.api_base, second.api_base]
    for server in two_servers:
        server._server.shutdown()
        server._server.server_close()
    path = experiment(tmp_path, down)
    outcome = run_experiment(load(path, ["run.run_id=down"], project_root=PROJECT))
    assert outcome.status == "incomplete"
    assert "every one of its 2 servers failed" in (outcome.error or "")
    assert outcome.matches_waiting == 4
