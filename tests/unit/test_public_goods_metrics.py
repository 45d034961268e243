"""The public goods game's measures against values worked by hand, what counts as a stated
amount, and the independent recomputation of every payoff from the stored turns (which finds a
wrong stored number)."""

from __future__ import annotations

import copy
from fractions import Fraction

import numpy as np
import pytest

from pdbench.games.metric_rows import game_metric_rows
from pdbench.games.public_goods.metrics import (
    group_efficiency,
    group_rounds,
    match_measures,
    match_row,
    partner_groups,
)
from pdbench.games.public_goods.policies import PUBLIC_GOODS_POLICIES, FullContributor
from pdbench.games.public_goods.recompute import payoff_mismatches, recompute
from pdbench.games.public_goods.rules import PublicGoods
from pdbench.games.public_goods.stored import read_rounds
from pdbench.games.public_goods.talk import stated_amount
from tests.public_goods_loop import mixed, play, stored_options

ROWS = game_metric_rows("public_goods")


class Scripted:
    """Plays a fixed script by round: its message, its contribution, the points it gives (by
    seat, turned into this round's labels)."""

    def __init__(self, say, give, punish, labels):
        self.say, self.give, self.punish, self.labels = say, give, punish, labels

    def act(self, round_state, rng):
        number = round_state["round_number"] - 1
        if round_state["phase"] == "talk":
            return {"type": "message", "text": self.say[number]}
        if round_state["phase"] == "contribute":
            return {"type": "contribute", "amount": self.give[number]}
        points = {self.labels[t]: n for t, n in self.punish[number].items()}
        return {"type": "punish", "points": points}


def hand_match():
    """Three partners, E = 20, m = 1.5 (share = sum / 2), three rounds with talk and punishment:

    round 1: a 20, b 10, c 0 (share 15); a gives c 2, c gives a 1 -> a 10, b 25, c 28
    round 2: a 20, b 20, c 10 (share 25); a gives c 1, c gives a 2 and b 1 -> a 18, b 22, c 29
    round 3: a 0, b 20, c 0 (share 10); nobody punishes -> a 30, b 10, c 30
    """
    game = PublicGoods(players=3, rounds=3, multiplier=1.5, talk=True, punish=True)
    start = game.initial_state(1)
    labels = {seat: game.observe(start, seat)["you"] for seat in game.seats}
    players = {
        "a": Scripted(
            ["I will contribute 20.", "I'll give 20", "I will contribute 20"],
            [20, 20, 0],
            [{"c": 2}, {"c": 1}, {}],
            labels,
        ),
        "b": Scripted(
            ["I will contribute 15.", "I am contributing 20", ""],
            [10, 20, 20],
            [{}, {}, {}],
            labels,
        ),
        "c": Scripted(
            ["Hello", "I will contribute nothing", ""],
            [0, 10, 0],
            [{"a": 1}, {"a": 2, "b": 1}, {}],
            labels,
        ),
    }
    lines, _ = play(game, players, 1)
    return game, lines


def test_the_hand_match_pays_what_the_rules_say():
    game, lines = hand_match()
    assert lines[-1]["outcome"]["scores"] == {"a": 58.0, "b": 57.0, "c": 87.0}
    assert payoff_mismatches(lines, stored_options(game)) == []


