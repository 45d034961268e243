"""Issue 41: `python -m pdbench game=passcode agent_a=... agent_b=llm_default` was refused ("no
persona 'cooperative' for passcode"): conf/config.yaml's default persona is the 2x2 games', which
the judged games do not have. Composed with the defaults, an LLM agent plays every game with that
game's own default persona (`TurnGameEntry.default_persona`; the config's for a 2x2 game), its
prompt files checked; a persona named on the command line that the game lacks stays an error.

Every option of conf/game/ is validated here (the prompts rendered from an opening observation);
a real match of a judged game with the default composition is a row of
tests/e2e/bad_input_cases.py (judged_game_default_persona_hydra, `python -m pdbench`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pdbench.config.schema import SEAT_FIELDS
from pdbench.config.tree import group_options
from pdbench.core.errors import ConfigError
from pdbench.games.registry import TURN_GAMES, turn_policies
from pdbench.runners.prepare import load

PROJECT = Path(__file__).resolve().parents[2]
PRIMARY = PROJECT / "conf" / "config.yaml"


def _game_id(option: str) -> str:
    """The game a conf/game/ option plays (a `@package _global_` preset holds a game block)."""
    from omegaconf import OmegaConf

    node = OmegaConf.load(PROJECT / "conf" / "game" / f"{option}.yaml")
    return str(node.game.id if "game" in node else node.id)


def _seats(game_id: str) -> int:
    """How many seats a condition of the game binds by default (two in a 2x2 game)."""
    return TURN_GAMES[game_id].seats.default if game_id in TURN_GAMES else 2


def _house_player(game_id: str) -> str:
    """A house player of the game that conf/agent/ has an option for (tft in a 2x2 game)."""
    if game_id not in TURN_GAMES:
        return "tft"
    options = group_options("agent", PROJECT)
    return next(name for name in sorted(turn_policies(game_id)) if name in options)


@pytest.mark.parametrize("option", group_options("game", PROJECT))
def test_an_llm_agent_plays_every_game_with_the_default_composition(option):
    game_id = _game_id(option)
    overrides = [
        f"game={option}",
        f"agent_a={_house_player(game_id)}",
        "agent_b=llm_default",
        *(f"{side}={_house_player(game_id)}" for side in SEAT_FIELDS[2 : _seats(game_id)]),
    ]
    entry = TURN_GAMES.get(game_id)
    if entry is not None and not entry.llm_plays:  # said when the config is read, not later
        with pytest.raises(
            ConfigError, match=f"agent_b.type: the llm agent does not play {game_id}"
        ):
            load(PRIMARY, overrides, project_root=PROJECT)
        return
    loaded = load(PRIMARY, overrides, project_root=PROJECT)
    expected = entry.default_persona if entry else "cooperative"
    assert loaded.spec.conditions[0].agent_b.persona == expected


def test_every_turn_games_default_persona_has_its_file():
    for game_id, entry in TURN_GAMES.items():
        if entry.default_persona is not None:
            path = PROJECT / "prompts" / game_id / "personas" / f"{entry.default_persona}.md"
            assert path.is_file(), path


def test_a_persona_named_on_the_command_line_stays_the_persona():
    """Named, it is kept: in Liar's Dice, which has it, it plays; in a judged game, which has no
    personas, it is the error naming the folder looked in."""
    named = ["agent_a=llm_default", "agent_b=liars_random", "persona=exploitative"]
    loaded = load(PRIMARY, ["game=liars_dice", *named], project_root=PROJECT)
    assert loaded.spec.conditions[0].agent_a.persona == "exploitative"
    judged = ["game=passcode", "agent_a=passcode_halving", "agent_b=llm_default"]
    with pytest.raises(ConfigError, match="prompts/passcode/personas/ does not exist"):
        load(PRIMARY, [*judged, "persona=cooperative"], project_root=PROJECT)
