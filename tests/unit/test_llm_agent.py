"""The LLM agent end to end with the mock provider: prompts, gateway, strict parsing, retries."""

import asyncio
import dataclasses
from pathlib import Path

import pytest
from helpers import TEST_DEAL
from reference_loop import play_match_sync

from pdbench.agents.base import Agent, AgentContext, Decision
from pdbench.agents.kinds import make_agent
from pdbench.agents.llm.agent import LLMAgent
from pdbench.config.schema import LLMAgentSpec, MockBehaviour, ProviderSpec
from pdbench.core.actions import C, D
from pdbench.core.errors import ConfigError, MatchAborted
from pdbench.core.horizon import FixedHorizon
from pdbench.core.transcript import observe
from pdbench.games.tables import GAMES
from pdbench.providers.base import Completion, ProviderUnavailable
from pdbench.providers.gateway import ProviderGateway
from pdbench.strategies import make_policy

ROOT = Path(__file__).resolve().parents[2]
PD = GAMES["pd"]
SPLIT = GAMES["split_or_steal"]
ATTEMPT_KEYS = {
    "attempt",
    "system",
    "prompt",
    "raw",
    "valid",
    "error",
    "reason",
    "cached",
    "input_tokens",
    "output_tokens",
    "cost_usd",
}


def llm_spec(strategy="reciprocate", invalid_rate=0.0, **spec):
    provider = ProviderSpec(mock=MockBehaviour(strategy=strategy, invalid_rate=invalid_rate))
    return LLMAgentSpec(provider=provider, **spec)


def agent(spec, game=PD, rounds=8, gateway=None, replicate=0):
    context = AgentContext(
        deal=TEST_DEAL,
        run_seed=0,
        condition="test",
        replicate=replicate,
        side="a",
        project_root=ROOT,
        gateway=gateway,
    )
    return make_agent(spec, game=game, horizon=FixedHorizon(rounds), context=context)


def play(llm, opponent="tft", game=PD, rounds=8):
    return play_match_sync(
        game, rounds, llm, make_policy(opponent, game), seed_a=1, seed_b=2, disclose_rounds=True
    )


def moves(result, side="a"):
    return [getattr(r.played, f"action_{side}") for r in result.rounds]


def decide(llm, round_index=1):
    obs = observe([], side="a", history_window=llm.history_window, include_totals=False)
    assert obs.round_index == round_index
    return asyncio.run(llm.decide(obs))


class Scripted:
    """A provider client that answers from a list and records every request."""

    def __init__(self, answers):
        self.answers = list(answers)
        self.requests = []

    async def acomplete(self, request):
        self.requests.append(request)
        return Completion(self.answers.pop(0), 3, 1, None)

    def complete(self, *, system, prompt, temperature, max_tokens):
        raise NotImplementedError


def scripted_gateway(*answers):
    client = Scripted(answers)
    return client, ProviderGateway(cache_dir=None, client_factory=lambda spec: client)


def test_it_is_an_agent_built_by_the_registry():
    llm = agent(llm_spec(persona="tit_for_tat", history_window=3, include_totals=True))
    assert isinstance(llm, LLMAgent) and isinstance(llm, Agent)
    assert llm.name == "mock[tit_for_tat]"
    assert (llm.history_window, llm.include_totals) == (3, True)
    with pytest.raises(TypeError, match="decide"):
        llm.act(observe([], side="a", history_window=1, include_totals=False))


def test_reciprocating_mock_against_tft_cooperates_throughout():
    result = play(agent(llm_spec()), "tft")
    assert result.completed
    assert moves(result, "a") == [C] * 8 and moves(result, "b") == [C] * 8


def test_reciprocating_mock_against_alld_in_split_or_steal():
    result = play(agent(llm_spec(), game=SPLIT), "alld", game=SPLIT)
    assert moves(result, "a") == [C] + [D] * 7
    decision = result.rounds[1].decision_a
    assert decision.attempts[0].raw == "steal"


def test_decision_records_every_attempt():
    result = play(agent(llm_spec(persona="wsls"), rounds=3), "alld", rounds=3)
    decision = result.rounds[2].decision_a
    assert decision == Decision(action=D, attempts=decision.attempts)
    (attempt,) = decision.attempts
    # The audit fields exist on every attempt and stay empty for the mock (no server to report).
    assert {f.name for f in dataclasses.fields(attempt)} == ATTEMPT_KEYS | set(attempt.AUDIT_FIELDS)
    assert all(getattr(attempt, name) is None for name in attempt.AUDIT_FIELDS)
    assert attempt.attempt == 1
    assert attempt.prompt.endswith("Round 3: your action?")  # the growing history first (issue 33)
    assert "win-stay, lose-shift" in attempt.system
    assert attempt.raw == "D" and attempt.valid is True
    assert attempt.error is None and attempt.reason is None
    assert attempt.cached is False and attempt.cost_usd == 0.0
    assert attempt.input_tokens > 0


