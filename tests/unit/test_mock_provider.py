"""The offline mock model: deterministic, reads labels and history from the rendered prompt."""

import asyncio
import time
from pathlib import Path

import pytest

from pdbench.agents.llm.prompts import PromptBuilder
from pdbench.config.schema import LLMAgentSpec, MockBehaviour
from pdbench.core.actions import C, D
from pdbench.core.game import GAMES
from pdbench.core.horizon import FixedHorizon
from pdbench.core.parse import parse_answer
from pdbench.core.transcript import PlayedRound, observe
from pdbench.providers.base import CompletionRequest, ProviderClient
from pdbench.providers.mock import MockProvider

ROOT = Path(__file__).resolve().parents[2]
SPLIT = GAMES["split_or_steal"]


def request(game=SPLIT, moves=(), *, seed=0, response_format="label", temperature=0.0):
    """A request as the LLM agent renders it, for side a after `moves` = [(a, b), ...]."""
    prompts = PromptBuilder(
        LLMAgentSpec(response_format=response_format),
        game=game,
        horizon=FixedHorizon(10),
        project_root=ROOT,
    )
    rounds = [
        PlayedRound(i, a, b, *game.payoffs.payoffs(a, b)) for i, (a, b) in enumerate(moves, 1)
    ]
    obs = observe(rounds, side="a", history_window=None, include_totals=False)
    return CompletionRequest(
        provider="mock",
        model="mock",
        api_base=None,
        system=prompts.system,
        messages=(("user", prompts.round_prompt(obs)),),
        temperature=temperature,
        max_tokens=16,
        seed=seed,
        response_format=response_format,
    )


def mock(**behaviour):
    return MockProvider(MockBehaviour(**behaviour))


def test_it_is_a_provider_client():
    assert isinstance(MockProvider(), ProviderClient)


@pytest.mark.parametrize(("strategy", "answer"), [("cooperate", "split"), ("defect", "steal")])
def test_fixed_strategies_answer_in_the_games_labels(strategy, answer):
    provider = mock(strategy=strategy)
    for moves in [(), [(C, D)], [(D, C), (C, C)]]:
        assert provider.answer(request(moves=moves)) == answer


@pytest.mark.parametrize(
    ("moves", "answer"),
    [
        ((), "split"),
        ([(C, D)], "steal"),
        ([(C, D), (D, C)], "split"),
        ([(C, C), (C, C), (D, D)], "steal"),
    ],
)
def test_reciprocate_copies_the_opponents_last_move(moves, answer):
    assert mock(strategy="reciprocate").answer(request(moves=moves)) == answer


def test_reciprocate_in_the_classic_labels():
    assert mock().answer(request(GAMES["pd"], [(C, D)])) == "D"
    assert mock().answer(request(GAMES["pd"], [(D, C)])) == "C"


def test_without_an_instruction_it_answers_c_or_d():
    provider = mock(strategy="defect")
    bare = CompletionRequest(
        provider="mock",
        model="mock",
        api_base=None,
        system="",
        messages=(("user", "your move?"),),
        temperature=0,
        max_tokens=4,
    )
    assert provider.answer(bare) == "D"


def test_answers_are_a_function_of_the_request():
    provider = mock(strategy="random", invalid_rate=0.3)
    answers = [provider.answer(request(seed=seed)) for seed in range(50)]
    assert answers == [provider.answer(request(seed=seed)) for seed in range(50)]
    assert answers == [
        mock(strategy="random", invalid_rate=0.3).answer(request(seed=s)) for s in range(50)
    ]
    assert len(set(answers)) > 2  # split, steal and some garbage


@pytest.mark.parametrize(("prob", "low", "high"), [(0.0, 0, 0), (1.0, 300, 300), (0.7, 180, 240)])
def test_random_cooperates_with_cooperate_prob(prob, low, high):
    provider = mock(strategy="random", cooperate_prob=prob)
    answers = [provider.answer(request(seed=seed)) for seed in range(300)]
    assert set(answers) <= {"split", "steal"}
    assert low <= answers.count("split") <= high


def test_invalid_rate_produces_garbage_that_never_parses():
    provider = mock(invalid_rate=0.25)
    answers = [provider.answer(request(seed=seed)) for seed in range(400)]
    invalid = [a for a in answers if not parse_answer(a, SPLIT.labels).valid]
    assert 70 <= len(invalid) <= 130
    assert all(not parse_answer(a, SPLIT.labels, "json").valid for a in invalid)
    always = mock(invalid_rate=1.0)
    assert not any(
        parse_answer(always.answer(request(seed=s)), SPLIT.labels).valid for s in range(20)
    )


def test_json_when_the_prompt_asks_for_json():
    answer = mock(strategy="defect").answer(request(response_format="json"))
    parsed = parse_answer(answer, SPLIT.labels, "json")
    assert parsed.valid and parsed.action is D
    assert parsed.reason == "I always defect."


def test_tokens_and_cost():
    completion = asyncio.run(mock().acomplete(request()))
    assert completion.text == "split"
    assert completion.cost_usd == 0.0
    assert completion.output_tokens == len("split") // 4
    assert completion.input_tokens > 100
    assert completion.cached is False


def test_latency_is_simulated():
    provider = mock(latency_s=0.05)
    start = time.perf_counter()
    asyncio.run(provider.acomplete(request()))
    assert time.perf_counter() - start >= 0.05


def test_latency_overlaps_in_async_calls():
    provider = mock(latency_s=0.1)

    async def ten_calls():
        return await asyncio.gather(*(provider.acomplete(request(seed=s)) for s in range(10)))

    start = time.perf_counter()
    asyncio.run(ten_calls())
    assert time.perf_counter() - start < 0.5
