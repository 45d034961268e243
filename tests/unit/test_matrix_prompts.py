"""The 2x2 games' LLM prompts are their family's (issue 43): every 2x2 entry names the family's
prompt adapter (`pdbench.games.matrix.prompts`, a `TablePrompts`), and the LLM agent's prompt
builder asks the game's entry for what its templates say of the game and for reading the
answer, so a 2x2 entry naming another adapter changes what its LLM players are told. The
prompts themselves are byte-identical to those before the move (their digest, pinned on the
code before it: the replay cache's keys hash them)."""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import sys
import types
from pathlib import Path

import pytest

from pdbench.agents.llm.prompts import PromptBuilder, check_prompt_files
from pdbench.agents.llm.templates import Vocabulary
from pdbench.config.schema import LLMAgentSpec
from pdbench.core.actions import C, D
from pdbench.core.errors import ConfigError
from pdbench.core.horizon import FixedHorizon, GeometricHorizon
from pdbench.core.parse import ParsedAnswer
from pdbench.core.talk import Negotiation, Said
from pdbench.core.transcript import PlayedRound, observe
from pdbench.games.matrix import matrix_entry
from pdbench.games.matrix.prompts import PROMPTS, MatrixPrompts
from pdbench.games.registry import MATRIX_GAMES, table_prompts
from pdbench.games.tables import GAMES

ROOT = Path(__file__).resolve().parents[2]
PD = GAMES["pd"]


def test_every_2x2_entry_names_the_familys_prompt_adapter():
    for game_id, entry in MATRIX_GAMES.items():
        assert entry.llm_plays, game_id
        assert table_prompts(game_id) is PROMPTS
    # a plugin's 2x2 game made by matrix_entry gets the same
    plugin = matrix_entry(PD, rules="somewhere:Rules", summary="a plugin's dilemma")
    assert plugin.llm == "pdbench.games.matrix.prompts:PROMPTS"


def test_a_game_without_2x2_prompts_is_refused_in_one_line(monkeypatch):
    with pytest.raises(ConfigError, match="liars_dice has no 2x2 prompts"):
        table_prompts("liars_dice")
    monkeypatch.setitem(MATRIX_GAMES, "pd", dataclasses.replace(MATRIX_GAMES["pd"], llm=""))
    with pytest.raises(ConfigError, match="pd has no 2x2 prompts"):
        PromptBuilder(LLMAgentSpec(), game=PD, horizon=FixedHorizon(5), project_root=ROOT)


def test_the_family_declares_exactly_the_placeholders_it_fills():
    game = GAMES["split_or_steal"].with_changes(negotiation=Negotiation())
    spec = LLMAgentSpec(include_totals=True)
    obs = observe([], side="a", history_window=10, include_totals=True)
    assert set(PROMPTS.game_fields(game, spec)) == PROMPTS.game_placeholders
    assert PROMPTS.persona_placeholders < PROMPTS.game_placeholders
    assert set(PROMPTS.round_fields(game, spec, obs, (C, D))) == PROMPTS.round_placeholders
    assert set(PROMPTS.talk_fields(game, obs)) == PROMPTS.talk_placeholders


def test_a_2x2_agents_templates_may_use_the_names_they_always_could():
    """The names users' template files use: the agent's own and the family's together are the
    sets the agent allowed before the family declared its own (a file accepted or refused
    before is accepted or refused alike)."""
    shared = {
        "cooperate_label",
        "defect_label",
        "cooperate_option",
        "defect_option",
        "payoff_table",
        "payoff_rules",
        "horizon",
        "rounds",
        "persona",
        "answer_instruction",
    }
    round_ = shared | {
        "round_index",
        "of_rounds",
        "rounds_played",
        "history",
        "totals",
        "window_summary",
        "first_option",
        "second_option",
        "conversation",
    }
    allowed = Vocabulary.of(PROMPTS)
    assert allowed.system == shared
    assert allowed.round == round_
    assert allowed.negotiate == round_ | {"turn", "max_chars", "messages_each"}
    assert allowed.persona == {
        "cooperate_label",
        "defect_label",
        "cooperate_option",
        "defect_option",
    }


@pytest.mark.parametrize(
    ("round_text", "message"),
    [
        (
            "{history}\n{answer_instruction}",
            "round_prompt: neither system_prompt nor round_prompt shows the payoffs: put "
            "{payoff_table} or {payoff_rules} in one of them",
        ),
        (
            "{payoff_rules}\n{history}\nWhat do you choose, {first_option}?",
            "round_prompt: the model is never told what to answer: put {answer_instruction} in "
            "system_prompt or round_prompt, or name both options in the round prompt "
            "({first_option} and {second_option})",
        ),
    ],
)
def test_templates_that_leave_out_the_payoffs_or_the_answer_are_refused_as_before(
    tmp_path, round_text, message
):
    """What a 2x2 agent's templates must show is the family's (`payoff_placeholders`,
    `option_pairs`); the refusals read as they did when the agent named them itself."""
    round_file = tmp_path / "round.md"
    round_file.write_text(round_text)
    spec = LLMAgentSpec(system_prompt=None, round_prompt=str(round_file))
    with pytest.raises(ConfigError) as refused:
        check_prompt_files(spec, ROOT, FixedHorizon(5), PD)
    assert str(refused.value).endswith(message)
    for first, second in PROMPTS.option_pairs:  # any pair of names tells the answer
        round_file.write_text(f"{{payoff_table}} {{{first}}} or {{{second}}}?")
        check_prompt_files(spec, ROOT, FixedHorizon(5), PD)


