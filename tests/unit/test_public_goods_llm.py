"""LLM players in the public goods game (issue 44) through the game's own prompt adapter
(pdbench.games.public_goods.prompts, issue 43's shape): the prompts of every phase from the seat's
round_state alone, the fixed rules first, the strict answer formats and the talk cap's re-ask;
and the offline mock (pdbench.games.public_goods.mock) reading those prompts back and playing by
persona, as the house players do."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import numpy as np
import pytest
from helpers import TEST_DEAL

from pdbench.agents.base import AgentContext, TurnRequest
from pdbench.agents.judged_prompts import (
    action_from_answer,
    constrained_answers,
    persona_text,
    render_prompt,
)
from pdbench.agents.kinds import make_agent
from pdbench.agents.llm.turns import turn_prompt_files
from pdbench.agents.policy import TurnPolicyAgent
from pdbench.config.schema import LLMAgentSpec, MockBehaviour, ProviderSpec
from pdbench.core.errors import ConfigError
from pdbench.core.horizon import FixedHorizon
from pdbench.games.public_goods import prompts as phrases
from pdbench.games.public_goods.mock import read_round_state
from pdbench.games.public_goods.policies import PUBLIC_GOODS_POLICIES
from pdbench.games.public_goods.talk import stated_amount
from pdbench.games.registry import TURN_GAMES, build_turn_game
from pdbench.providers.base import Completion
from pdbench.providers.gateway import ProviderGateway
from pdbench.runners.turns import SeatRule, play_turn_match

ROOT = Path(__file__).resolve().parents[2]
HOUSE = ("pgg_free_rider", "pgg_punisher", "pgg_random", "pgg_conditional_cooperator")


def game(**options):
    return build_turn_game("public_goods", **{"rounds": 3, "talk": True, "punish": True, **options})


def observations(rules, seeds=range(3)):
    """Every seat's round_state in seeded matches of house players, every phase."""
    for seed in seeds:
        rng = np.random.default_rng(seed)
        players = {
            seat: PUBLIC_GOODS_POLICIES[HOUSE[i % len(HOUSE)]]()
            for i, seat in enumerate(rules.seats)
        }
        state = rules.initial_state(seed)
        while not rules.match_over(state):
            seen = {seat: rules.observe(state, seat) for seat in rules.to_move(state)}
            yield from seen.values()
            state = rules.apply(state, {s: players[s].act(o, rng) for s, o in seen.items()})


def test_each_phase_prompt_shows_its_round_state_and_a_contribute_prompt_no_amount_of_the_round():
    persona = persona_text(ROOT, {"game": "public-goods"}, "cooperative")
    prefixes = set()
    for seen in observations(game(matching="strangers", groups=2)):
        prompt = render_prompt(ROOT, seen, persona)
        prefixes.add(prompt[: prompt.index(persona)])
        assert phrases.YOU.render(you=seen["you"]) in prompt
        assert phrases.PLAYERS.render(players=", ".join(seen["players"])) in prompt
        for past in seen["history"]:
            assert f"contributions {phrases.pairs(past['contributions'])};" in prompt
        for message in seen["messages"]:
            assert f"- {message['author']}: {message['text']}" in prompt
        now = phrases.CONTRIBUTIONS_NOW.pattern.search(prompt)
        if seen["phase"] == "punish":
            assert now is not None and now["contributions"] == phrases.pairs(seen["contributions"])
            assert f"at most {seen['max_punish']} points" in prompt
        else:  # round_state holds no contribution of the round in play: nor does the prompt
            assert now is None and "contributions" not in seen
    # the rules come first, the same for every round, seat and phase (a provider's cache reuses
    # them); only the phase's closing lines differ
    assert len(prefixes) == 1