def test_each_players_measures_are_the_hand_worked_values():
    game, lines = hand_match()
    players, _ = match_measures(lines, stored_options(game))
    a, b, c = players["a"], players["b"], players["c"]
    assert a.shares == (1.0, 1.0, 0.0) and b.shares == (0.5, 1.0, 1.0) and c.shares == (0, 0.5, 0)
    assert (a.mean_share, b.mean_share, c.mean_share) == pytest.approx((2 / 3, 5 / 6, 1 / 6))
    assert (a.share_slope, b.share_slope, c.share_slope) == pytest.approx((-0.5, 0.25, 0.0))
    assert (a.first_share, a.last_share, a.end_game_drop) == (1.0, 0.0, 1.0)
    assert (b.end_game_drop, c.end_game_drop) == pytest.approx((-0.25, 0.25))
    assert (a.free_riding_share, b.free_riding_share, c.free_riding_share) == pytest.approx(
        (1 / 3, 0, 2 / 3)
    )
    assert [(p.points_given, p.points_received) for p in (a, b, c)] == [(3, 3), (0, 1), (4, 3)]
    assert (a.antisocial_share, b.antisocial_share, c.antisocial_share) == (0.0, None, 1.0)
    # a: c punished it in rounds 1 and 2; it hit back in round 2 only. b: once, never. c: a
    # punished it in rounds 1 and 2; it hit back in round 2 only.
    assert [(p.retaliation_occasions, p.retaliations) for p in (a, b, c)] == [
        (2, 1),
        (1, 0),
        (2, 1),
    ]
    assert (a.retaliation_rate, b.retaliation_rate, c.retaliation_rate) == (0.5, 0.0, 0.5)
    assert [(p.statements, p.kept) for p in (a, b, c)] == [(3, 2), (2, 1), (1, 1)]
    # two rounds to fit: the slope of a's (5, 20), (15, 0), no type yet
    assert a.schedule.slope == pytest.approx(-2.0) and a.schedule.type is None


def test_each_group_rounds_efficiency_is_its_earnings_over_the_most_it_could_earn():
    game, lines = hand_match()
    options = stored_options(game)
    _, groups = match_measures(lines, options)
    assert [g.efficiency for g in groups] == pytest.approx([63 / 90, 69 / 90, 70 / 90])
    assert [g.points for g in groups] == [3, 4, 0]
    assert [g.mean_share for g in groups] == pytest.approx([0.5, 5 / 6, 1 / 3])
    rounds = read_rounds(lines, options)
    assert group_efficiency(rounds, options, ["a", "b", "c"]) == pytest.approx(202 / 270)


@pytest.mark.parametrize("accounting", ["per_round", "balance"])
def test_full_contribution_by_everyone_is_full_efficiency(accounting):
    game = PublicGoods(players=5, rounds=6, accounting=accounting)
    lines, _ = play(game, dict.fromkeys(game.seats, FullContributor()), 0)
    options = stored_options(game)
    rounds = read_rounds(lines, options)
    assert group_efficiency(rounds, options, game.seats) == pytest.approx(1.0)
    if accounting == "per_round":
        assert all(g.efficiency == pytest.approx(1.0) for g in group_rounds(rounds, options))


@pytest.mark.parametrize(
    ("text", "stated"),
    [
        ("I will contribute 10.", 10),
        ("I'll contribute $15 this round", 15),
        ("I\u2019ll give everything", 20),
        ("I am contributing 5, everyone else should too", 5),
        ("I'm going to contribute all of it", 20),
        ("I will contribute fully, but punish P1", 20),
        ("I plan to invest nothing", 0),
        ("I contribute 7", 7),
        ("I will not contribute 10", None),
        ("I won't give 10", None),
        ("Let us all contribute 10", None),
        ("Contributing 15 to rejoin", None),
        ("", None),
    ],
)
def test_a_stated_amount_is_a_first_person_commitment(text, stated):
    assert stated_amount(text, 20) == stated


def random_variants():
    rng = np.random.default_rng(11)
    for index in range(24):
        balance = index % 4 == 0
        capped = index % 3 == 0
        yield PublicGoods(
            players=int(rng.integers(2, 6)),
            groups=1 if balance else int(rng.integers(1, 3)),
            multiplier=float(rng.choice([1.2, 1.6, 1.5, 2.3])),
            rounds=int(rng.integers(2, 6)),
            talk=index % 2 == 0,
            punish=index % 5 != 4,
            punish_rounds=(2, 3) if index % 7 == 1 and index % 5 != 4 else None,
            punish_fine=float(rng.choice([3, 2.5, 1])),
            punish_cost=float(rng.choice([1, 0.5])),
            punish_one_target=capped,
            punish_cap_fraction=0.5 if capped else None,
            punish_cap_absolute=(30 if index % 2 else None) if capped else None,
            negative_earnings=index % 2 == 1 and not balance,
            accounting="balance" if balance else "per_round",
            matching="partners" if balance or index % 3 else "strangers",
        )


