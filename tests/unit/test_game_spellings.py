"""Issue 41: one game, two spellings (`game=liars_dice`, but an agent file's `GAME = "liars-dice"`):
wherever a user names a game, either is accepted (`pdbench.games.registry.game_id`, the one
function that reads it), any case, and both spellings make the same run; a name that is neither
suggests pdbench's id. The command lines of both front doors are rows of
tests/e2e/bad_input_cases.py (GAME_SPELLINGS)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pdbench.agents.arena.training import game_of
from pdbench.agents.arena.validate import check_arena_file
from pdbench.config.schema import ArenaAgentSpec, GameSpec
from pdbench.core.errors import ConfigError
from pdbench.games.registry import GAME_FAMILIES, TURN_GAMES, game_id
from pdbench.games.tables import GAMES
from pdbench.runners.prepare import load

PROJECT = Path(__file__).resolve().parents[2]
PRIMARY = PROJECT / "conf" / "config.yaml"


def _platform(game: str) -> str:
    return TURN_GAMES[game].platform_name if game in TURN_GAMES else GAMES[game].arena_id


@pytest.mark.parametrize("game", sorted(GAME_FAMILIES))
def test_every_game_by_either_spelling_in_any_case(game):
    for name in (game, game.upper(), _platform(game), _platform(game).upper()):
        assert game_id(name) == game, name
    assert GameSpec(id=_platform(game)).id == game


def test_a_name_that_is_neither_suggests_the_id():
    with pytest.raises(ConfigError) as refused:
        game_id("liars-dcie")
    assert 'unknown game "liars-dcie" (did you mean "liars_dice"?)' in str(refused.value)
    assert "liars-dice" not in str(refused.value).split("choose one of")[1]  # the ids listed


def test_either_spelling_on_the_command_line_is_the_same_run():
    agents = ["agent_a=liars_random", "agent_b=liars_random"]
    ids = {
        load(PRIMARY, [f"game={name}", *agents], project_root=PROJECT).run_id
        for name in ("liars_dice", "liars-dice", "Liars-Dice")
    }
    assert len(ids) == 1, ids
    swept = load(
        PRIMARY,
        ["game=liars-dice,passcode", "agent_a=llm_default", "agent_b=llm_default"],
        project_root=PROJECT,
    )
    assert [c.game.id for c in swept.spec.conditions] == ["liars_dice", "passcode"]
    assert [c.name for c in swept.spec.conditions] == ["game=liars_dice", "game=passcode"]


def test_either_spelling_in_an_experiment_file(tmp_path):
    experiment = tmp_path / "e.yaml"
    experiment.write_text(
        "game: {id: stag-hunt}\nconditions:\n  - {name: x, agent_a: tft, agent_b: alld}\n"
    )
    assert load(experiment, project_root=PROJECT).spec.conditions[0].game.id == "stag_hunt"
    chosen = load(experiment, ["game=prisoners-dilemma"], project_root=PROJECT)
    assert chosen.spec.conditions[0].game.id == "pd"


@pytest.mark.parametrize("declared", ["liars-dice", "liars_dice", "LIARS_DICE"])
def test_an_agent_files_game_by_either_spelling(tmp_path, declared):
    path = tmp_path / "mine.py"
    path.write_text(
        f'class Agent:\n    GAME = "{declared}"\n    def on_turn(self, s):\n        pass\n'
    )
    assert game_of(path, declared, None) == "liars_dice"
    assert game_of(path, declared, "liars-dice") == "liars_dice"  # --game agrees either way
    spec = ArenaAgentSpec(path=str(path), sandbox="off")
    check_arena_file(spec, TURN_GAMES_BUILT["liars_dice"], PROJECT)


def test_train_game_option_by_either_spelling(tmp_path):
    path = tmp_path / "any.py"
    path.write_text("class Agent:\n    def on_turn(self, s):\n        pass\n")
    assert game_of(path, None, "nil_recruitment") == game_of(path, None, "nil-recruitment")


TURN_GAMES_BUILT = {"liars_dice": GameSpec(id="liars_dice").build_turn()}
