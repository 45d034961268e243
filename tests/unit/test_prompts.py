"""Prompt rendering: labels and payoffs from the game, history from the observation window,
horizon disclosure, personas, and clear errors for missing or broken files."""

import re
import shutil
from pathlib import Path

import pytest

from pdbench.agents.llm.prompts import PromptBuilder, check_prompt_files
from pdbench.agents.llm.templates import available_personas
from pdbench.config.schema import LLMAgentSpec
from pdbench.core.actions import C, D
from pdbench.core.errors import ConfigError
from pdbench.core.horizon import FixedHorizon, GeometricHorizon
from pdbench.core.transcript import PlayedRound, observe
from pdbench.games.tables import GAMES

ROOT = Path(__file__).resolve().parents[2]
PD = GAMES["pd"]
SPLIT = GAMES["split_or_steal"]
PERSONAS = ["cooperative", "exploitative", "generous_tft", "grim_trigger", "tit_for_tat", "wsls"]


TEN_ROUNDS = FixedHorizon(10)


def builder(game=PD, horizon=TEN_ROUNDS, root=ROOT, **spec):
    return PromptBuilder(LLMAgentSpec(**spec), game=game, horizon=horizon, project_root=root)


def played(*moves, game=PD):
    rounds = []
    for index, (a, b) in enumerate(moves, start=1):
        rounds.append(PlayedRound(index, a, b, *game.payoffs.payoffs(a, b)))
    return rounds


def obs_after(rounds, *, window=10, totals=False, side="a"):
    return observe(rounds, side=side, history_window=window, include_totals=totals)


def test_game_labels_and_payoffs_are_shown():
    prompts = builder(game=SPLIT)
    assert '"split" or "steal"' in prompts.system
    assert '- you choose "split", the other player chooses "steal": you score 0, ' in prompts.system
    assert "the other player scores 100" in prompts.system
    round_prompt = prompts.round_prompt(obs_after(played((C, D), game=SPLIT)))
    assert "Round 1: you played split, opponent played steal; you scored 0" in round_prompt
    # The instruction is in the system prompt: the same every round, so ahead of the history.
    assert "Answer with exactly one of: split, steal." in prompts.system
    assert "played C" not in round_prompt


def test_first_round_is_round_1():
    prompts = builder()
    prompt = prompts.round_prompt(obs_after([]))
    assert "The game lasts exactly 10 rounds." in prompts.system
    assert "nothing has happened yet" in prompt
    # The round number is the prompt's last line: what changes every round comes after the
    # history, so consecutive prompts share their longest prefix (issue 33).
    assert prompt.endswith("Round 1: your action?")


def test_history_is_seen_from_the_agents_side():
    rounds = played((C, D), (D, D))
    prompt_b = builder().round_prompt(obs_after(rounds, side="b"))
    assert "Round 1: you played D, opponent played C; you scored 5, opponent scored 0." in prompt_b
    assert prompt_b.splitlines()[-1] == "Round 3: your action?"


def test_window_shows_only_the_last_rounds():
    rounds = played((C, C), (C, D), (D, D), (D, C))
    prompt = builder(history_window=2).round_prompt(obs_after(rounds, window=2))
    assert "The last 2 rounds (earlier rounds are not shown):" in prompt
    assert "Round 1:" not in prompt and "Round 2:" not in prompt
    assert "Round 3: you played D, opponent played D" in prompt
    assert prompt.rstrip().splitlines()[-3].startswith("Round 4: you played D, opponent played C")

    hidden = builder(history_window=0).round_prompt(obs_after(rounds, window=0))
    assert "not shown what happened in earlier rounds" in hidden
    assert "you played" not in hidden


def test_totals_only_when_enabled():
    rounds = played((C, D), (C, C))
    with_totals = builder(include_totals=True).round_prompt(obs_after(rounds, totals=True))
    assert "Total so far: you 3 points, opponent 8 points." in with_totals
    without = builder().round_prompt(obs_after(rounds))
    assert "Total" not in without


@pytest.mark.parametrize(
    ("disclose", "horizon", "expected", "absent"),
    [
        ("rounds", FixedHorizon(7), "The game lasts exactly 7 rounds.", "probability"),
        ("auto", FixedHorizon(7), "The game lasts exactly 7 rounds.", "probability"),
        ("stop_prob", GeometricHorizon(0.05), "ends with probability 0.05", "lasts exactly"),
        ("auto", GeometricHorizon(0.1), "ends with probability 0.1", "lasts exactly"),
    ],
)
def test_horizon_disclosure(disclose, horizon, expected, absent):
    prompts = builder(horizon=horizon, disclose_horizon=disclose)
    assert expected in prompts.system
    assert absent not in prompts.system


