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