def test_an_invalid_answer_is_corrected_in_the_same_conversation():
    client, gateway = scripted_gateway("I will not defect", "c")
    decision = decide(agent(llm_spec(), gateway=gateway))
    assert decision.action is C and decision.invalid_outputs == 1 and not decision.fallback
    first, second = client.requests
    assert len(first.messages) == 1
    assert second.messages[:2] == (first.messages[0], ("assistant", "I will not defect"))
    role, correction = second.messages[2]
    assert role == "user"
    assert correction.startswith('That answer is not valid: expected exactly "C" or "D"')
    assert "This is still round 1." in correction
    assert [a.valid for a in decision.attempts] == [False, True]
    assert decision.attempts[1].prompt == correction
    assert decision.attempts[0].error.startswith('expected exactly "C" or "D"')


def test_retries_exhausted_abort():
    client, gateway = scripted_gateway("maybe", "perhaps", "no idea")
    llm = agent(llm_spec(max_retries=2, on_invalid="abort"), gateway=gateway)
    with pytest.raises(MatchAborted, match="no valid action after 3 attempts") as raised:
        decide(llm)
    assert "no idea" in str(raised.value)
    assert [a.raw for a in raised.value.attempts] == ["maybe", "perhaps", "no idea"]
    assert len(client.requests[-1].messages) == 5


def test_retries_exhausted_abort_ends_the_match_with_its_error():
    result = play(agent(llm_spec(invalid_rate=1.0)), "tft")
    assert not result.completed and result.rounds == []
    assert "mock: round 1: no valid action after 3 attempts" in result.error


def test_retries_exhausted_fallback():
    llm = agent(
        llm_spec(invalid_rate=1.0, max_retries=1, on_invalid="fallback", fallback_action="C")
    )
    result = play(llm, "alld", rounds=3)
    assert result.completed
    for round_ in result.rounds:
        decision = round_.decision_a
        assert decision.action is C and decision.fallback
        assert decision.invalid_outputs == 2 and len(decision.attempts) == 2
        assert "played the fallback C" in decision.error


def test_no_retries_at_all():
    _, gateway = scripted_gateway("nope")
    decision = decide(agent(llm_spec(max_retries=0, on_invalid="fallback"), gateway=gateway))
    assert decision.fallback and decision.action is D and decision.invalid_outputs == 1


def test_json_mode_keeps_the_reason():
    llm = agent(llm_spec(response_format="json", max_tokens=64), game=SPLIT)
    result = play(llm, "alld", game=SPLIT, rounds=2)
    attempt = result.rounds[1].decision_a.attempts[0]
    assert attempt.raw == '{"action": "steal", "reason": "I do what my opponent did last."}'
    assert attempt.reason == "I do what my opponent did last."
    assert result.rounds[1].played.action_a is D


def test_a_rerun_from_the_cache_is_identical_and_free(tmp_path):
    def run_once():
        gateway = ProviderGateway(cache_dir=tmp_path)
        spec = llm_spec("random", invalid_rate=0.2)
        result = play(agent(spec, gateway=gateway), "gtft", rounds=12)
        gateway.close()
        return result, gateway.stats

    first, first_stats = run_once()
    second, second_stats = run_once()
    assert first_stats.live > 12 and first_stats.cached == 0
    assert second_stats.live == 0 and second_stats.cached == first_stats.live
    assert [r.played for r in first.rounds] == [r.played for r in second.rounds]
    strip = ("cached", "cost_usd")
    for a, b in zip(first.rounds, second.rounds, strict=True):
        assert [
            {k: v for k, v in dataclasses.asdict(x).items() if k not in strip}
            for x in a.decision_a.attempts
        ] == [
            {k: v for k, v in dataclasses.asdict(x).items() if k not in strip}
            for x in b.decision_a.attempts
        ]
        assert all(x.cached for x in b.decision_a.attempts)


def test_random_mock_differs_between_replicates_but_not_between_runs():
    def match(replicate):
        return moves(play(agent(llm_spec("random"), replicate=replicate), "tft", rounds=20))

    assert match(0) == match(0)
    assert match(0) != match(1)


def test_sampling_sends_the_condition_and_replicate():
    client, gateway = scripted_gateway("C", "C")
    decide(agent(llm_spec(temperature=0.7, seed=5), gateway=gateway, replicate=4))
    decide(agent(llm_spec(temperature=0.0, seed=5), gateway=gateway, replicate=4))
    hot, cold = client.requests
    assert (hot.sample.rsplit("#", 1)[1], hot.seed, hot.temperature) == ("4", 5, 0.7)
    assert cold.sample is None


def test_a_provider_that_stays_down_leaves_the_match_unfinished():
    """A transport failure is not the model's answer: it is not turned into an aborted match (a
    result) but ends the match unfinished, for the runner to play again later."""

    class Down:
        async def acomplete(self, request):
            raise ProviderUnavailable("mock: still failing after 5 attempts")

    gateway = ProviderGateway(cache_dir=None, client_factory=lambda spec: Down())
    with pytest.raises(ProviderUnavailable, match="still failing after 5 attempts"):
        play(agent(llm_spec(), gateway=gateway), "tft")


def test_missing_persona_fails_at_construction():
    with pytest.raises(ConfigError, match='did you mean "grim_trigger"'):
        agent(llm_spec(persona="grim_triger"))
