"""Every registered turn-based game honours the contract of pdbench.games.base, checked by the
library's own checker (pdbench.games.check, `pdbench check-game`): its house players play whole
legal matches, a match replays move for move from its seed and its stored actions, observations
are JSON naming the game as the platform does. That no observation carries what its seat may not
see is checked per game by the game's own tests. A game that breaks a check is named with where."""

from __future__ import annotations

import itertools

import pytest

from pdbench.core.errors import ConfigError
from pdbench.games.check import check_game
from pdbench.games.liars_dice.game import LiarsDice
from pdbench.games.registry import TURN_GAMES, build_turn_game

GAME_IDS = sorted(TURN_GAMES)


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_every_registered_game_passes_the_contract_checks(game_id):
    """pdbench.games.check (what `pdbench check-game` runs): the registry row and the rules
    agree, house players play whole legal matches that replay from seed and stored actions,
    observations are JSON naming the game, refusals give a reason and the fallbacks are legal."""
    results = check_game(game_id)
    assert [r.problem for r in results] == [None] * len(results), results
    # the hidden-information check runs where the game says what is hidden (redraw_hidden)
    assert len(results) == (
        4 if game_id in ("liars_dice", "passcode", "donor_game", "normal_form") else 3
    )


class _Drifting(LiarsDice):
    """Liar's Dice whose first roll ignores the seed: the same seed gives another match."""

    draws = itertools.count()

    def initial_state(self, seed: int):  # type: ignore[no-untyped-def]
        return super().initial_state(seed + next(self.draws))


class _Unserialisable(LiarsDice):
    def observe(self, state, seat):  # type: ignore[no-untyped-def]
        return {**super().observe(state, seat), "dice_set": {1, 2}}


class _Peeking(LiarsDice):
    """Liar's Dice whose round_state lets a player see both hands."""

    def observe(self, state, seat):  # type: ignore[no-untyped-def]
        return {**super().observe(state, seat), "all_dice": [list(d) for d in state.dice]}


@pytest.mark.parametrize(
    ("rules", "found"),
    [
        (_Drifting, "the same seed and players gave another match"),
        (_Unserialisable, "not JSON"),
        (_Peeking, "the observation changes with what the seat may not see"),
    ],
)
def test_a_game_that_breaks_the_contract_is_named_with_where(rules, found, monkeypatch):
    from pdbench.games import check

    monkeypatch.setattr(check, "build_turn_game", lambda game_id: rules())
    results = {r.name: r.problem for r in check.check_game("liars_dice", seeds=2)}
    problems = [problem for problem in results.values() if problem]
    assert problems and all(found in p and "seed 0" in p for p in problems), results


def test_check_game_says_ok_fail_and_checks_a_matrix_game_too(monkeypatch, tmp_path):
    import os

    from in_process import run_front_door

    from pdbench.games import check

    def command(*args: str):
        return run_front_door("cli", ["check-game", *args], cwd=tmp_path, env=dict(os.environ))

    done = command("liars-dice", "--seeds", "2")
    assert done.code == 0, done.stderr
    assert done.stdout.count("  ok    ") == 4 and "not checked here: a golden" in done.stdout
    matrix = command("prisoners-dilemma", "--seeds", "2")  # on the turn contract (games.matrix)
    assert matrix.code == 0, matrix.stderr
    assert "check-game pd " in matrix.stdout and matrix.stdout.count("  ok    ") == 4
    unknown = command("pdd")
    assert unknown.code == 2 and "pdd" in unknown.stderr
    assert len(unknown.stderr.strip().splitlines()) == 1
    monkeypatch.setattr(check, "build_turn_game", lambda game_id: _Drifting())
    failed = command("liars_dice", "--seeds", "2")
    assert failed.code == 7, failed.stderr
    assert "FAIL" in failed.stdout and "fails 1 of 4 contract checks" in failed.stderr


def test_an_unknown_game_names_the_field_and_the_choices():
    with pytest.raises(ConfigError, match=r"game\.id.*liars_dice"):
        build_turn_game("liars_die")


def test_a_plugin_game_that_is_no_entry_or_takes_a_taken_name_is_left_out_in_one_line(
    monkeypatch, capsys
):
    import dataclasses

    from pdbench.core import plugins
    from pdbench.games import registry

    before = dict(registry.TURN_GAMES)
    twin = dataclasses.replace(before["liars_dice"], id="dice_twin")  # liars-dice taken
    odd = dataclasses.replace(before["liars_dice"], id="other", platform_name="other")
    fine = dataclasses.replace(before["liars_dice"], id="fine", platform_name="fine-game")
    offered = {"not_an_entry": object(), "dice_twin": twin, "misnamed": odd, "fine": fine}
    monkeypatch.setattr(plugins, "load_group", lambda group: offered)
    monkeypatch.setattr(plugins, "FAILED", [])
    monkeypatch.setattr(registry, "TURN_GAMES", dict(before))
    registry._add_plugin_games()
    assert set(registry.TURN_GAMES) == {*before, "fine"}
    warned = capsys.readouterr().err.splitlines()
    assert len(warned) == 3
    assert all(line.startswith("warning: plugin game ") for line in warned)
    assert {line.split()[3] for line in warned} == {"not_an_entry", "dice_twin", "misnamed"}
    assert warned == plugins.FAILED
