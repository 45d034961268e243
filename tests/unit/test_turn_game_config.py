"""A turn game in a config: its options checked against the rules' fields, the 2x2-only settings
refused, one family per run, and the house players' parameters checked against their fields."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from pdbench.config.game_spec import GameSpec
from pdbench.config.schema import ConditionSpec, ExperimentSpec
from pdbench.games.registry import GAME_FAMILIES, game_id

RANDOM = {"type": "policy", "policy": "liars_random"}


def test_one_registry_lists_every_game_with_its_family():
    assert GAME_FAMILIES["pd"] == "matrix" and GAME_FAMILIES["liars_dice"] == "turn"
    assert {"stag_hunt", "chicken", "split_or_steal", "battle_of_the_sexes"} <= set(GAME_FAMILIES)
    with pytest.raises(Exception, match='did you mean "liars_dice"'):
        game_id("liars_dic")


@pytest.mark.parametrize(
    ("game", "words"),
    [
        ({"options": {"wild_ones": 1}}, "options.wild_ones: must be bool"),
        ({"options": {"faces": "6"}}, "options.faces: must be int"),
        ({"options": {"dice_per_player": 0}}, "options.dice_per_player: dice_per_player must be"),
        (
            {"payoffs": {"CC": [3, 3], "CD": [0, 5], "DC": [5, 0], "DD": [1, 1]}},
            "payoffs: liars_dice has no",
        ),
        ({"check_pd": False}, "check_pd: liars_dice has no check_pd"),
        ({"noise": 0.1}, "noise: liars_dice has no noise"),
        ({"max_turns": 0}, "max_turns"),
    ],
)
def test_a_bad_turn_game_setting_names_its_field(game, words):
    with pytest.raises(ValidationError, match=words):
        GameSpec.model_validate({"id": "liars_dice", **game})


def test_a_2x2_game_has_no_options():
    with pytest.raises(ValidationError, match=r"options\.faces: the 2x2 game pd has no options"):
        GameSpec.model_validate({"id": "pd", "options": {"faces": 6}})


def test_the_options_build_the_variant():
    spec = GameSpec.model_validate({"id": "liars_dice", "options": {"wild_ones": True}})
    rules = spec.build_turn()
    assert (rules.dice_per_player, rules.faces, rules.wild_ones) == (5, 6, True)


@pytest.mark.parametrize(
    ("agent", "words"),
    [
        ({"policy": "liars_probability", "params": {"threshold": "high"}}, "params.threshold"),
        ({"policy": "liars_bluffer", "params": {"margins": 2}}, 'did you mean "margin"'),
    ],
)
def test_a_house_players_parameters_are_checked(agent, words):
    with pytest.raises(ValidationError, match=words):
        ConditionSpec.model_validate(
            {
                "name": "c",
                "game": {"id": "liars_dice"},
                "agent_a": {"type": "policy", **agent},
                "agent_b": RANDOM,
            }
        )


def test_a_run_plays_one_family():
    named = r"dice \(liars_dice\) and pd \(pd\) play games whose matches are aggregated"
    with pytest.raises(ValidationError, match=named + ".*a run plays one family"):
        ExperimentSpec.model_validate(
            {
                "conditions": [
                    {
                        "name": "dice",
                        "game": {"id": "liars_dice"},
                        "agent_a": RANDOM,
                        "agent_b": RANDOM,
                    },
                    {
                        "name": "pd",
                        "agent_a": {"type": "policy", "policy": "tft"},
                        "agent_b": {"type": "policy", "policy": "tft"},
                    },
                ]
            }
        )
