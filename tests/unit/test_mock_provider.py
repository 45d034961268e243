"""The offline mock model: deterministic, reads labels and history from the rendered prompt."""

import asyncio
import time
from pathlib import Path

import pytest

from pdbench.agents.llm.prompts import PromptBuilder
from pdbench.config.schema import LLMAgentSpec, MockBehaviour, ProviderSpec
from pdbench.core.actions import C, D
from pdbench.core.horizon import FixedHorizon
from pdbench.core.parse import parse_answer
from pdbench.core.transcript import PlayedRound, observe
from pdbench.games.tables import GAMES
from pdbench.providers.base import CompletionRequest, ProviderClient, ProviderError
from pdbench.providers.mock import MockProvider, cache_key_options, persona_lean

ROOT = Path(__file__).resolve().parents[2]
SPLIT = GAMES["split_or_steal"]


def request(
    game=SPLIT, moves=(), *, seed=0, response_format="label", temperature=0.0, persona=None
):
    """A request as the LLM agent renders it, for side a after `moves` = [(a, b), ...]."""
    prompts = PromptBuilder(
        LLMAgentSpec(response_format=response_format, persona=persona),
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
    assert completion.output_tokens == 2  # 5 characters, rounded up
    one_letter = asyncio.run(mock().acomplete(request(GAMES["pd"])))
    assert one_letter.text == "C" and one_letter.output_tokens == 1  # never 0 tokens
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


# --- a scripted model: the mock answers as a registered policy would --------------------------


def scripted(policy, moves, *, seed=7, params=None, **spec):
    """The scripted mock's move after `moves`, read back from a prompt in the spec's format."""
    provider = mock(strategy="policy", policy=policy, params=params or {})
    spec = {"history_window": None, **spec}
    prompts = PromptBuilder(
        LLMAgentSpec(**spec), game=GAMES["pd"], horizon=FixedHorizon(50), project_root=ROOT
    )
    rounds = [
        PlayedRound(i, a, b, *GAMES["pd"].payoffs.payoffs(a, b))
        for i, (a, b) in enumerate(moves, 1)
    ]
    obs = observe(rounds, side="a", history_window=spec["history_window"], include_totals=False)
    fmt = spec.get("response_format", "label")
    answer = provider.answer(
        CompletionRequest(
            provider="mock",
            model="mock",
            api_base=None,
            system=prompts.system,
            messages=(("user", prompts.round_prompt(obs)),),
            temperature=0.0,
            max_tokens=16,
            seed=seed,
            response_format=fmt,
        )
    )
    parsed = parse_answer(answer, GAMES["pd"].labels, fmt)  # the parser a real answer meets
    assert parsed.valid, answer
    return parsed.action


@pytest.mark.parametrize("history_format", ["lines", "sentences", "table", "pairs"])
def test_a_scripted_grim_remembers_a_defection_it_no_longer_sees_last(history_format):
    moves = [(C, C), (C, D), (D, C), (D, C), (D, C)]
    for played in range(len(moves) + 1):
        expected = C if played < 2 else D
        assert scripted("grim", moves[:played], history_format=history_format) is expected


@pytest.mark.parametrize("response_format", ["label", "json", "reasoning"])
def test_a_scripted_policy_answers_in_the_requested_format(response_format):
    assert scripted("tft", [(C, D)], response_format=response_format) is D
    assert scripted("tft", [(C, D), (D, C)], response_format=response_format) is C


def test_a_scripted_policy_plays_its_moves_as_the_policy_does():
    """The mock's move after every prefix of a match equals the policy's own play."""
    from pdbench.strategies import make_policy
    from pdbench.strategies.play import play_loop

    for name, params in [("gradual", {}), ("prober", {}), ("random", {"cooperate_prob": 0.4})]:
        policy = make_policy(name, GAMES["pd"], params)
        opponent = make_policy("random", GAMES["pd"], {"cooperate_prob": 0.6})
        moves = play_loop(policy, opponent, GAMES["pd"], 25, seed_a=11, seed_b=3)
        pairs = list(zip(moves.a, moves.b, strict=True))
        for played in range(25):
            assert scripted(name, pairs[:played], seed=11, params=params) is moves.a[played]


def test_a_scripted_policy_behind_a_history_window_knows_only_what_it_is_shown():
    # TFT needs only the last round; GRIM forgets a defection that left the window.
    moves = [(C, D)] + [(D, C)] * 4
    assert scripted("tft", moves, history_window=2) is C
    assert scripted("grim", moves, history_window=2) is C
    assert scripted("grim", moves, history_window=None) is D


def test_a_scripted_policy_needs_a_prompt_it_can_read():
    provider = mock(strategy="policy", policy="grim")
    unreadable = CompletionRequest(
        provider="mock",
        model="mock",
        api_base=None,
        system="",
        messages=(("user", "Round 4. Your move? Answer with exactly one of: C, D."),),
        temperature=0,
        max_tokens=4,
    )
    with pytest.raises(ProviderError, match="cannot read this prompt"):
        provider.answer(unreadable)
    assert mock(strategy="defect").answer(unreadable) == "D"  # no history needed


def test_scripted_policy_settings_are_checked():
    with pytest.raises(ValueError, match="strategy: policy needs the policy"):
        MockBehaviour(strategy="policy")
    with pytest.raises(ValueError, match="apply only with strategy: policy"):
        MockBehaviour(policy="grim")
    with pytest.raises(ValueError, match='did you mean "grim"'):
        MockBehaviour(strategy="policy", policy="grimm")
    with pytest.raises(ValueError, match="must be between 0 and 1"):
        MockBehaviour(strategy="policy", policy="random", params={"cooperate_prob": 2})
    with pytest.raises(ValueError, match='unknown parameter "p" for random'):
        MockBehaviour(strategy="policy", policy="random", params={"p": 0.3})


def test_the_cache_key_holds_the_policy_only_when_it_plays_one():
    plain = MockBehaviour(strategy="random", cooperate_prob=0.3)
    # what the key held before scripted policies existed, so cached answers keep their keys
    assert cache_key_options(ProviderSpec(mock=plain)) == (
        ("cooperate_prob", 0.3),
        ("invalid_rate", 0.0),
        ("persona_lean", 1),  # answers cached before the persona lean existed do not replay
        ("strategy", "random"),
    )
    grim = MockBehaviour(strategy="policy", policy="grim")
    rand = MockBehaviour(strategy="policy", policy="random", params={"cooperate_prob": 0.3})
    assert dict(cache_key_options(ProviderSpec(mock=grim)))["policy"] == "grim"
    assert dict(cache_key_options(ProviderSpec(mock=rand)))["params"] == {"cooperate_prob": 0.3}
    assert "persona_lean" not in dict(cache_key_options(ProviderSpec(mock=grim)))
    assert len({grim, rand, plain}) == 3  # hashable, as a provider spec must be


def _cooperations(provider, moves, persona, seeds=range(400)):
    return sum(
        provider.answer(request(GAMES["pd"], moves, seed=seed, persona=persona)) == "C"
        for seed in seeds
    )


def test_the_persona_leans_the_answers_by_its_words():
    reciprocate = mock(strategy="reciprocate")
    after_c, after_d = [(C, C)], [(C, D)]
    # neutral personas and no persona: plain reciprocity
    for persona in (None, "tit_for_tat", "grim_trigger", "wsls"):
        assert _cooperations(reciprocate, after_c, persona) == 400
        assert _cooperations(reciprocate, after_d, persona) == 0
    # exploitative: defects in about 35% of the rounds it would cooperate, never forgives
    assert 400 - 0.35 * 400 - 40 <= _cooperations(reciprocate, after_c, "exploitative") <= 300
    assert _cooperations(reciprocate, after_d, "exploitative") == 0
    # cooperative (and generous TFT, which forgives): cooperates in about half the rounds it
    # would defect, never defects first
    for persona in ("cooperative", "generous_tft"):
        assert _cooperations(reciprocate, after_c, persona) == 400
        assert 160 <= _cooperations(reciprocate, after_d, persona) <= 240


def test_the_lean_applies_to_random_and_not_to_scripted_strategies():
    rand = mock(strategy="random", cooperate_prob=0.5)
    assert _cooperations(rand, [], "exploitative") < _cooperations(rand, [], None) - 40
    assert _cooperations(rand, [], "cooperative") > _cooperations(rand, [], None) + 40
    for scripted, expected in ((mock(strategy="cooperate"), 400), (mock(strategy="defect"), 0)):
        assert _cooperations(scripted, [], "exploitative") == expected
        assert _cooperations(scripted, [], "cooperative") == expected
    grim = mock(strategy="policy", policy="grim")
    assert _cooperations(grim, [(C, C)], "exploitative") == 400


@pytest.mark.parametrize(
    ("text", "lean"),
    [
        ("You exploit every weakness.", "competitive"),
        ("Your own score comes above all.", "competitive"),
        ("You are a COMPETITIVE player.", "competitive"),
        ("You value trust and forgiveness.", "cooperative"),
        ("You believe in cooperation.", "cooperative"),
        ("You exploit trust.", None),  # both: mixed words, no lean
        ("You choose what the other player chose.", None),
        ("Choose cooperate or defect.", None),  # action words are no persona
    ],
)
def test_persona_keyword_rules(text, lean):
    found = persona_lean(text)
    assert (found.name if found else None) == lean


def test_a_flipped_answer_says_why_and_is_deterministic():
    provider = mock(strategy="reciprocate")
    answers = [
        provider.answer(
            request(GAMES["pd"], [(C, C)], seed=s, persona="exploitative", response_format="json")
        )
        for s in range(40)
    ]
    flipped = [a for a in answers if parse_answer(a, ("C", "D"), "json").action is D]
    assert flipped and all("score more" in a for a in flipped)
    assert answers == [
        provider.answer(
            request(GAMES["pd"], [(C, C)], seed=s, persona="exploitative", response_format="json")
        )
        for s in range(40)
    ]
