"""The glue between stored play and the analyses: selecting matches out of the laid-end-to-end
columns, the families of comparisons, and a tournament whose matrix has a hole."""

from __future__ import annotations

import numpy as np
import pytest

from pdbench.analysis.metrics.columns import StoredMatches
from pdbench.analysis.per_run.comparisons import choose_family
from pdbench.analysis.per_run.play import select_matches, side_batch
from pdbench.analysis.per_run.tournament_table import (
    TournamentOptions,
    even_counts,
    tournament_table,
)
from pdbench.analysis.tournaments.results import TournamentMatches
from pdbench.core.errors import PdbenchError


def three_matches() -> StoredMatches:
    """Matches of 2, 3 and 1 rounds: a plays CD | CCD | D, b plays DD | CDC | C."""
    a, b = "CDCCDD", "DDCDCC"
    return StoredMatches(
        keys=[("x", 0), ("y", 0), ("x", 1)],
        labels=[("A", "B", "pd", "fixed")] * 3,
        starts=np.array([0, 2, 5]),
        coop_a=np.array([m == "C" for m in a]),
        coop_b=np.array([m == "C" for m in b]),
        payoff_a=np.arange(6, dtype=float),
        payoff_b=np.zeros(6),
        flags={"errors_a": np.array([0, 0, 0, 1, 0, 0])},
    )


def test_select_matches_lays_the_chosen_matches_end_to_end():
    chosen = select_matches(three_matches(), np.array([2, 0]))
    assert chosen.keys == [("x", 1), ("x", 0)]
    assert chosen.starts.tolist() == [0, 1]
    assert chosen.payoff_a.tolist() == [5.0, 0.0, 1.0]
    assert chosen.flags["errors_a"].tolist() == [0, 0, 0]
    batch = side_batch(select_matches(three_matches(), np.array([1])), "b")
    assert batch.lengths.tolist() == [3]
    assert batch.own[0].tolist() == [True, False, True]  # b's moves, seen from b
    assert batch.opponent[0].tolist() == [True, True, False]


GRID = {
    "coop_alld": {"persona": "coop", "opponent": "alld"},
    "coop_tft": {"persona": "coop", "opponent": "tft"},
    "mean_alld": {"persona": "mean", "opponent": "alld"},
    "mean_tft": {"persona": "mean", "opponent": "tft"},
    "sly_tft": {"persona": "sly", "opponent": "tft"},
}


def test_families_of_comparisons():
    names = list(GRID)
    assert len(choose_family(names, GRID, reference=None, factor=None).pairs) == 10
    against = choose_family(names, GRID, reference="coop_tft", factor=None)
    assert against.pairs[0] == ("coop_tft", "coop_alld") and len(against.pairs) == 4
    by_persona = choose_family(names, GRID, reference=None, factor="persona")
    assert by_persona.description == "persona against persona=coop"
    assert by_persona.pairs == (
        ("coop_alld", "mean_alld"),
        ("coop_tft", "mean_tft"),
        ("coop_tft", "sly_tft"),
    )
    by_opponent = choose_family(names, GRID, reference="tft", factor="opponent")
    assert by_opponent.pairs == (("coop_tft", "coop_alld"), ("mean_tft", "mean_alld"))
    assert by_opponent.skipped == ()  # sly_tft is its group's reference, with no one to meet
    against_sly = choose_family(names, GRID, reference="sly", factor="persona")
    assert against_sly.pairs == (("sly_tft", "coop_tft"), ("sly_tft", "mean_tft"))
    assert against_sly.skipped == (
        "coop_alld, mean_alld: no condition with persona=sly to compare with",
    )
    with pytest.raises(PdbenchError, match='unknown level of persona "nice"'):
        choose_family(names, GRID, reference="nice", factor="persona")
    with pytest.raises(PdbenchError, match="unknown reference condition"):
        choose_family(names, GRID, reference="nope", factor=None)


def test_even_counts_split_a_population_as_evenly_as_possible():
    assert even_counts(12, 6).tolist() == [2] * 6
    assert even_counts(10, 3).tolist() == [4, 3, 3]


def test_a_tournament_without_self_play_has_no_dynamics_and_says_why():
    matches = TournamentMatches(
        player_a=np.array(["tft", "tft", "alld"]),
        player_b=np.array(["alld", "allc", "allc"]),
        replicate=np.zeros(3, dtype=np.int64),
        score_a=np.array([0.9, 3.0, 5.0]),
        score_b=np.array([1.1, 3.0, 0.0]),
        cooperation_a=np.array([0.1, 1.0, 0.0]),
        cooperation_b=np.array([0.0, 1.0, 1.0]),
    )
    table, summary = tournament_table(matches, ["tft", "alld", "allc"], TournamentOptions())
    assert summary.ranked_players == ["alld", "tft", "allc"]
    assert set(table["table"]) == {"payoff", "ranking", "note"}
    (note,) = table.loc[table["table"] == "note", "note"]
    assert "tft vs tft" in note and "self_play: true" in note