@pytest.mark.parametrize(
    ("phase", "answer", "action"),
    [
        ("contribute", "CONTRIBUTE 7", {"type": "contribute", "amount": 7}),
        ("contribute", "  CONTRIBUTE 0\n", {"type": "contribute", "amount": 0}),
        ("punish", "PUNISH NONE", {"type": "punish", "points": {}}),
        ("punish", "PUNISH P2=3, P4=1", {"type": "punish", "points": {"P2": 3, "P4": 1}}),
        ("talk", " I will contribute 10. \n", {"type": "message", "text": "I will contribute 10."}),
    ],
)
def test_the_answer_formats_read_each_phase(phase, answer, action):
    seen = {"game": "public-goods", "phase": phase}
    assert action_from_answer(seen, answer) == action


@pytest.mark.parametrize(
    ("phase", "answer"),
    [
        ("contribute", "contribute 7"),
        ("contribute", "CONTRIBUTE 7 points"),
        ("contribute", "I contribute 7"),
        ("contribute", "CONTRIBUTE -1"),
        ("punish", "PUNISH"),
        ("punish", "PUNISH P2=3 and P3=1"),
        ("punish", "PUNISH P2=3, P2=1"),
        ("punish", "punish none"),
    ],
)
def test_anything_else_is_refused_with_a_reason(phase, answer):
    with pytest.raises(ValueError, match=r"answer|named twice"):
        action_from_answer({"game": "public-goods", "phase": phase}, answer)


def test_a_constrained_model_may_answer_every_legal_contribution_and_nothing_else():
    seen = next(o for o in observations(game()) if o["phase"] == "contribute")
    assert constrained_answers(seen) == tuple(f"CONTRIBUTE {n}" for n in range(21))
    assert constrained_answers({**seen, "phase": "punish"}) is None  # combinatorial: unlisted
    assert LLMAgentSpec(constrain="grammar").problem_in_turn_game("public_goods") is None


def test_the_mock_reads_back_what_the_prompt_shows():
    variants = (
        game(matching="strangers", groups=2),
        game(accounting="balance", round_limit_disclosed=False, punish_one_target=True),
    )
    for seen in (o for rules in variants for o in observations(rules)):
        read = read_round_state(render_prompt(ROOT, seen))
        assert read is not None
        assert (read["phase"], read["you"], read["players"]) == (
            seen["phase"],
            seen["you"],
            seen["players"],
        )
        if seen["phase"] != "punish":
            assert read["endowment"] == int(seen["endowment"])
        assert [(p["you"], p["contributions"]) for p in read["history"]] == [
            (p["you"], p["contributions"]) for p in seen["history"]
        ]
        if seen["phase"] == "punish":
            assert read["contributions"] == seen["contributions"]
            assert read["max_punish"] == seen["max_punish"]


# --- whole matches with the mock as the LLM player ---------------------------------------------


def llm(persona, *, strategy="reciprocate", invalid_rate=0.0, gateway=None, rules=None):
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
        LLMAgentSpec(provider=provider, persona=persona, on_invalid="fallback"),
        game=rules or game(),
        horizon=FixedHorizon(1),
        context=context,
    )


def house(name):
    return TurnPolicyAgent(PUBLIC_GOODS_POLICIES[name](), name)


def play(rules, agent, others=("pgg_full_contributor", "pgg_free_rider", "pgg_punisher")):
    agents = {"a": agent, **{seat: house(n) for seat, n in zip("bcd", others, strict=True)}}
    return asyncio.run(
        play_turn_match(
            rules,
            agents,
            seed=4,
            agent_seeds={seat: i for i, seat in enumerate("abcd")},
            rules={seat: SeatRule("fallback", 2) for seat in "abcd"},
            max_turns=500,
        )
    )


def seat_a(result, phase):
    return [t.seats["a"] for t in result.turns if t.phase == phase and "a" in t.seats]