@pytest.mark.parametrize("horizon", [FixedHorizon(7), GeometricHorizon(0.1)])
def test_horizon_not_disclosed(horizon):
    prompts = builder(horizon=horizon, disclose_horizon="none")
    assert "lasts" not in prompts.system and "probability" not in prompts.system
    assert prompts.round_prompt(obs_after([])).endswith("\nRound 1: your action?")


@pytest.mark.parametrize(
    ("disclose", "horizon"), [("rounds", GeometricHorizon(0.1)), ("stop_prob", FixedHorizon(5))]
)
def test_impossible_disclosure_is_a_config_error(disclose, horizon):
    with pytest.raises(ConfigError) as raised:
        builder(horizon=horizon, disclose_horizon=disclose)
    assert raised.value.field == "disclose_horizon"
    with pytest.raises(ConfigError):
        check_prompt_files(LLMAgentSpec(disclose_horizon=disclose), ROOT, horizon)


def test_persona_goes_into_the_system_prompt_with_the_game_labels():
    plain = builder(game=SPLIT).system
    grim = builder(game=SPLIT, persona="grim_trigger").system
    assert grim.startswith(plain)
    assert 'Once the other player has chosen "steal" even a single time' in grim
    assert "{" not in grim


def test_json_instruction():
    prompt = builder(game=SPLIT, response_format="json").system
    assert 'Reply with only a JSON object and nothing else: {"action": "<your action>"}' in prompt
    assert '"reason"' in prompt


def test_rendering_is_deterministic():
    rounds = played((C, D), (D, C), (C, C))
    one, two = builder(persona="wsls"), builder(persona="wsls")
    assert one.system == two.system
    assert one.round_prompt(obs_after(rounds)) == two.round_prompt(obs_after(rounds))


def test_available_personas():
    assert available_personas(ROOT) == PERSONAS
    assert available_personas(ROOT / "nowhere") == []
    for persona in PERSONAS:
        check_prompt_files(LLMAgentSpec(persona=persona), ROOT)


def test_missing_persona_names_the_field_and_suggests():
    with pytest.raises(ConfigError) as raised:
        check_prompt_files(LLMAgentSpec(persona="cooprative"), ROOT)
    error = raised.value
    assert error.field == "persona"
    assert 'no persona "cooprative" in prompts/personas/' in str(error)  # the folder looked in
    assert 'did you mean "cooperative"?' in str(error)
    assert "exploitative" in str(error)


@pytest.fixture
def project(tmp_path):
    shutil.copytree(ROOT / "prompts", tmp_path / "prompts")
    return tmp_path


def test_missing_prompt_file(project):
    (project / "prompts" / "pd_round.md").unlink()
    with pytest.raises(ConfigError) as raised:
        check_prompt_files(LLMAgentSpec(), project)
    assert raised.value.field == "round_prompt"
    assert raised.value.file == "prompts/pd_round.md"
    assert "not found" in str(raised.value)


def test_prompt_paths_are_relative_to_the_project_root(project):
    (project / "prompts" / "short.md").write_text("Round {round_index}: {answer_instruction}")
    prompts = builder(root=project, round_prompt="prompts/short.md")
    assert prompts.round_prompt(obs_after([])) == (
        "Round 1: Answer with exactly one of: C, D. Reply with only your action, nothing else."
    )


def test_unknown_placeholder(project):
    (project / "prompts" / "pd_system.md").write_text("Labels {cooperate_labl}")
    with pytest.raises(ConfigError) as raised:
        check_prompt_files(LLMAgentSpec(), project)
    assert raised.value.field == "system_prompt"
    assert 'unknown placeholder {cooperate_labl} (did you mean "cooperate_label"?)' in str(
        raised.value
    )


def test_braces_in_templates(project):
    persona = project / "prompts" / "personas" / "json_fan.md"
    persona.write_text("Say {oops")
    with pytest.raises(ConfigError, match=re.escape("write {{ and }} for literal braces")):
        check_prompt_files(LLMAgentSpec(persona="json_fan"), project)
    persona.write_text('Say {"action": "C"}')
    with pytest.raises(ConfigError, match=re.escape('{"action": "C"}: not a placeholder name')):
        check_prompt_files(LLMAgentSpec(persona="json_fan"), project)
    persona.write_text('Say {{"action": "{cooperate_label}"}}')
    prompts = builder(root=project, persona="json_fan")
    assert prompts.system.endswith('Say {"action": "C"}')
