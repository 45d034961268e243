"""The negotiation rules as pure functions: AgentDuel's turn order, the character limit, promise
phrases; a round's talk with agents that overrun, stall or stay silent; the prompts."""

from __future__ import annotations

import asyncio
from pathlib import Path

import numpy as np
import pytest
from reference_talk import negotiate_round

from pdbench.agents.base import TableAgent, Utterance
from pdbench.agents.llm.prompts import PromptBuilder
from pdbench.analysis.metrics.talk import talk_flags, talk_metrics
from pdbench.config.schema import LLMAgentSpec
from pdbench.core.horizon import FixedHorizon
from pdbench.core.talk import Negotiation, Said, cut_to_limit, is_promise
from pdbench.core.transcript import Observation
from pdbench.games.tables import GAMES

ROOT = Path(__file__).resolve().parents[2]


def test_agentduel_order_a_opens_round_one_and_the_opener_alternates():
    rules = Negotiation()
    assert rules.speakers(1) == ("a", "b", "a", "b")
    assert rules.speakers(2) == ("b", "a", "b", "a")
    assert rules.speakers(5) == ("a", "b", "a", "b")
    assert Negotiation(exchanges=1, first_speaker="b").speakers(1) == ("b", "a")
    assert Negotiation(exchanges=3, first_speaker="a").speakers(2) == ("a", "b") * 3


def test_a_long_message_is_cut_to_the_limit():
    assert cut_to_limit("x" * 1000, 280) == ("x" * 280, True)
    assert cut_to_limit("x" * 280, 280) == ("x" * 280, False)


@pytest.mark.parametrize(
    ("text", "promise"),
    [
        ("I will split.", True),
        ("SPLIT!", True),
        ("Let's cooperate", True),
        ("I am splitting hairs", False),
        ("I will steal", False),
        ("", False),
    ],
)
def test_promise_phrases_are_whole_words_in_any_case(text, promise):
    assert is_promise(text, ("split", "cooperate")) is promise


class Talker(TableAgent):
    """Says what it is scripted to say, one Utterance per turn, and remembers what it saw."""

    def __init__(self, *utterances: Utterance) -> None:
        self.utterances = list(utterances)
        self.seen: list[tuple[int, tuple[Said, ...]]] = []

    async def negotiate(self, obs: Observation) -> Utterance:
        self.seen.append((obs.turn, obs.messages))
        return self.utterances.pop(0)


def test_a_round_of_talk_cuts_marks_and_fills_in_the_timeout_message():
    rules = Negotiation(timeout_message="")
    a = Talker(Utterance("x" * 1000), Utterance("late", timeout=True, error="too slow"))
    b = Talker(Utterance("I will split."), Utterance(""))
    start = Observation(round_index=1, history=())
    talk = asyncio.run(negotiate_round(rules, 1, {"a": a, "b": b}, {"a": start, "b": start}))
    assert [(m.speaker, m.turn) for m in talk] == [("a", 1), ("b", 2), ("a", 3), ("b", 4)]
    assert talk[0].text == "x" * 280 and talk[0].cut and not talk[0].empty
    assert talk[1].promise and not talk[1].empty
    # A timeout says the timeout message (nothing) whatever the agent had in mind, and is marked.
    assert talk[2].text == "" and talk[2].empty and talk[2].timeout and talk[2].error == "too slow"
    assert talk[3].empty and not talk[3].timeout  # silence is not a timeout
    # Each saw what was said before its turn, from its own side.
    assert b.seen[0] == (2, (Said(1, False, "x" * 280),))
    assert a.seen[1][1][1] == Said(2, False, "I will split.")


def test_talk_metrics_from_counts():
    conversations = [
        [
            {"speaker": "a", "text": "I will split.", "promise": True},
            {"speaker": "b", "text": "", "promise": False},
        ],
        [
            {"speaker": "a", "text": "ok", "promise": False},
            {"speaker": "b", "text": "no", "promise": False},
        ],
    ]
    flags = talk_flags(conversations)
    coop = {"a": np.array([False, True]), "b": np.array([True, True])}
    metrics = talk_metrics(flags, np.array([0]), coop)
    assert metrics["messages_a"].tolist() == [2.0]
    assert metrics["message_length_a"].tolist() == [7.5]
    assert metrics["promise_share_a"].tolist() == [0.5]
    assert metrics["promise_keeping_a"].tolist() == [0.0]  # promised in round 1, then stole
    assert np.isnan(metrics["promise_keeping_b"][0])  # never promised


def test_the_round_prompt_is_unchanged_without_negotiation_and_shows_the_talk_with_it():
    spec = LLMAgentSpec()
    horizon = FixedHorizon(5)
    plain = PromptBuilder(spec, game=GAMES["split_or_steal"], horizon=horizon, project_root=ROOT)
    obs = Observation(round_index=1, history=())
    assert "Messages" not in plain.round_prompt(obs)
    assert "\n\n\n" not in plain.round_prompt(obs)

    talking_game = GAMES["split_or_steal"].with_changes(negotiation=Negotiation())
    talking = PromptBuilder(spec, game=talking_game, horizon=horizon, project_root=ROOT)
    said = Observation(
        round_index=1,
        history=(),
        messages=(Said(1, True, "I will split."), Said(2, False, "")),
        turn=3,
    )
    assert talking.round_prompt(obs).replace("\n\nMessages this round: none yet.", "") == (
        plain.round_prompt(obs)
    )
    prompt = talking.negotiate_prompt(said)
    assert 'You: "I will split."\nThe other player: (said nothing)' in prompt
    assert "at most 280 characters" in prompt


def test_is_promise_finds_what_each_phrase_alone_would_find():
    """The phrases are searched as one compiled pattern; it matches exactly where one phrase's own
    whole-word search would (overlapping phrases, a phrase failing its boundary where another
    holds, typographic apostrophes, blank phrases)."""
    import random
    import re

    def one_by_one(text: str, phrases: tuple[str, ...]) -> bool:
        text = text.replace("\u2019", "'")
        return any(
            re.search(rf"(?<!\w){re.escape(p.strip())}(?!\w)", text, re.IGNORECASE)
            for p in phrases
            if p.strip()
        )

    words = ["split", "splitting", "I will", "i'll", "I\u2019ll", "will split", " ", "steal", "."]
    draw = random.Random(7)
    for _ in range(2000):
        phrases = tuple(draw.sample(words, draw.randint(0, 4)))
        text = " ".join(draw.choice([*words, "x", "SPLIT!", "won't"]) for _ in range(4))
        assert is_promise(text, phrases) == one_by_one(text, phrases), (text, phrases)
