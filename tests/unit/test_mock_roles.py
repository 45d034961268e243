"""The offline mock plays the Keeper and the judge from their prompt files: rendered from the
seat's observation, read back by the mock each role declares (ThirdRole.mock: games/passcode/keeper_mock.py,
games/debate/judge_mock.py), and answered with the house third
parties' own rules, so a match with the mock in the third role is the house match, turn for turn.
Players' prompt files render from every observation with no unknown placeholder."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pdbench.agents.judged_prompts import action_from_answer, prompt_path, render_prompt
from pdbench.core.errors import ConfigError
from pdbench.games.debate.policies import FixedDebater, PrioritiesDebater, ScriptedJudge
from pdbench.games.nil_recruitment.rules import NilRecruitment
from pdbench.games.nuclear_war.rules import NuclearWar
from pdbench.games.passcode.policies import HalvingQuestioner, LengthGuesser, TruthfulKeeper
from pdbench.games.passcode.rules import Passcode
from pdbench.providers.base import CompletionRequest
from pdbench.providers.mock import MockProvider

ROOT = Path(__file__).resolve().parents[2]


class MockThirdParty:
    """A third role played by the mock provider through its prompt file."""

    def __init__(self):
        self.provider, self.prompts = MockProvider(), []

    def act(self, round_state, rng):
        prompt = render_prompt(ROOT, round_state)
        self.prompts.append(prompt)
        request = CompletionRequest(
            provider="mock", model="mock", api_base=None, system="",
            messages=(("user", prompt),), temperature=0.0, max_tokens=200,
        )  # fmt: skip
        return action_from_answer(round_state, self.provider.answer(request))


def play_both(game, players, house, mock, seed):
    """Play the match with the house third party, checking the mock's action at every turn."""
    rng = np.random.default_rng(seed)
    state, compared = game.initial_state(seed), 0
    while not game.match_over(state):
        actions = {}
        for seat in game.to_move(state):
            seen = game.observe(state, seat)
            if seat in players:
                actions[seat] = players[seat].act(seen, rng)
                # the players' prompt files render from the same observation
                assert "{" not in render_prompt(ROOT, seen)
                continue
            actions[seat] = house.act(seen, rng)
            assert mock.act(seen, rng) == actions[seat], prompt_path(seen)
            compared += 1
        state = game.apply(state, actions)
    return compared


def test_the_mock_keeper_answers_as_the_truthful_keeper():
    game, mock = Passcode(words_per_match=2), MockThirdParty()
    for seed in range(4):
        players = {"a": HalvingQuestioner(), "b": LengthGuesser()}
        assert play_both(game, players, TruthfulKeeper(), mock, seed) >= 8
    assert all("The secret word is: " in prompt for prompt in mock.prompts)


@pytest.mark.parametrize("rules", [NuclearWar, NilRecruitment])
def test_the_mock_judge_responds_and_decides_as_the_priorities_judge(rules):
    game, mock = rules(rounds=2), MockThirdParty()
    for seed in range(3):
        players = {"a": FixedDebater(), "b": PrioritiesDebater()}
        assert play_both(game, players, ScriptedJudge(), mock, seed) == 10
        players = {"a": PrioritiesDebater(named=1), "b": FixedDebater()}
        assert play_both(game, players, ScriptedJudge(), mock, seed) == 10


def test_a_decision_naming_no_choice_or_both_is_refused():
    seen = {
        "game": "nuclear-war",
        "role": "judge",
        "request": "decision",
        "choices": ["for", "against"],
    }
    assert action_from_answer(seen, "Against.") == {"type": "decision", "winner": "against"}
    for answer in ("Therefore I cannot say.", "for and against"):
        with pytest.raises(ValueError, match="exactly one of"):
            action_from_answer(seen, answer)


def test_a_prompt_with_an_unknown_placeholder_names_the_file(tmp_path):
    (tmp_path / "prompts" / "passcode").mkdir(parents=True)
    (tmp_path / "prompts" / "passcode" / "keeper.md").write_text("Word {secret_wrd}")
    game = Passcode()
    state = game.apply(
        game.initial_state(0),
        {s: {"type": "question", "text": "How long is it?"} for s in ("a", "b")},
    )
    with pytest.raises(ConfigError, match=r"prompts/passcode/keeper\.md.*secret_wrd"):
        render_prompt(tmp_path, game.observe(state, "keeper:a"))


@pytest.mark.parametrize("phase", ["question", "guess"])
def test_a_models_passcode_prompt_shows_the_public_word_list(phase):
    """Issue 41: the house player halves the game's word list; a model is shown it too, as an
    arena agent is (`candidate_words` in its round_state)."""
    game = Passcode()
    seen = {**game.observe(game.initial_state(0), "a"), "phase": phase}
    prompt = render_prompt(ROOT, seen)
    assert f"one of these {len(seen['candidate_words'])} words" in prompt
    assert ", ".join(seen["candidate_words"]) in prompt
