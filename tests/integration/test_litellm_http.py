"""Real litellm over real HTTP against a local OpenAI-compatible stub server (no network, no key).

litellm takes several seconds to import; the module-scoped fixture imports it once.
"""

import asyncio
import logging
from pathlib import Path

import pytest
from helpers import TEST_DEAL
from openai_stub_server import StubServer
from reference_loop import play_match_sync
from stub_http import stub_fixtures

from pdbench.agents.base import AgentContext
from pdbench.agents.kinds import make_agent
from pdbench.config.schema import LLMAgentSpec, ProviderSpec
from pdbench.core.errors import ConfigError
from pdbench.core.horizon import FixedHorizon
from pdbench.games.tables import GAMES
from pdbench.providers.base import CompletionRequest, ProviderError, ProviderUnavailable
from pdbench.providers.gateway import ProviderGateway
from pdbench.providers.litellm import LiteLLMProvider
from pdbench.strategies import make_policy

ROOT = Path(__file__).resolve().parents[2]


server, stub = stub_fixtures(StubServer, import_litellm=True)


def provider_spec(stub, model="openai/test-model", **changes):
    return ProviderSpec(name="litellm", model=model, api_base=stub.api_base, **changes)


def provider(stub, **changes):
    return LiteLLMProvider(provider_spec(stub, **changes), project_root=ROOT, backoff_base_s=0.01)


def request(stub, model="openai/test-model", **changes):
    fields = dict(
        provider="litellm",
        model=model,
        api_base=stub.api_base,
        system="You play a game.",
        messages=(("user", "Round 1. Answer with exactly one of: C, D."),),
        temperature=0.0,
        max_tokens=16,
    )
    return CompletionRequest(**{**fields, **changes})


def test_request_and_usage(stub):
    stub.reset(default_text="D")
    client = provider(stub)
    completion = asyncio.run(client.acomplete(request(stub, seed=7, temperature=0.3)))
    asyncio.run(client.acomplete(request(stub)))
    assert completion.text == "D"
    assert (completion.input_tokens, completion.output_tokens) == (12, 1)
    # an unknown price is None, never $0 (the gateway says so once per run)
    assert completion.cost_usd is None and not completion.cached

    body = stub.state.requests[0]
    assert body["model"] == "test-model"
    assert body["messages"] == [
        {"role": "system", "content": "You play a game."},
        {"role": "user", "content": "Round 1. Answer with exactly one of: C, D."},
    ]
    assert body["temperature"] == 0.3
    assert body["max_tokens"] == 16
    assert body["seed"] == 7
    assert "response_format" not in body
    assert "seed" not in stub.state.requests[1]


def test_json_mode_asks_for_a_json_object(stub):
    stub.reset(default_text='{"action": "C"}')
    completion = asyncio.run(provider(stub).acomplete(request(stub, response_format="json")))
    assert completion.text == '{"action": "C"}'
    assert stub.state.requests[0]["response_format"] == {"type": "json_object"}


def test_a_rate_limit_is_retried_then_succeeds(stub, caplog):
    stub.reset(script=[(429, "")], default_text="C")
    client = provider(stub)
    with caplog.at_level(logging.WARNING, logger="pdbench.providers"):
        completion = asyncio.run(client.acomplete(request(stub)))
    assert completion.text == "C"
    assert len(stub.state.requests) == 2 and client.transport_attempts == 2
    said = [r.getMessage() for r in caplog.records]
    assert any("rate limited (429)" in m and "before attempt 2 of 5" in m for m in said), said


def test_persistent_server_errors_give_up_after_max_attempts(stub):
    stub.reset(script=[(500, "")] * 3)
    with pytest.raises(ProviderUnavailable, match="still failing after 3 attempts"):
        asyncio.run(provider(stub, max_attempts=3).acomplete(request(stub)))
    assert len(stub.state.requests) == 3


def test_a_rejected_key_is_not_retried(stub):
    stub.reset(script=[(401, "")])
    with pytest.raises(ProviderError, match="API key for openai/test-model was rejected"):
        asyncio.run(provider(stub).acomplete(request(stub)))
    assert len(stub.state.requests) == 1


