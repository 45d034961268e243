"""Issue 33: prefix caching is asked for where a knob exists (llama.cpp's cache_prompt,
Anthropic's cache_control markers through litellm), the cached-token counts answers report are
stored with each attempt and in the spend journal, and cached input is priced at its own rate
(litellm's price map). Real litellm over real HTTP against the stub server."""

import asyncio
from pathlib import Path

import pytest
from openai_stub_server import StubServer
from stub_http import stub_fixtures

from pdbench.config.schema import ProviderSpec
from pdbench.providers.base import CompletionRequest
from pdbench.providers.gateway import ProviderGateway
from pdbench.providers.litellm import LiteLLMProvider
from pdbench.providers.usage import cache_usage
from pdbench.storage.spend import SpendJournal

ROOT = Path(__file__).resolve().parents[2]

server, stub = stub_fixtures(StubServer, import_litellm=True)


def spec(stub, model="openai/test-model", **changes):
    return ProviderSpec(name="litellm", model=model, api_base=stub.api_base, **changes)


def request(stub, model="openai/test-model", **changes):
    fields = dict(
        provider="litellm",
        model=model,
        api_base=stub.api_base,
        system="You play a game.",
        messages=(("user", "Round 1: your action?"),),
        temperature=0.0,
        max_tokens=16,
    )
    return CompletionRequest(**{**fields, **changes})


def complete(stub, provider_spec, req):
    client = LiteLLMProvider(provider_spec, project_root=ROOT, backoff_base_s=0.01)
    return asyncio.run(client.acomplete(req))


def test_cache_prompt_goes_to_a_llama_cpp_server_and_its_timings_are_read(stub):
    stub.state.answer_extra = {"timings": {"cache_n": 9, "prompt_n": 3}}
    labels = ("C", "D")
    completion = complete(
        stub,
        spec(stub, cache_prompt=True),
        request(stub, constrain="grammar", labels=labels),
    )
    body = stub.state.requests[-1]
    assert body["cache_prompt"] is True
    assert body["grammar"] == 'root ::= "C" | "D"'  # the constraint is kept beside it
    assert completion.cached_input_tokens == 9
    assert completion.cache_write_tokens is None


def test_nothing_is_asked_unless_configured(stub):
    completion = complete(stub, spec(stub), request(stub))
    body = stub.state.requests[-1]
    assert "cache_prompt" not in body and "grammar" not in body
    assert completion.cached_input_tokens is None  # the server said nothing: not 0
    complete(stub, spec(stub, cache_prompt=False), request(stub))
    assert stub.state.requests[-1]["cache_prompt"] is False


def test_openai_cached_tokens_are_priced_at_the_cached_rate(stub):
    import litellm

    stub.state.prompt_tokens, stub.state.completion_tokens = 2000, 10
    stub.state.usage_extra = {"prompt_tokens_details": {"cached_tokens": 1536}}
    try:
        completion = complete(
            stub, spec(stub, "openai/gpt-4o-mini"), request(stub, "openai/gpt-4o-mini")
        )
    finally:
        stub.state.prompt_tokens, stub.state.completion_tokens = 12, 1
    price = litellm.model_cost["gpt-4o-mini"]
    assert price["cache_read_input_token_cost"] < price["input_cost_per_token"]
    expected = (
        (2000 - 1536) * price["input_cost_per_token"]
        + 1536 * price["cache_read_input_token_cost"]
        + 10 * price["output_cost_per_token"]
    )
    assert completion.cached_input_tokens == 1536
    assert completion.cost_usd == pytest.approx(expected)
    assert (
        completion.cost_usd
        < 2000 * price["input_cost_per_token"] + 10 * price["output_cost_per_token"]
    )


def test_anthropic_markers_and_cache_counts(stub, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "dummy")
    model = "anthropic/claude-3-5-haiku-20241022"
    stub.state.usage_extra = {"cache_read_input_tokens": 1200, "cache_creation_input_tokens": 300}
    stub.state.prompt_tokens = 40
    try:
        completion = complete(
            stub,
            ProviderSpec(
                name="litellm",
                model=model,
                api_base=stub.api_base.removesuffix("/v1"),
                cache_markers=True,
            ),
            request(stub, model, api_base=stub.api_base.removesuffix("/v1")),
        )
    finally:
        stub.state.prompt_tokens = 12
    body = stub.state.requests[-1]
    system = body["system"]
    assert isinstance(system, list) and system[-1]["cache_control"] == {"type": "ephemeral"}
    assert completion.text == "C"
    assert completion.cached_input_tokens == 1200
    assert completion.cache_write_tokens == 300


def test_cache_counts_reach_the_attempt_the_cache_and_the_spend_journal(stub, tmp_path):
    stub.state.answer_extra = {"timings": {"cache_n": 7, "prompt_n": 5}}
    journal = SpendJournal(tmp_path / "spend.jsonl")
    gateway = ProviderGateway(cache_dir=tmp_path / "cache", spend=journal, project_root=ROOT)
    provider_spec = spec(stub, cache_prompt=True)
    live = asyncio.run(gateway.complete(provider_spec, request(stub)))
    replayed = asyncio.run(gateway.complete(provider_spec, request(stub)))
    gateway.close()
    assert live.cached_input_tokens == 7 and not live.cached
    assert replayed.cached and replayed.cached_input_tokens == 7  # a replay writes the same attempt
    assert journal.total().cached_input_tokens == 7  # paid once
    assert len(stub.state.requests) == 1


def test_counts_that_are_no_counts_are_not_read():
    assert cache_usage({"usage": {"prompt_tokens_details": {"cached_tokens": -1}}}) == (None, None)
    assert cache_usage({"usage": {"cache_read_input_tokens": True}}) == (None, None)
    assert cache_usage({"timings": {"cache_n": 2.5}}) == (None, None)
    assert cache_usage({"usage": {"prompt_tokens_details": None}, "timings": {"cache_n": 4}}) == (
        4,
        None,
    )
