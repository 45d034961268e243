"""The public goods page's frames (pdbench.games.public_goods.view) against the stored turn lines
read independently: under strangers, with two groups re-drawn every round, who was with whom,
the punishment matrix (a pair never together is empty, not 0), each player's contributions and
earnings, and the measures the Metrics tab shows are the ones the aggregates store."""

from __future__ import annotations

from collections import Counter

import numpy as np

from pdbench.games.metric_rows import game_metric_rows
from pdbench.games.public_goods.policies import PUBLIC_GOODS_POLICIES
from pdbench.games.public_goods.rules import PublicGoods
from pdbench.games.public_goods.stored import read_rounds
from pdbench.games.public_goods.view import (
    MEASURES,
    match_options,
    punishment_frame,
    round_frame,
)
from pdbench.ui.game_views import game_view
from tests.public_goods_loop import play

GAME = PublicGoods(
    players=3, groups=2, rounds=3, talk=True, punish=True, matching="strangers", max_punish=4
)
KINDS = ("pgg_punisher", "pgg_free_rider", "pgg_antisocial_punisher", "pgg_full_contributor")


def strangers_match():
    """Two groups of three re-drawn every round, two punishers among free riders."""
    players = {
        seat: PUBLIC_GOODS_POLICIES[KINDS[index % len(KINDS)]]()
        for index, seat in enumerate(GAME.seats)
    }
    lines, _ = play(GAME, players, seed=5)
    return lines


def groups_by_round(lines):
    """Round -> the groups as stored on its contribute turn (read here, not by the page)."""
    return {
        t["round"]: [set(g) for g in t["revealed"]["groups"]]
        for t in lines
        if t["phase"] == "contribute"
    }


def test_the_matrix_sums_the_stored_punishment_and_leaves_pairs_never_together_empty():
    lines = strangers_match()
    names = {seat: f"{seat.upper()} · {seat}" for seat in GAME.seats}
    rounds = read_rounds(lines, match_options(lines, {}))
    stored = Counter()
    for turn in lines:
        for punisher, given in ((turn["revealed"] or {}).get("punished") or {}).items():
            for target, points in given.items():
                stored[(names[punisher], names[target])] += points
    assert sum(stored.values()) > 0  # the punishers punished someone
    together = Counter()
    for groups in groups_by_round(lines).values():
        for group in groups:
            together.update((names[p], names[t]) for p in group for t in group if p != t)
    matrix = punishment_frame(rounds, names)
    assert len(matrix) == 6 * 5  # every ordered pair of the six seats
    for row in matrix.itertuples():
        pair = (row.punisher, row.target)
        assert row.together == together[pair]
        if together[pair]:
            assert row.points == stored[pair], pair
        else:
            assert row.points is None or np.isnan(row.points), pair
    assert (matrix["together"] == 0).any()  # strangers: some pairs never met in three rounds
    assert (matrix["together"] < GAME.rounds).any() and (matrix["together"] > 0).any()


def test_one_rounds_matrix_and_rows_follow_that_rounds_groups_and_labels():
    lines = strangers_match()
    names = {seat: seat.upper() for seat in GAME.seats}
    rounds = read_rounds(lines, match_options(lines, {}))
    frame = round_frame(rounds, names)
    assert len(frame) == GAME.rounds * 6
    for number, groups in groups_by_round(lines).items():
        contribute = next(t for t in lines if t["round"] == number and t["phase"] == "contribute")
        closing = [t for t in lines if t["round"] == number][-1]["revealed"]
        mine = frame[frame["round"] == number].set_index("seat")
        for seat in GAME.seats:
            group = next(g for g in groups if seat in g)
            shared = set(mine.index[mine["group"] == mine.loc[seat, "group"]])
            assert shared == group
            assert mine.loc[seat, "label"] == contribute["revealed"]["labels"][seat]
            assert mine.loc[seat, "contribution"] == contribute["actions"][seat]["amount"]
            assert mine.loc[seat, "earnings"] == closing["earnings"][seat]
        matrix = punishment_frame(rounds, names, number).set_index(["punisher", "target"])
        for (punisher, target), row in matrix.iterrows():
            met = any(punisher.lower() in g and target.lower() in g for g in groups)
            assert row["together"] == int(met)
            given = closing.get("punished", {}).get(punisher.lower(), {}).get(target.lower(), 0)
            assert (row["points"] == given) if met else np.isnan(row["points"])


def test_a_match_cut_short_reads_the_conditions_options_over_the_defaults():
    assert match_options([], {"players": 5, "punish": True})["endowment"] == 20
    assert match_options([], {"players": 5})["players"] == 5


def test_the_metrics_tab_shows_measures_the_aggregates_store():
    assert {m.stem for m in MEASURES} <= {row.stem for row in game_metric_rows("public_goods")}
    assert MEASURES[0].stem == "contribution_share"
    slopes = [m for m in MEASURES if m.stem in ("contribution_slope", "end_game_drop")]
    assert {m.kind for m in slopes} == {"signed"}  # a falling share is negative: not cut at 0


def test_the_page_is_the_one_its_registry_entry_names_and_a_stored_id_is_never_a_module_path():
    page = game_view("public_goods")
    assert page is not None and page.__name__ == "pdbench.games.public_goods.view"
    for stored in ("no_such_game", "public_goods.view", "../public_goods", "", "base"):
        assert game_view(stored) is None, stored