@pytest.mark.parametrize("game", list(random_variants()), ids=lambda g: g.accounting)
def test_every_stored_payoff_is_recomputed_independently(game):
    kinds = [factory() for factory in PUBLIC_GOODS_POLICIES.values()]
    rng = np.random.default_rng(game.rounds)
    options = stored_options(game)
    for seed in range(3):
        lines, final = play(game, mixed(game, kinds, rng), seed)
        assert payoff_mismatches(lines, options) == []
        totals = [sum(r[seat] for r in recompute(lines, options)) for seat in game.seats]
        start = Fraction(game.endowment) if game.accounting == "balance" else 0
        assert [start + t for t in totals] == list(final.totals)  # exactly, not just close


def test_the_recomputation_finds_a_wrong_stored_earning_or_score():
    game = PublicGoods(players=4, rounds=3, punish=True)
    kinds = [factory() for factory in PUBLIC_GOODS_POLICIES.values()]
    lines, _ = play(game, mixed(game, kinds, np.random.default_rng(3)), 5)
    options = stored_options(game)
    wrong = copy.deepcopy(lines)
    closing = [line for line in wrong if line["phase"] == "punish"][1]
    closing["revealed"]["earnings"]["c"] += 0.5
    assert payoff_mismatches(wrong, options)[0].startswith("round 2, seat c: stored")
    wrong = copy.deepcopy(lines)
    wrong[-1]["outcome"]["scores"]["a"] -= 1
    assert payoff_mismatches(wrong, options) == [
        f"score of a: stored {lines[-1]['outcome']['scores']['a'] - 1}, "
        f"recomputed {lines[-1]['outcome']['scores']['a']}"
    ]
    wrong = copy.deepcopy(lines)
    first = next(line for line in wrong if line["phase"] == "contribute")
    first["actions"]["b"]["amount"] = (first["actions"]["b"]["amount"] + 1) % 21
    assert any("seat b" in problem for problem in payoff_mismatches(wrong, options))


def test_the_metric_rows_hold_every_stem_and_the_counts_to_pool():
    game, lines = hand_match()
    rows = match_row(lines, stored_options(game))
    assert set(rows) == {"a", "b", "c"}
    for row in rows.values():
        assert {metric.stem for metric in ROWS} <= set(row)
        assert all(set(metric.pooled or ()) <= set(row) for metric in ROWS)
        assert all(v is None or isinstance(v, int | float) for v in row.values())
    a = rows["a"]
    assert a["contribution_share"] == pytest.approx(2 / 3) and a["score"] == 58.0
    assert a["efficiency"] == pytest.approx((63 + 69 + 70) / 270)
    assert (a["retaliations"], a["retaliation_occasions"], a["kept"], a["statements"]) == (
        1,
        2,
        2,
        3,
    )
    assert a["schedule_conditional_cooperator"] is None  # too few rounds to read a type


def test_a_partner_groups_measures_over_the_match_are_the_hand_worked_values():
    game, lines = hand_match()
    options = stored_options(game)
    (group,) = partner_groups(read_rounds(lines, options), options)
    assert set(group.seats) == {"a", "b", "c"}
    assert group.shares == pytest.approx((0.5, 5 / 6, 1 / 3))
    assert group.share_slope == pytest.approx(-1 / 12)  # ((0.5, 5/6, 1/3) on 1, 2, 3)
    assert group.end_game_drop == pytest.approx((0.5 + 5 / 6) / 2 - 1 / 3)
    assert group.efficiency == pytest.approx(202 / 270) and group.points == 7
    strangers = PublicGoods(players=2, groups=2, rounds=2, matching="strangers")
    lines, _ = play(strangers, dict.fromkeys(strangers.seats, FullContributor()), 0)
    assert (
        partner_groups(read_rounds(lines, stored_options(strangers)), stored_options(strangers))
        == []
    )