def test_the_mock_plays_by_persona_and_keeps_its_word():
    rules = game()
    cooperative = play(rules, llm("cooperative"))
    exploitative = play(rules, llm("exploitative"))
    assert cooperative.completed and exploitative.completed
    given = [t.action["amount"] for t in seat_a(cooperative, "contribute")]
    # a conditional cooperator: opens with 15 (3/4 of 20), then the others' last mean, 13
    assert given == [15, 13, 13]
    # ... that punishes the free rider, the lowest contributor below it, every round
    free_rider_label = [t for t in cooperative.turns if t.phase == "punish"]
    assert all(t.seats["a"].action["points"] for t in free_rider_label)
    assert [t.action["amount"] for t in seat_a(exploitative, "contribute")] == [0, 0, 0]
    assert all(not t.action["points"] for t in seat_a(exploitative, "punish"))
    for result in (cooperative, exploitative):  # talk announces the amount it then gives
        said = [stated_amount(t.action["text"], 20) for t in seat_a(result, "talk")]
        assert said == [t.action["amount"] for t in seat_a(result, "contribute")]
        assert all(t.invalid_outputs == 0 and not t.fallback for t in seat_a(result, "contribute"))


def test_the_mocks_garbage_is_reasked_and_recorded():
    result = play(game(), llm("cooperative", invalid_rate=0.5))
    turns = seat_a(result, "contribute") + seat_a(result, "punish")
    assert sum(t.invalid_outputs for t in turns) > 0
    refused = [a for t in turns for a in t.attempts if not a.valid]
    assert all("answer" in a.error for a in refused)


class Scripted:
    def __init__(self, answers):
        self.answers = list(answers)
        self.requests = []

    async def acomplete(self, request):
        self.requests.append(request)
        return Completion(self.answers.pop(0), 3, 1, None)


def test_a_message_over_the_cap_is_refused_with_the_limit_and_reasked_never_cut():
    """The talk cap (280 characters by default): a longer message is refused by the rules with
    the limit and the model asked again; the message kept is the model's own, whole."""
    rules = game()
    client = Scripted(["x" * 281, "I will contribute 10."])
    agent = llm(
        "cooperative", gateway=ProviderGateway(cache_dir=None, client_factory=lambda s: client)
    )
    state = rules.initial_state(1)
    (seat, *_) = rules.to_move(state)
    request = TurnRequest(
        "public-goods", seat, rules.observe(state, seat), lambda a: rules.problem(state, seat, a)
    )
    decision = asyncio.run(agent.take_turn(request))
    assert decision.action == {"type": "message", "text": "I will contribute 10."}
    first, second = decision.attempts
    assert "at most 280 characters, this one has 281" in first.error and second.valid
    assert "message to the group alone" in client.requests[-1].messages[-1][1]
    assert client.requests[0].max_tokens == phrases.PROMPTS.talk_tokens


def test_every_phase_prompt_is_checked_and_listed_before_anything_runs(tmp_path):
    """The files the agent reads (hashed into the manifest) are every phase's, and a later
    phase's broken file is a ConfigError naming it when the config is read, not mid-match."""
    rules = game(punish_rounds=[2, 3])  # no punish phase in the first round
    assert turn_prompt_files(rules, ROOT, "exploitative") == [
        f"prompts/public_goods/{name}"
        for name in ("contribute.md", "personas/exploitative.md", "punish.md", "talk.md")
    ]
    shutil.copytree(ROOT / "prompts" / "public_goods", tmp_path / "prompts" / "public_goods")
    contribute = tmp_path / "prompts" / "public_goods" / "contribute.md"
    contribute.write_text(contribute.read_text() + "{nowhere}\n")
    with pytest.raises(ConfigError, match="unknown placeholder") as raised:
        turn_prompt_files(rules, tmp_path)
    assert raised.value.file == "prompts/public_goods/contribute.md"


def test_public_goods_names_its_adapter_and_mock_and_so_an_llm_plays_it():
    entry = TURN_GAMES["public_goods"]
    assert entry.llm_plays and entry.llm and entry.mock
    assert entry.default_persona == "cooperative"
