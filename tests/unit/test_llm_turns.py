"""An LLM agent in a turn-based game (pdbench.agents.llm.turns): the Liar's Dice prompt from
prompts/liars_dice/turn.md and the seat's round_state alone, the one strict answer format, re-asks
with the refusal's reason, every attempt recorded; and the offline mock (games/liars_dice/mock)
reading that prompt back to play legal matches, replayed from a real cache with no live call."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from helpers import TEST_DEAL

from pdbench.agents.base import AgentContext, TurnRequest
from pdbench.agents.judged_prompts import render_prompt
from pdbench.agents.kinds import files_read, make_agent
from pdbench.agents.policy import TurnPolicyAgent
from pdbench.config.schema import LLMAgentSpec, MockBehaviour, ProviderSpec
from pdbench.core.errors import ConfigError
from pdbench.core.horizon import FixedHorizon
from pdbench.core.phrases import liars_answer_action, liars_answer_text
from pdbench.games.liars_dice.mock import read_round_state
from pdbench.games.liars_dice.policies import (
    LIARS_DICE_POLICIES,
    Bluffer,
    ProbabilityLiar,
    RandomLiar,
)
from pdbench.games.registry import build_turn_game
from pdbench.providers.base import Completion
from pdbench.providers.gateway import ProviderGateway
from pdbench.runners.turns import SeatRule, play_turn_match

ROOT = Path(__file__).resolve().parents[2]


def llm(gateway=None, strategy="reciprocate", invalid_rate=0.0, **spec):
    provider = ProviderSpec(mock=MockBehaviour(strategy=strategy, invalid_rate=invalid_rate))
    context = AgentContext(
        deal=TEST_DEAL,
        run_seed=0,
        condition="c",
        replicate=0,
        side="a",
        project_root=ROOT,
        gateway=gateway,
    )
    return make_agent(
        LLMAgentSpec(provider=provider, **spec),
        game=build_turn_game("liars_dice"),
        horizon=FixedHorizon(1),
        context=context,
    )


def play(game, a, b, seed):
    return asyncio.run(
        play_turn_match(
            game,
            {"a": a, "b": b},
            seed=seed,
            agent_seeds={"a": 1, "b": 2},
            rules={"a": SeatRule("abort", 2), "b": SeatRule()},
            max_turns=500,
        )
    )


def states(game, seeds=range(20)):
    """Every state of seeded matches between the random and the probability players."""
    for seed in seeds:
        rng = np.random.default_rng(seed)
        state = game.initial_state(seed)
        players = {"a": RandomLiar(), "b": ProbabilityLiar()}
        while not game.match_over(state):
            yield state
            (seat,) = game.to_move(state)
            action = players[seat].act(game.observe(state, seat), rng)
            state = game.apply(state, {seat: action})


# --- the answer format -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "action"),
    [
        ("BID 3 5", {"type": "bid", "quantity": 3, "face": 5}),
        ("  bid 10 2\n", {"type": "bid", "quantity": 10, "face": 2}),
        ("CHALLENGE", {"type": "challenge"}),
        ("challenge", {"type": "challenge"}),
    ],
)
def test_the_answer_format_reads_bids_and_challenges(answer, action):
    assert liars_answer_action(answer) == action
    assert liars_answer_action(liars_answer_text(action)) == action


@pytest.mark.parametrize(
    "answer",
    ["BID 3 5.", "I bid 3 5", "BID 3", "BID three 5", "CHALLENGE!", "BID 3 5\nBID 4 5", ""],
)
def test_anything_else_is_refused_saying_the_format(answer):
    with pytest.raises(ValueError, match='"BID <quantity> <face>" or "CHALLENGE"'):
        liars_answer_action(answer)


# --- the prompt --------------------------------------------------------------------------------


def test_the_prompt_shows_the_variant_own_dice_counts_bids_finished_rounds_and_the_format():
    game = build_turn_game("liars_dice", wild_ones=True, faces=4, dice_per_player=3)
    state = next(s for s in states(game) if s.finished and len(s.bids) >= 2)
    seen = game.observe(state, "b")
    prompt = render_prompt(ROOT, seen)
    assert "Each die shows a face from 1 to 4." in prompt
    assert "Ones are wild: yes." in prompt and "at least half its quantity" in prompt
    assert f"Your dice: {', '.join(map(str, seen['your_dice']))}" in prompt
    counts = (seen["your_dice_count"], seen["opponent_dice_count"])
    assert f"Dice in play: you have {counts[0]}, your opponent has {counts[1]}." in prompt
    for number, bid in enumerate(seen["bid_history"], 1):
        line = f"- bid {number}: {bid['player']} bid {bid['quantity']} x {bid['face']}"
        assert line in prompt
    current = seen["current_bid"]
    assert f"The bid to beat: {current['quantity']} x {current['face']}." in prompt
    past = seen["rounds_history"][0]
    assert f"your opponent's dice {', '.join(map(str, past['opponent_dice']))}" in prompt
    assert '"BID <quantity> <face>"' in prompt and '"CHALLENGE"' in prompt
    # and the mock reads back exactly what the observation holds
    read = read_round_state(prompt)
    assert read == {k: seen[k] for k in read}


def test_the_prompt_never_shows_the_opponents_dice_of_the_round_in_play():
    for options in ({}, {"wild_ones": True, "faces": 4, "dice_per_player": 3}):
        game = build_turn_game("liars_dice", **options)
        for state in states(game):
            for seat, hidden in (("a", 1), ("b", 0)):
                prompt = render_prompt(ROOT, game.observe(state, seat))
                dice = list(state.dice)
                dice[hidden] = tuple(sorted(d % game.faces + 1 for d in dice[hidden]))
                other = replace(state, dice=tuple(dice))
                assert render_prompt(ROOT, game.observe(other, seat)) == prompt


# --- take_turn: retries, attempts, the gateway -----------------------------------------------


class Scripted:
    def __init__(self, answers):
        self.answers = list(answers)
        self.requests = []

    async def acomplete(self, request):
        self.requests.append(request)
        return Completion(self.answers.pop(0), 3, 1, None)


def _turn(agent, game, state, seat="a"):
    def check(action):
        return game.problem(state, seat, action)

    request = TurnRequest("liars-dice", seat, game.observe(state, seat), check)
    return asyncio.run(agent.take_turn(request))


def test_unparseable_and_illegal_answers_are_reasked_with_the_reason_and_all_recorded():
    client = Scripted(["I bid three fives", "BID 99 5", "BID 2 5"])
    gateway = ProviderGateway(cache_dir=None, client_factory=lambda spec: client)
    game = build_turn_game("liars_dice")
    decision = _turn(llm(gateway), game, game.initial_state(3))
    assert decision.action == {"type": "bid", "quantity": 2, "face": 5}
    assert decision.invalid_outputs == 2
    first, second, third = decision.attempts
    assert (first.valid, second.valid, third.valid) == (False, False, True)
    assert 'is not "BID <quantity> <face>"' in first.error
    assert "quantity 99 is not between 1 and the 10 dice in play" in second.error
    assert third.error is None and third.raw == "BID 2 5"
    # the re-ask shows the reason and the format; the first prompt is the rendered file
    last = client.requests[-1].messages
    assert last[0][1] == render_prompt(ROOT, game.observe(game.initial_state(3), "a"))
    assert "quantity 99 is not between" in last[-1][1] and "BID <quantity>" in last[-1][1]
    assert client.requests[0].system == ""


def test_no_legal_answer_after_the_retries_returns_no_action():
    client = Scripted(["CHALLENGE"] * 3)  # nothing to challenge at a round's first turn
    gateway = ProviderGateway(cache_dir=None, client_factory=lambda spec: client)
    game = build_turn_game("liars_dice")
    decision = _turn(llm(gateway, max_retries=2), game, game.initial_state(3))
    assert decision.action is None and decision.invalid_outputs == 3
    assert all("no bid to challenge" in a.error for a in decision.attempts)


def test_2x2_settings_that_mean_nothing_in_a_turn_game_are_refused():
    assert LLMAgentSpec(persona="cooperative").problem_in_turn_game("liars_dice") is None
    refused = LLMAgentSpec(response_format="json").problem_in_turn_game("liars_dice")
    assert refused.startswith("response_format:")


def test_a_persona_is_the_games_own_file_and_one_it_lacks_is_refused_naming_it():
    game = build_turn_game("liars_dice")
    assert files_read(LLMAgentSpec(persona="exploitative"), game, FixedHorizon(1), ROOT) == [
        "prompts/liars_dice/personas/exploitative.md",
        "prompts/liars_dice/turn.md",
    ]
    with pytest.raises(ConfigError) as refused:
        files_read(LLMAgentSpec(persona="wsls"), game, FixedHorizon(1), ROOT)
    assert refused.value.field == "persona"
    assert 'no persona "wsls" for liars_dice in prompts/liars_dice/personas/' in str(refused.value)
    assert "choose one of: cooperative, exploitative or none" in str(refused.value)


def test_the_persona_is_in_the_prompt_and_an_exploitative_mock_bluffs():
    game = build_turn_game("liars_dice")
    prompts = []
    bluffs = 0
    for persona, expected in (("cooperative", ProbabilityLiar()), ("exploitative", Bluffer(1))):
        agent = llm(ProviderGateway(cache_dir=None), persona=persona)
        for state in states(game, range(5)):
            if state.to_move != 0:
                continue
            seen = game.observe(state, "a")
            decision = _turn(agent, game, state)
            prompts.append(decision.attempts[0].prompt)
            assert decision.action == expected.act(seen, np.random.default_rng(0))
            bluffs += decision.action != ProbabilityLiar().act(seen, np.random.default_rng(0))
    assert bluffs > 0  # the two personas play differently
    assert any("bluff boldly" in p for p in prompts)
    assert any("honest, trusting game" in p for p in prompts)


# --- the mock plays -------------------------------------------------------------------------


@pytest.mark.parametrize("policy", sorted(LIARS_DICE_POLICIES))
@pytest.mark.parametrize("strategy", ["reciprocate", "random"])
def test_the_mock_plays_whole_legal_matches_then_replays_them_from_the_cache(
    tmp_path, policy, strategy
):
    game = build_turn_game("liars_dice")
    results = []
    for _run in range(2):
        gateway = ProviderGateway(cache_dir=tmp_path / "cache", max_concurrency=1)
        matches = []
        for seed in range(4):
            house = TurnPolicyAgent(LIARS_DICE_POLICIES[policy](), name=policy)
            result = play(game, llm(gateway, strategy=strategy), house, seed)
            assert result.completed, result.error
            matches.append(result)
        stats = gateway.stats
        gateway.close()
        results.append((matches, stats))
    (live, first), (replayed, second) = results
    turns = [t for m in live for t in m.turns if "a" in t.seats]
    assert turns and all(t.seats["a"].invalid_outputs == 0 for t in turns)
    assert not any(t.seats["a"].fallback for t in turns)
    assert first.live == len(turns) and second.live == 0 and second.cached == len(turns)
    assert [m.scores for m in live] == [m.scores for m in replayed]
    assert [[s.action for t in m.turns for s in t.seats.values()] for m in live] == [
        [s.action for t in m.turns for s in t.seats.values()] for m in replayed
    ]


def test_the_reciprocating_mock_plays_the_probability_players_moves():
    game = build_turn_game("liars_dice")
    agent = llm(ProviderGateway(cache_dir=None))
    for state in states(game, range(5)):
        if state.to_move != 0:
            continue
        seen = game.observe(state, "a")
        expected = ProbabilityLiar().act(seen, np.random.default_rng(0))
        assert _turn(agent, game, state).action == expected


def test_a_mock_with_invalid_answers_is_reasked_until_legal():
    game = build_turn_game("liars_dice")
    gateway = ProviderGateway(cache_dir=None)
    agent = llm(gateway, invalid_rate=0.3, max_retries=5)
    result = play(game, agent, TurnPolicyAgent(RandomLiar(), "r"), 5)
    assert result.completed
    refused = sum(t.seats["a"].invalid_outputs for t in result.turns if "a" in t.seats)
    assert refused > 0


# --- constrain: grammar ----------------------------------------------------------------------


def test_a_grammar_constrained_turn_sends_exactly_the_legal_moves_as_a_gbnf_grammar():
    from pdbench.providers.constraints import label_grammar

    client = Scripted(["BID 2 3", "CHALLENGE"])
    gateway = ProviderGateway(cache_dir=None, client_factory=lambda spec: client)
    game = build_turn_game("liars_dice", dice_per_player=2, faces=3)
    agent = llm(gateway, constrain="grammar")
    state = game.initial_state(1)
    assert _turn(agent, game, state).action == {"type": "bid", "quantity": 2, "face": 3}
    opening = client.requests[0]
    expected = [f"BID {q} {f}" for q in range(1, 5) for f in range(1, 4)]
    assert opening.constrain == "grammar" and list(opening.labels) == expected
    assert label_grammar(opening.allowed_answers()) == "root ::= " + " | ".join(
        f'"{answer}"' for answer in expected
    )
    after = game.apply(
        game.apply(state, {"a": {"type": "bid", "quantity": 3, "face": 2}}),
        {"b": {"type": "bid", "quantity": 3, "face": 3}},
    )
    assert _turn(agent, game, after).action == {"type": "challenge"}
    assert list(client.requests[1].labels) == ["CHALLENGE", "BID 4 1", "BID 4 2", "BID 4 3"]


def test_a_grammar_constrained_mock_never_answers_garbage():
    game = build_turn_game("liars_dice")
    agent = llm(ProviderGateway(cache_dir=None), invalid_rate=1.0, constrain="grammar")
    result = play(game, agent, TurnPolicyAgent(RandomLiar(), "r"), 2)
    assert result.completed
    assert all(t.seats["a"].invalid_outputs == 0 for t in result.turns if "a" in t.seats)


def test_grammar_is_refused_where_answers_are_free_text_and_json_schema_everywhere():
    assert LLMAgentSpec(constrain="grammar").problem_in_turn_game("liars_dice") is None
    assert (
        LLMAgentSpec(constrain="grammar")
        .problem_in_turn_game("passcode")
        .startswith("constrain: grammar is not available in passcode")
    )
    spec = LLMAgentSpec(constrain="json_schema", response_format="json")
    assert spec.problem_in_turn_game("liars_dice").startswith("response_format:")
