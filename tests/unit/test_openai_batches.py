"""Issue 46: which providers take batches, what a batch line holds, and what a batch answer costs
(providers/openai_batches.py, providers/prices.py), without a server."""

from __future__ import annotations

import pytest

from pdbench.config.provider_spec import TokenPrice
from pdbench.config.schema import ProviderSpec
from pdbench.providers.base import CompletionRequest, MalformedResponse
from pdbench.providers.openai_batches import (
    ANTHROPIC_UNSUPPORTED,
    OpenAIBatches,
    _failure,
    batch_support,
)
from pdbench.providers.prices import batch_rates, rates


def _spec(model: str, **more) -> ProviderSpec:
    return ProviderSpec(name="litellm", model=model, **more)


def test_openai_takes_batches_and_the_others_say_why_not():
    assert batch_support(_spec("openai/gpt-4o-mini")) is None
    assert batch_support(_spec("openai/my-model", api_base="http://127.0.0.1:9/v1")) is None
    assert batch_support(_spec("anthropic/claude-3-5-haiku-latest")) == ANTHROPIC_UNSUPPORTED
    assert "offline" in batch_support(ProviderSpec())
    pool = _spec("openai/m", api_bases=("http://127.0.0.1:1/v1", "http://127.0.0.1:2/v1"))
    assert "api_bases" in batch_support(pool)
    assert "gemini" in batch_support(_spec("gemini/gemini-1.5-flash"))


def test_batch_rates_are_the_maps_own_else_half_the_price():
    (found, source) = batch_rates(_spec("openai/gpt-4o-mini"))
    assert source == "litellm price map's batch prices"
    assert found == pytest.approx((0.075e-6, 0.0375e-6, 0.3e-6))
    # a model the map prices without batch prices: half, said so
    immediate, _ = rates(_spec("openai/gpt-3.5-turbo"))
    halved, source = batch_rates(_spec("openai/gpt-3.5-turbo"))
    assert halved == pytest.approx(tuple(rate / 2 for rate in immediate))
    assert source == "half of litellm price map: no batch price known"
    # a price the config gives is halved the same way
    given = _spec("openai/x", usd_per_million_tokens=TokenPrice(input=2.0, output=8.0))
    assert batch_rates(given) == (
        pytest.approx((1e-6, 1e-6, 4e-6)),
        "half of provider.usd_per_million_tokens: no batch price known",
    )
    assert batch_rates(_spec("openai/pdbench-unpriced-model")) is None


def test_a_batch_line_is_the_chat_request_the_model_takes():
    request = CompletionRequest(
        provider="litellm",
        model="openai/gpt-5-mini",
        api_base=None,
        system="rules",
        messages=(("user", "Round 1: your action?"),),
        temperature=1.0,
        max_tokens=16,
        seed=7,
        response_format="json",
    )
    line = OpenAIBatches(_spec("openai/gpt-5-mini")).request_line(request, "key-1")
    assert line["custom_id"] == "key-1" and line["url"] == "/v1/chat/completions"
    body = line["body"]
    assert body["model"] == "gpt-5-mini"  # without litellm's provider prefix
    assert body["messages"] == request.chat_messages()
    assert body["max_completion_tokens"] == 16 and "max_tokens" not in body  # a reasoning model
    assert body["seed"] == 7 and body["response_format"] == {"type": "json_object"}


def test_an_answer_is_priced_at_the_batch_rate_and_one_without_text_is_malformed():
    batches = OpenAIBatches(_spec("openai/gpt-4o-mini"))
    body = {
        "id": "chatcmpl-1",
        "model": "gpt-4o-mini-2024-07-18",
        "choices": [{"message": {"role": "assistant", "content": "C"}}],
        "usage": {"prompt_tokens": 1000, "completion_tokens": 2},
    }
    completion = batches.to_completion(body)
    assert completion.text == "C" and completion.response_id == "chatcmpl-1"
    assert completion.cost_usd == pytest.approx(1000 * 0.075e-6 + 2 * 0.3e-6)
    with pytest.raises(MalformedResponse):
        batches.to_completion({**body, "choices": [{"message": {"tool_calls": []}}]})


@pytest.mark.parametrize(
    ("error", "response", "transient"),
    [
        ({"code": "batch_expired", "message": "window"}, {}, True),
        (None, {"status_code": 429, "body": {"error": {"message": "slow down"}}}, True),
        (None, {"status_code": 500, "body": {}}, True),
        (None, {"status_code": 400, "body": {"error": {"code": "invalid_request"}}}, False),
    ],
)
def test_a_request_without_answer_is_retried_only_when_another_batch_can_help(
    error, response, transient
):
    assert _failure(error, response).transient is transient
