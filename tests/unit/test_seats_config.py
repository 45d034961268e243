"""N player seats in a condition (issue 43, stage B): a game declares how many seats it has, a
condition binds each seat it plays (`agent_a`, `agent_b`, `agent_c`, ...) on the Hydra command
line and in experiment files alike; a seat left unbound or beyond the game's number is one line
naming the field, and a pair's condition keeps the config hash it had before groups existed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pdbench.config.schema import SEAT_FIELDS
from pdbench.core.errors import ConfigError
from pdbench.games.registry import TURN_GAMES, build_turn_game, seats_played
from pdbench.runners.prepare import load
from tests.in_process import run_front_door

ROOT = Path(__file__).resolve().parents[2]
GROUP = [
    "game=public_goods",
    "agent_a=pgg_conditional_cooperator",
    "agent_b=pgg_free_rider",
    "agent_c=pgg_full_contributor",
]


def test_every_game_declares_its_seats_and_the_pairs_have_two():
    for game_id, entry in TURN_GAMES.items():
        rules = build_turn_game(game_id)
        assert len(seats_played(game_id, rules)) == entry.seats.default
        if entry.seats.maximum == 2:
            assert seats_played(game_id, rules) == ("a", "b")
    assert TURN_GAMES["public_goods"].seats.maximum == 100  # players x groups, MAX_SEATS
    assert tuple(f"agent_{letter}" for letter in "abcdefghij") == SEAT_FIELDS


def test_a_group_binds_one_agent_per_seat_on_the_command_line():
    condition = load("conf/config.yaml", [*GROUP, "agent_d=pgg_punisher"], project_root=ROOT)
    players = condition.spec.conditions[0].players
    assert list(players) == ["agent_a", "agent_b", "agent_c", "agent_d"]
    assert players["agent_d"].policy == "pgg_punisher"  # type: ignore[union-attr]


def test_the_number_of_seats_is_the_games_option():
    three = load("conf/config.yaml", [*GROUP, "game.options.players=3"], project_root=ROOT)
    assert len(three.spec.conditions[0].players) == 3


@pytest.mark.parametrize(
    ("overrides", "words"),
    [
        (GROUP, "agent_d: missing: public_goods plays 4 seats here"),
        ([*GROUP, "agent_d=pgg_random", "agent_e=pgg_hump"], "agent_e: public_goods plays 4"),
        (["agent_c=tft"], "agent_c: the 2x2 game pd plays 2 seats here .* so there is no seat c"),
        (
            ["game=liars_dice", "agent_a=liars_random", "agent_b=liars_random", "agent_c=tft"],
            "agent_c: liars_dice plays 2 seats here",
        ),
    ],
)
def test_a_seat_unbound_or_beyond_the_game_is_one_line_naming_it(overrides, words):
    with pytest.raises(ConfigError, match=words):
        load("conf/config.yaml", overrides, project_root=ROOT)


def test_the_front_door_refuses_a_missing_seat_with_exit_2(tmp_path):
    env = {**os.environ, "PDBENCH_CACHE_DIR": str(tmp_path / "cache")}
    done = run_front_door("cli", ["validate", "conf/config.yaml", *GROUP], cwd=ROOT, env=env)
    assert done.code == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "conf/config.yaml" in lines[0] and "agent_d: missing" in lines[0]


def test_an_experiment_file_binds_further_seats(tmp_path):
    experiment = tmp_path / "group.yaml"
    experiment.write_text(
        "game: {id: public_goods, options: {players: 3, rounds: 2}}\n"
        "conditions:\n"
        "  - {name: three, agent_a: pgg_free_rider, agent_b: pgg_hump, agent_c: pgg_random}\n"
        "  - {name: two_only, agent_a: pgg_free_rider, agent_b: pgg_hump}\n"
    )
    with pytest.raises(ConfigError, match=r"conditions\[1\]\(two_only\): agent_c: missing"):
        load(experiment, project_root=ROOT)
    experiment.write_text(experiment.read_text().rsplit("  - {name: two_only", 1)[0])
    spec = load(experiment, project_root=ROOT).spec
    assert spec.conditions[0].players["agent_c"].policy == "pgg_random"  # type: ignore[union-attr]


# The config hashes main computed for these configs before conditions had further seats: every
# pair's run keeps its run id (and resumes) now that they exist.
HASHES_BEFORE_SEATS = {
    ("conf/config.yaml",): "e23a4798dbb11983bf54df799b0c6b89c448b655bcccd948406368c9669cb89b",
    (
        "conf/config.yaml",
        "game=liars_dice",
        "agent_a=liars_random",
        "agent_b=liars_bluffer",
    ): "22e1bcba9cb6da035bd417cbcf1d51f5224795c91c6d1f1efc0c7e723e0eaeb7",
    (
        "conf/config.yaml",
        "game=passcode",
        "agent_a=passcode_halving",
        "agent_b=passcode_halving",
    ): "c0031991da9815bb18538ac34f03040f5900c40d4a50455dcb72ed32f4b9f21f",
    ("conf/experiment.yaml",): "62d771d887a84695ce410d1b200d71347772478f86fd0bf94add24bc76286e68",
    (
        "tests/golden/every_game/dilemmas.yaml",
    ): "6b570212cf4d28148be12319212b2caea3267aaaaad27d62da58029ae6cf1729",
}


@pytest.mark.parametrize("command", list(HASHES_BEFORE_SEATS))
def test_a_pairs_config_hash_is_unchanged(command):
    path, *overrides = command
    assert load(path, overrides, project_root=ROOT).config_hash == HASHES_BEFORE_SEATS[command]
