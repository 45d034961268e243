"""Scenario data: the shipped files load, a user's own file replaces them, a bad file is a
ConfigError naming the file and the field, and the draw is a pure function of the seed."""

from __future__ import annotations

import json

import pytest

from pdbench.core.errors import ConfigError
from pdbench.games.nil_recruitment.rules import NilRecruitment
from pdbench.games.nuclear_war.rules import NuclearWar
from pdbench.games.passcode.rules import Passcode
from pdbench.games.scenarios import load_nuclear, load_recruitment, load_words


def test_the_shipped_files_load():
    assert len(load_words().words) >= 64
    assert len(load_nuclear().presidents) >= 6 and len(load_nuclear().crises) >= 6
    assert len(load_recruitment().universities) >= 8 and len(load_recruitment().athletes) >= 6


def test_a_users_own_word_file_is_played(tmp_path):
    file = tmp_path / "words.json"
    file.write_text(json.dumps({"words": ["kiwi", "mango"]}))
    game = Passcode(scenario_file=str(file), words_per_match=2)
    assert {game.secret_word(3, 1), game.secret_word(3, 2)} == {"kiwi", "mango"}


@pytest.mark.parametrize(
    ("rules", "document", "field"),
    [
        (Passcode, {"words": ["ok", "Not Ok"]}, "words[1]"),
        (Passcode, {"words": []}, "words"),
        (NuclearWar, {"presidents": [{"name": "P"}], "crises": []}, "presidents[0].background"),
        (
            NilRecruitment,
            {"universities": ["A", "B"], "athletes": [{"name": "N", "position": "qb",
                                                       "priorities": "money", "concerns": ["x"]}]},
            "athletes[0].priorities",
        ),
        (NilRecruitment, {"universities": ["A"], "athletes": []}, "universities"),
    ],
)  # fmt: skip
def test_a_bad_file_names_the_file_and_the_field(tmp_path, rules, document, field):
    file = tmp_path / "mine.json"
    file.write_text(json.dumps(document))
    with pytest.raises(ConfigError) as error:
        rules(scenario_file=str(file))
    assert error.value.file == str(file) and error.value.field == field


def test_an_unreadable_or_non_json_file_names_the_file(tmp_path):
    with pytest.raises(ConfigError, match=r"missing\.json: cannot read"):
        Passcode(scenario_file=str(tmp_path / "missing.json"))
    (tmp_path / "bad.json").write_text("{words")
    with pytest.raises(ConfigError, match=r"bad\.json: not JSON"):
        NuclearWar(scenario_file=str(tmp_path / "bad.json"))


def test_the_draw_is_a_pure_function_of_the_seed_and_varies_with_it():
    game = NuclearWar()
    assert game.draw(5, 1) == game.draw(5, 1)
    records = {json.dumps(game.draw(seed, 1).record) for seed in range(20)}
    assert len(records) > 5
    sides = {game.draw(seed, 1).sides for seed in range(20)}
    assert sides == {("for", "against"), ("against", "for")}
    schools = NilRecruitment().draw(1, 1).sides
    assert schools[0] != schools[1]
