"""Checks on what a provider reports about a paid answer (issue 27, "money miscounted")."""

from __future__ import annotations

import pytest

from pdbench.providers.answer_checks import (
    impossible_usage,
    is_other_model,
    with_possible_usage,
)
from pdbench.providers.base import Completion


@pytest.mark.parametrize(
    ("asked", "reported"),
    [
        ("openai/gpt-4o-mini", "gpt-4o-mini"),
        ("openai/gpt-4o-mini", "gpt-4o-mini-2024-07-18"),
        ("gpt-4-0613", "gpt-4"),
        ("anthropic/claude-3-5-sonnet-latest", "claude-3-5-sonnet-20241022"),
        ("ollama/llama3", "llama3:latest"),
        ("openai/meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-8B-Instruct"),
        ("openai/gpt-4o-mini", None),
    ],
)
def test_the_same_model_under_its_other_names(asked, reported):
    assert not is_other_model(asked, reported)


@pytest.mark.parametrize(
    ("asked", "reported"),
    [
        ("openai/gpt-4o-mini", "gpt-4o"),
        ("openai/gpt-4o", "gpt-4o-mini"),
        ("gpt-4", "gpt-3.5-turbo"),
        ("anthropic/claude-3-5-haiku-latest", "claude-3-5-sonnet-20241022"),
    ],
)
def test_another_model(asked, reported):
    assert is_other_model(asked, reported)


@pytest.mark.parametrize(
    "usage",
    [(-5_000_000, 1, -0.75), (10, -1, 0.0), (10, 1, -0.01), (10, 1, float("nan"))],
)
def test_impossible_usage_counts_as_no_tokens_at_an_unknown_price(usage):
    inputs, outputs, cost = usage
    completion = Completion("C", input_tokens=inputs, output_tokens=outputs, cost_usd=cost)
    assert impossible_usage(completion)
    fixed = with_possible_usage(completion)
    assert fixed.input_tokens >= 0 and fixed.output_tokens >= 0 and fixed.cost_usd is None
    assert fixed.text == "C"


def test_possible_usage_is_left_alone():
    assert not impossible_usage(Completion("C", 10, 1, 0.0))
    assert not impossible_usage(Completion("C", 0, 0, None))


def test_an_unknown_price_is_said_once_per_run_whatever_the_processes(tmp_path):
    """Issue 26: the unknown-price warning came once per job of a sweep. Gateways that share a
    spend journal (the jobs of one sweep, in one process or many) say it once between them."""
    import asyncio

    from pdbench.config.schema import ProviderSpec
    from pdbench.providers.base import Completion, CompletionRequest
    from pdbench.providers.gateway import ProviderGateway
    from pdbench.storage.spend import SpendJournal

    class UnpricedModel:
        async def acomplete(self, request: CompletionRequest) -> Completion:
            return Completion(text="C", input_tokens=10, output_tokens=1, cost_usd=None)

    said: list[str] = []
    spec = ProviderSpec(name="litellm", model="openai/unpriced", api_base="http://127.0.0.1:9/v1")
    ask = CompletionRequest(
        provider="litellm",
        model="openai/unpriced",
        api_base=spec.api_base,
        system="",
        messages=(("user", "Answer with exactly one of: C, D."),),
        temperature=0.0,
        max_tokens=4,
    )
    for job in range(3):  # three jobs of a sweep, each with its own gateway (its own process)
        gateway = ProviderGateway(
            cache_mode="off",
            spend=SpendJournal(tmp_path / "spend.jsonl", source=f"job{job}"),
            client_factory=lambda _spec: UnpricedModel(),
            warn=said.append,
        )
        for _ in range(2):
            asyncio.run(gateway.complete(spec, ask))
        assert gateway.stats.unknown_price == 2  # every such call is still counted
    assert len([s for s in said if "price of openai/unpriced is unknown" in s]) == 1