class Shouting(MatrixPrompts):
    """Another family's wording: louder rules, and only lower-case answers."""

    def game_fields(self, game, settings):
        secret = {"payoff_table": "PAYOFFS ARE SECRET", "payoff_rules": "PAYOFFS ARE SECRET"}
        return {**super().game_fields(game, settings), **secret}

    def answer_instruction(self, game, settings, order):
        return "SHOUT " + " OR ".join(game.label(action).lower() for action in order)

    def action(self, game, settings, answer):
        for action in (C, D):
            if answer == game.label(action).lower():
                return ParsedAnswer(valid=True, action=action)
        return ParsedAnswer(valid=False, error="not shouted in lower case")

    def legal_answers(self, game):
        return tuple(label.lower() for label in game.labels)

    round_placeholders = MatrixPrompts.round_placeholders | {"mood"}

    def round_fields(self, game, settings, obs, order):
        return {**super().round_fields(game, settings, obs, order), "mood": "LOUD"}


def test_the_llm_agent_asks_the_games_entry_for_its_words_and_its_parser(monkeypatch):
    module = types.ModuleType("shouting_words")
    module.WORDS = Shouting()
    monkeypatch.setitem(sys.modules, "shouting_words", module)
    entry = dataclasses.replace(MATRIX_GAMES["pd"], llm="shouting_words:WORDS")
    monkeypatch.setitem(MATRIX_GAMES, "pd", entry)
    prompts = PromptBuilder(LLMAgentSpec(), game=PD, horizon=FixedHorizon(5), project_root=ROOT)
    first = observe([], side="a", history_window=10, include_totals=False)
    shown = prompts.system + prompts.round_prompt(first, (D, C))
    assert "PAYOFFS ARE SECRET" in shown and "SHOUT c OR d" in shown
    assert "SHOUT d OR c" in prompts.correction("no", 1, (D, C))
    assert prompts.read_answer("c").action is C
    assert not prompts.read_answer("C").valid
    assert prompts.legal_answers() == ("c", "d")


def test_a_games_adapter_says_which_placeholders_a_template_may_use(monkeypatch, tmp_path):
    module = types.ModuleType("shouting_words")
    module.WORDS = Shouting()
    monkeypatch.setitem(sys.modules, "shouting_words", module)
    round_file = tmp_path / "round.md"
    round_file.write_text("{payoff_table}\nMood: {mood}\n{answer_instruction}\n")
    spec = LLMAgentSpec(system_prompt=None, round_prompt=str(round_file))
    first = observe([], side="a", history_window=10, include_totals=False)
    with pytest.raises(ConfigError, match=r"unknown placeholder \{mood\}"):
        PromptBuilder(spec, game=PD, horizon=FixedHorizon(5), project_root=ROOT)
    entry = dataclasses.replace(MATRIX_GAMES["pd"], llm="shouting_words:WORDS")
    monkeypatch.setitem(MATRIX_GAMES, "pd", entry)
    prompts = PromptBuilder(spec, game=PD, horizon=FixedHorizon(5), project_root=ROOT)
    assert prompts.round_prompt(first) == "PAYOFFS ARE SECRET\nMood: LOUD\nSHOUT c OR d"


# The digest of every prompt of `_prompt_grid`, computed by the code before the 2x2 wording
# moved into games/matrix (main at 63b07c4): the move changed no byte sent to a model.
PINNED = "dedc9f3658bde85d980346c8140f5f9765a7018720448b881331b4463ce22a7f"


def _prompt_grid() -> str:
    """Every prompt a 2x2 LLM agent sends (system, round, re-ask, negotiate) over the history
    formats, voices, label styles, totals, answer formats, both horizons, talk and no talk,
    both option orders and the first rounds of a match, for two tables."""
    digest = hashlib.sha256()
    moves = [(C, D), (D, C), (C, C)]
    for game_id, talk in itertools.product(("pd", "battle_of_the_sexes"), (False, True)):
        game = GAMES[game_id].with_changes(negotiation=Negotiation() if talk else None)
        seen = game.seen_by("a")
        rounds = [
            PlayedRound(i, x, y, *seen.payoffs.payoffs(x, y)) for i, (x, y) in enumerate(moves, 1)
        ]
        for history, person, labels, totals, answer, horizon in itertools.product(
            ("lines", "sentences", "table", "pairs"),
            ("second_person", "third_person"),
            ("bare", "option"),
            ("points", "counts_and_points", None),
            ("label", "json", "reasoning"),
            (FixedHorizon(5), GeometricHorizon(0.15)),
        ):
            spec = LLMAgentSpec(
                history_format=history,
                perspective=person,
                label_style=labels,
                include_totals=totals is not None,
                totals_format=totals or "points",
                response_format=answer,
                persona="cooperative",
            )
            prompts = PromptBuilder(spec, game=game, horizon=horizon, project_root=ROOT)
            digest.update(prompts.system.encode())
            for played in range(len(rounds) + 1):
                obs = observe(
                    rounds[:played],
                    side="a",
                    history_window=2,
                    include_totals=totals is not None,
                )
                if talk:
                    obs = dataclasses.replace(
                        obs, messages=(Said(1, True, "I will split."), Said(2, False, "")), turn=3
                    )
                    digest.update(prompts.negotiate_prompt(obs).encode())
                for order in ((C, D), (D, C)):
                    digest.update(prompts.round_prompt(obs, order).encode())
                    digest.update(prompts.correction("bad", obs.round_index, order).encode())
    return digest.hexdigest()


def test_the_2x2_prompts_are_byte_identical_to_those_before_the_move():
    assert _prompt_grid() == PINNED