def test_a_missing_key_says_which_variable_to_set(stub, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    stub.reset(script=[(401, "")])  # a server that wants a key rejects the placeholder one
    with pytest.raises(
        ProviderError, match=r"no API key for openai/test-model: set OPENAI_API_KEY"
    ):
        asyncio.run(provider(stub, max_attempts=2).acomplete(request(stub)))


def test_a_known_model_is_priced(stub):
    stub.reset(default_text="C")
    spec = provider_spec(stub, model="openai/gpt-4o-mini")
    client = LiteLLMProvider(spec, project_root=ROOT)
    completion = asyncio.run(client.acomplete(request(stub, model="openai/gpt-4o-mini")))
    assert completion.cost_usd is not None and completion.cost_usd > 0


def test_dotenv_in_the_project_root_is_loaded_without_overriding(stub, tmp_path, monkeypatch):
    for name in ("PDBENCH_TEST_FROM_DOTENV", "PDBENCH_TEST_ALREADY_SET"):
        monkeypatch.setenv(name, "before")  # registers the variable for restoring
    monkeypatch.delenv("PDBENCH_TEST_FROM_DOTENV")
    (tmp_path / ".env").write_text(
        "PDBENCH_TEST_FROM_DOTENV=loaded\nPDBENCH_TEST_ALREADY_SET=overridden\n"
    )
    LiteLLMProvider(provider_spec(stub), project_root=tmp_path)
    import os

    assert os.environ["PDBENCH_TEST_FROM_DOTENV"] == "loaded"
    assert os.environ["PDBENCH_TEST_ALREADY_SET"] == "before"


def test_an_llm_agent_plays_over_http_and_replays_from_the_cache(stub, tmp_path):
    game = GAMES["split_or_steal"]
    stub.reset(script=[(200, "split"), (200, "I will steal"), (200, "steal")])
    spec = LLMAgentSpec(provider=provider_spec(stub), persona="cooperative")

    def run(mode):
        gateway = ProviderGateway(cache_dir=tmp_path / "cache", cache_mode=mode, project_root=ROOT)
        context = AgentContext(
            deal=TEST_DEAL,
            run_seed=0,
            condition="http",
            replicate=0,
            side="a",
            project_root=ROOT,
            gateway=gateway,
        )
        llm = make_agent(spec, game=game, horizon=FixedHorizon(2), context=context)
        result = play_match_sync(
            game, 2, llm, make_policy("tft", game), seed_a=1, seed_b=2, disclose_rounds=True
        )
        gateway.close()
        return result, gateway.stats

    first, stats = run("readwrite")
    assert [r.played.action_a.value for r in first.rounds] == ["C", "D"]
    assert first.rounds[1].decision_a.invalid_outputs == 1
    assert stats.live == 3 and stats.unknown_price == 3
    assert len(stub.state.requests) == 3
    assert stub.state.requests[2]["messages"][-2] == {
        "role": "assistant",
        "content": "I will steal",
    }

    replayed, replay_stats = run("replay")
    assert len(stub.state.requests) == 3  # no new HTTP request
    assert replay_stats.live == 0 and replay_stats.cached == 3
    assert [r.played for r in replayed.rounds] == [r.played for r in first.rounds]


def test_replay_needs_a_cache_folder():
    with pytest.raises(ConfigError, match="replay needs a cache folder"):
        ProviderGateway(cache_dir=None, cache_mode="replay")


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_a_refused_local_connection_is_not_retried(stub, host, caplog):
    """Issue 41: a local server that is not running cost ~58 s of retries logged as
    "InternalServerError" before the line that says to start it. A refused connection to this
    machine is known at once: one attempt, no retry logged, the hint in the error."""
    import socket

    with socket.socket() as probe:  # a port nothing listens on: bound, then closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    api_base = f"http://{host}:{port}/v1"
    spec = ProviderSpec(name="litellm", model="openai/local", api_base=api_base, max_attempts=5)
    client = LiteLLMProvider(spec, project_root=ROOT, backoff_base_s=0.01)
    with (
        caplog.at_level(logging.WARNING, logger="pdbench.providers.litellm"),
        pytest.raises(ProviderUnavailable, match=f"nothing answers at {api_base}") as refused,
    ):
        asyncio.run(client.acomplete(request(stub, model="openai/local", api_base=api_base)))
    assert client.transport_attempts == 1
    assert not [r.message for r in caplog.records if "retrying" in r.message]
    assert "InternalServerError" not in str(refused.value)
