"""LLM donors (issue 45) through the donor game's prompt adapter (pdbench.games.donor_game.
prompts): the prompt from the seat's round_state alone, the strict answer, the legal answers;
and the offline mock (pdbench.games.donor_game.mock) reading the prompt back and playing by
persona: the cooperative mock discriminates, the exploitative one never gives."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from public_goods_loop import play

from pdbench.agents.judged_prompts import persona_text, render_prompt
from pdbench.config.schema import MockBehaviour
from pdbench.games.donor_game.mock import play as mock_play
from pdbench.games.donor_game.mock import read_round_state
from pdbench.games.donor_game.policies import DONOR_GAME_POLICIES
from pdbench.games.donor_game.prompts import PROMPTS
from pdbench.games.registry import TURN_GAMES, build_turn_game
from pdbench.providers.mock import persona_lean

ROOT = Path(__file__).resolve().parents[2]
HOUSE = sorted(DONOR_GAME_POLICIES)


def observations(**options):
    """Every seat's round_state in seeded matches of house players."""
    rules = build_turn_game("donor_game", **{"players": 6, "rounds": 5, **options})
    seen: list[dict] = []
    for seed in range(3):
        rng = np.random.default_rng(seed)
        players = {s: DONOR_GAME_POLICIES[HOUSE[int(rng.integers(5))]]() for s in rules.seats}
        play(rules, players, seed, seen=lambda state, seat, o: seen.append(o))
    return seen


def prompt(round_state, persona="cooperative"):
    return render_prompt(ROOT, round_state, persona_text(ROOT, round_state, persona))


@pytest.mark.parametrize(
    "options", [{}, {"norm": "none"}, {"second_order": True, "norm": "stern_judging"}]
)
def test_the_mock_reads_back_what_the_prompt_shows(options):
    for seen in observations(**options):
        text = prompt(seen)
        read = read_round_state(text)
        assert read is not None
        shown = seen["recipient"]
        assert read["recipient"]["label"] == shown["label"]
        assert read["recipient"]["reputation"]["image_score"] == shown["reputation"]["image_score"]
        mine = [
            {k: e[k] for k in ("round_number", "recipient", "gave")}
            for e in shown["reputation"]["recent_actions"]
        ]
        assert read["recipient"]["reputation"]["recent_actions"] == mine
        # the prompt is the round_state's: its round, its label, its score
        assert f"You are player {seen['you']}." in text
        assert f"Round {seen['round_number']} of {seen['round_limit']}." in text


def test_the_answer_is_give_or_refuse_and_nothing_else():
    seen = observations()[0]
    assert PROMPTS.action(seen, " GIVE\n") == {"type": "donate", "give": True}
    assert PROMPTS.action(seen, "REFUSE") == {"type": "donate", "give": False}
    for bad in ("give", "GIVE 1", "I GIVE", ""):
        with pytest.raises(ValueError, match="answer GIVE or REFUSE"):
            PROMPTS.action(seen, bad)
    assert PROMPTS.legal_answers(seen) == ("GIVE", "REFUSE")
    assert TURN_GAMES["donor_game"].llm_plays


def test_the_mock_plays_by_persona():
    behaviour = MockBehaviour()
    gave: dict[str, list[tuple[int | None, bool]]] = {"cooperative": [], "exploitative": []}
    for number, seen in enumerate(observations()):
        for persona in gave:
            text = prompt(seen, persona)
            lean = persona_lean(text)
            assert lean is not None and lean.name == (
                "competitive" if persona == "exploitative" else persona
            )
            answer = mock_play(
                text, behaviour, f"k{number}", lean=lean.name, allowed=("GIVE", "REFUSE")
            )
            image = seen["recipient"]["reputation"]["image_score"]
            gave[persona].append((image, answer == "GIVE"))
    assert not any(g for _, g in gave["exploitative"])
    assert all(g == (image == 1) for image, g in gave["cooperative"])
    assert {image for image, _ in gave["cooperative"]} == {0, 1}  # it met both


def test_a_prompt_of_another_game_is_not_the_donors():
    assert mock_play("CONTRIBUTE 3", MockBehaviour(), "k", lean=None, allowed=None) is None
