"""The built-in games as data: payoffs, labels shown to agents, C/D storage, lookup by id."""

import pytest

from pdbench.core.actions import C, D
from pdbench.core.errors import ConfigError, InvalidActionError
from pdbench.games.tables import GAMES, get_game

PD = GAMES["pd"]
SPLIT = GAMES["split_or_steal"]


def test_the_catalogue():
    assert set(GAMES) == {"pd", "stag_hunt", "chicken", "split_or_steal", "battle_of_the_sexes"}
    for game_id, game in GAMES.items():
        assert game.id == game_id
        assert get_game(game_id) is game


def test_the_catalogue_is_the_registered_entries_tables_each_from_its_own_package():
    """Issue 43: a 2x2 game's table lives in its package (`pdbench.games.<id>.TABLE`), carried by
    its entry; the catalogue holds what the registry lists, nothing of its own."""
    import importlib

    import pdbench.core.game
    from pdbench.games.registry import MATRIX_GAMES

    assert {game_id: entry.table for game_id, entry in MATRIX_GAMES.items()} == GAMES
    for game_id, game in GAMES.items():
        assert importlib.import_module(f"pdbench.games.{game_id}").TABLE is game
    # core keeps the type and its helpers only: no game's table, no catalogue
    assert not {"GAMES", "get_game", "DEFAULT_GAME", "PD"} & set(vars(pdbench.core.game))


def test_a_plugin_2x2_game_joins_the_2x2_games_not_the_turn_games(monkeypatch):
    """An installed plugin's entry with a table (`games.matrix.matrix_entry`) is a 2x2 game: it
    is listed with the built-in ones, in the family "matrix", as a turn game's entry is with
    the turn games."""
    import dataclasses

    from pdbench.core import plugins
    from pdbench.games import registry
    from pdbench.games.matrix import matrix_entry

    table = dataclasses.replace(PD, id="pd_twin", arena_id="pd-twin", description="a twin")
    twin = matrix_entry(table, rules="pdbench.games.pd.rules:PrisonersDilemma", summary="twin")
    monkeypatch.setattr(plugins, "load_group", lambda group: {"pd_twin": twin})
    monkeypatch.setattr(registry, "MATRIX_GAMES", dict(registry.MATRIX_GAMES))
    monkeypatch.setattr(registry, "TURN_GAMES", dict(registry.TURN_GAMES))
    registry._add_plugin_games()
    assert registry.MATRIX_GAMES["pd_twin"] is twin and twin.table is table
    assert "pd_twin" not in registry.TURN_GAMES


@pytest.mark.parametrize(
    ("game_id", "cc", "cd", "dc", "dd"),
    [
        ("pd", (3, 3), (0, 5), (5, 0), (1, 1)),
        ("stag_hunt", (4, 4), (0, 3), (3, 0), (2, 2)),
        ("chicken", (3, 3), (1, 5), (5, 1), (0, 0)),
        ("split_or_steal", (50, 50), (0, 100), (100, 0), (0, 0)),
        ("battle_of_the_sexes", (10, 7), (0, 0), (0, 0), (7, 10)),
    ],
)
def test_payoffs_of_every_game(game_id, cc, cd, dc, dd):
    payoffs = GAMES[game_id].payoffs
    assert payoffs.payoffs(C, C) == cc
    assert payoffs.payoffs(C, D) == cd
    assert payoffs.payoffs(D, C) == dc
    assert payoffs.payoffs(D, D) == dd


def test_split_or_steal_follows_the_pot_of_100():
    assert SPLIT.pot == 100
    both_split = SPLIT.payoffs.payoffs(C, C)
    assert both_split == (SPLIT.pot / 2, SPLIT.pot / 2)
    assert SPLIT.payoffs.payoffs(D, C) == (SPLIT.pot, 0)  # a lone stealer takes the pot
    assert SPLIT.payoffs.payoffs(C, D) == (0, SPLIT.pot)
    assert SPLIT.payoffs.payoffs(D, D) == (0, 0)
    assert SPLIT.labels == ("split", "steal")
    # A weak PD (P == S), so it does not claim the strict inequalities.
    assert not SPLIT.is_prisoners_dilemma


def test_only_pd_claims_to_be_a_prisoners_dilemma():
    assert {g.id for g in GAMES.values() if g.is_prisoners_dilemma} == {"pd"}
    assert PD.payoffs.prisoners_dilemma_violations() == []


@pytest.mark.parametrize(
    ("game_id", "labels"),
    [
        ("pd", ("C", "D")),
        ("stag_hunt", ("stag", "hare")),
        ("chicken", ("swerve", "straight")),
        ("split_or_steal", ("split", "steal")),
        ("battle_of_the_sexes", ("J", "F")),
    ],
)
def test_labels_map_to_c_and_d_and_back(game_id, labels):
    game = GAMES[game_id]
    assert game.labels == labels
    assert (game.label(C), game.label(D)) == labels
    assert game.action_for_label(labels[0]) is C
    assert game.action_for_label(labels[1]) is D


@pytest.mark.parametrize(
    ("label", "expected"),
    [("split", C), ("Split", C), ("SPLIT", C), (" split\n", C), ("steal", D), ("StEaL", D)],
)
def test_label_lookup_is_case_insensitive_and_trims_whitespace(label, expected):
    assert SPLIT.action_for_label(label) is expected


@pytest.mark.parametrize("label", ["C", "D", "spl", "splits", "split steal", "", "cooperate"])
def test_label_lookup_is_strict_otherwise(label):
    with pytest.raises(InvalidActionError) as raised:
        SPLIT.action_for_label(label)
    assert f'"{label}"' in str(raised.value)
    assert "split, steal" in str(raised.value)


def test_pd_labels_are_case_insensitive_too():
    assert PD.action_for_label("c") is C
    assert PD.action_for_label("d") is D
    with pytest.raises(InvalidActionError):
        PD.action_for_label("split")


def test_labels_must_differ():
    with pytest.raises(ConfigError, match="must differ"):
        PD.with_changes(cooperate_label="Same", defect_label="same")


def test_with_changes_rechecks_the_pd_inequalities():
    from pdbench.core.payoff import PayoffMatrix

    with pytest.raises(ConfigError, match="T > R"):
        PD.with_changes(payoffs=PayoffMatrix(reward=3, sucker=0, temptation=3, punishment=1))
    relabelled = PD.with_changes(cooperate_label="split", defect_label="steal")
    assert relabelled.payoffs == PD.payoffs and PD.labels == ("C", "D")


@pytest.mark.parametrize(
    ("typo", "suggestion"),
    [
        ("PD", None),
        ("pdd", "pd"),
        ("stag-hunt", "stag_hunt"),
        ("chiken", "chicken"),
        ("split", None),
        ("zzzzzz", None),
    ],
)
def test_unknown_game_id_suggests_the_closest(typo, suggestion):
    with pytest.raises(ConfigError) as raised:
        get_game(typo)
    message = str(raised.value)
    assert f'unknown game "{typo}"' in message
    assert "choose one of: battle_of_the_sexes, chicken, pd, split_or_steal, stag_hunt" in message
    assert raised.value.field == "game.id"
    if suggestion:
        assert f'(did you mean "{suggestion}"?)' in message
    else:
        assert "did you mean" not in message
