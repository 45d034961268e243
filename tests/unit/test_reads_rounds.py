"""Issue 43: whether a run's matches are read as 2x2 round records (analyze's fingerprints, a
tournament's matrix) or as turn lines (a turn game's measures, a population's encounters) is asked
of the run's games' entries (`reads_rounds`: how they are aggregated), no longer of the family
table; for every installed game the answer is the one the family gave."""

from __future__ import annotations

import pytest

from pdbench.analysis.metrics.aggregate import reads_rounds
from pdbench.games.registry import GAME_FAMILIES
from pdbench.storage.manifest import Matchup, RunManifest


def _manifest(*games: str) -> RunManifest:
    return RunManifest(
        run_id="r",
        status="incomplete",
        conditions=[f"c{n}" for n in range(len(games))],
        matchups={
            f"c{n}": Matchup(agent_a="x", agent_b="y", game=game, horizon_type="-")
            for n, game in enumerate(games)
        },
    )


@pytest.mark.parametrize("game", sorted(GAME_FAMILIES))
def test_a_runs_matches_are_rounds_exactly_for_the_2x2_games(game):
    assert reads_rounds(_manifest(game, game)) == (GAME_FAMILIES[game] == "matrix")


def test_a_run_of_no_condition_reads_no_rounds():
    assert not reads_rounds(_manifest())
