"""The 2x2 games' parts are named by their entries, as every other game's (issue 43): the generic
code (the catalogue, the viewer, the mock, the runner) finds them through the entry."""

from __future__ import annotations

import importlib

import pytest

from pdbench.analysis.metrics import catalog
from pdbench.games.registry import MATRIX_GAMES


def test_every_2x2_entry_names_the_module_of_its_metric_rows():
    modules = {entry.metrics for entry in MATRIX_GAMES.values()}
    assert modules == {"pdbench.games.matrix.metrics"}
    module = importlib.import_module("pdbench.games.matrix.metrics")
    # the catalogue's 2x2 rows are exactly the rows that module computes, in column order
    assert catalog.BUILT_IN == module.BUILT_IN
    assert catalog.registered_metrics()[: len(module.BUILT_IN)] == module.BUILT_IN


def test_the_viewer_finds_the_2x2_page_through_the_entries():
    from pdbench.ui.game_views import run_page

    page = run_page(["pd", "split_or_steal"])  # a run of two 2x2 games: one family, one page
    assert page is not None and page.__name__ == "pdbench.games.matrix.view"
    assert {entry.view for entry in MATRIX_GAMES.values()} == {page.__name__}
    assert run_page(["liars_dice"]) is None  # a turn game's run: one transcript per match
    assert run_page(["pd", "liars_dice"]) is None  # never one family's page for another's run


def test_the_mock_plays_the_2x2_games_through_their_entries_after_every_turn_game():
    from pdbench.games.matrix import mock as matrix_mock
    from pdbench.games.registry import TURN_GAMES, game_mocks

    assert {entry.mock for entry in MATRIX_GAMES.values()} == {"pdbench.games.matrix.mock:play"}
    mocks = game_mocks()
    assert mocks[-1] is matrix_mock.play  # it reads any prompt, so it is asked last
    assert len(mocks) == len({e.mock for e in TURN_GAMES.values() if e.mock}) + 1


def test_the_runner_seats_and_stores_a_2x2_match_as_its_entry_says():
    """One path plays every match (`runners.turn_run.play_planned`); what is a game's own, its
    seating and its storing, is the `MatchRecords` its entry names: the 2x2 games' for them,
    the default turn lines for a game naming none."""
    from helpers import TEST_DEAL

    from pdbench.agents.policy import make_policy_agent
    from pdbench.config.schema import ExperimentSpec
    from pdbench.games.matrix.records import RECORDS
    from pdbench.games.matrix.seat import MatrixSeat
    from pdbench.games.registry import TURN_GAMES
    from pdbench.runners.plan import PlannedMatch, plan_matches
    from pdbench.runners.turn_run import TURN_LINES, match_records

    assert {entry.records for entry in MATRIX_GAMES.values()} == {
        "pdbench.games.matrix.records:RECORDS"
    }
    assert {entry.records for entry in TURN_GAMES.values()} == {""}

    def planned(game: str, policy: str) -> PlannedMatch:  # one family a run
        spec = ExperimentSpec.model_validate(
            {
                "run": {"seed": 5, "replicates": 1},
                "conditions": [
                    {
                        "name": "one",
                        "game": {"id": game},
                        "horizon": {"type": "fixed", "rounds": 3},
                        "agent_a": {"type": "policy", "policy": policy},
                        "agent_b": {"type": "policy", "policy": policy},
                    }
                ],
            }
        )
        (match,) = plan_matches(spec, TEST_DEAL)
        return match

    pair, dice = planned("pd", "tft"), planned("liars_dice", "liars_random")
    assert match_records(pair) is RECORDS
    assert match_records(dice) is TURN_LINES
    agents = [
        make_policy_agent(
            pair.condition.players[f"agent_{side}"], game=pair.rules.game.seen_by(side)
        )
        for side in "ab"
    ]
    seated = RECORDS.seat(pair, agents)
    assert [type(seat) for seat in seated.agents.values()] == [MatrixSeat, MatrixSeat]
    assert [seat.agent for seat in seated.agents.values()] == agents  # type: ignore[attr-defined]
    assert seated.start is not None  # dealt its trembling hands' streams
    # a 2x2 seat adapts a TableAgent; a turn game's house player has no table hooks to call
    dice_player = make_policy_agent(
        dice.condition.players["agent_a"], game=pair.rules.game.seen_by("a")
    )
    with pytest.raises(TypeError, match="LIARS_RANDOM does not play 2x2 games"):
        RECORDS.seat(pair, [dice_player, agents[1]])
