"""The donor game's rules (issue 45): the pairs (everyone donates once and receives once a
round, seeded), the payoffs (b to the recipient, c from the donor, exact), each norm's table,
the options' checks (b > c > 0, exit 2 naming the field), and determinism."""

from __future__ import annotations

import os
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from in_process import run_front_door
from public_goods_loop import play

from pdbench.games.donor_game.pairing import draw_recipients
from pdbench.games.donor_game.policies import DONOR_GAME_POLICIES
from pdbench.games.norms import NORMS, assess
from pdbench.games.registry import build_turn_game

ROOT = Path(__file__).resolve().parents[2]


def game(**options):
    return build_turn_game("donor_game", **{"players": 5, "rounds": 4, **options})


def test_every_round_everyone_donates_once_and_receives_once_drawn_from_the_seed():
    for players in (2, 3, 7, 10):
        drawn = [draw_recipients(seed, r, players) for seed in range(5) for r in range(1, 6)]
        for recipients in drawn:
            assert sorted(recipients) == list(range(players))  # each receives once
            assert all(recipients[d] != d for d in range(players))  # nobody donates to itself
        assert draw_recipients(3, 2, players) == draw_recipients(3, 2, players)
    # the rounds differ (a fresh draw each round), and so do the seeds
    rounds = {draw_recipients(1, r, 8) for r in range(1, 20)}
    assert len(rounds) > 10
    assert draw_recipients(1, 1, 8) != draw_recipients(2, 1, 8)


def test_a_gift_costs_the_donor_c_and_brings_the_recipient_b_exactly():
    rules = game(cost=0.1, benefit=0.3, endowment=10.0)
    state = rules.initial_state(7)
    gave = {seat: i % 2 == 0 for i, seat in enumerate(rules.seats)}  # a, c, e give
    after = rules.apply(state, {s: {"type": "donate", "give": g} for s, g in gave.items()})
    record = after.finished[-1]
    expected = [Fraction(0)] * 5
    for donor, recipient in enumerate(state.recipients):
        if gave[rules.seats[donor]]:
            expected[donor] -= Fraction(1, 10)
            expected[recipient] += Fraction(3, 10)
    assert list(record.earnings) == expected  # exact: 0.1 is 1/10, not a float
    assert [t - 10 for t in after.totals] == expected
    assert sum(record.earnings) == 3 * Fraction(2, 10)  # each gift creates b - c
    revealed = rules.revealed(state, after)
    assert revealed["recipients"] == {
        rules.seats[d]: rules.seats[r] for d, r in enumerate(state.recipients)
    }
    assert revealed["earnings"] == {s: float(e) for s, e in zip(rules.seats, expected, strict=True)}


@pytest.mark.parametrize(
    ("norm", "table"),
    [  # (gave, recipient good) -> good: gives to good, gives to bad, refuses good, refuses bad
        ("image_scoring", (True, True, False, False)),
        ("standing", (True, True, False, True)),
        ("stern_judging", (True, False, False, True)),
        ("shunning", (True, False, False, False)),
    ],
)
def test_each_norm_judges_a_donor_as_the_literature_defines_it(norm, table):
    cases = ((True, True), (True, False), (False, True), (False, False))
    assert tuple(assess(norm, gave, good) for gave, good in cases) == table


def test_the_norm_updates_every_donors_image_on_its_recipients_image_at_the_rounds_start():
    rules = game(norm="stern_judging", players=3)
    state = rules.initial_state(0)
    # round 1: everyone good; a refuses -> bad, b and c give -> good
    give = {"a": False, "b": True, "c": True}
    one = rules.apply(state, {s: {"type": "donate", "give": g} for s, g in give.items()})
    assert one.images == (0, 1, 1)
    # round 2: whoever donates to a (bad) and refuses is good, gives is bad
    actions = {s: {"type": "donate", "give": True} for s in rules.seats}
    two = rules.apply(one, actions)
    for donor, recipient in enumerate(one.recipients):
        assert two.images[donor] == int(one.images[recipient] == 1)


def test_benefit_not_above_cost_exits_2_naming_the_field(tmp_path):
    with pytest.raises(ValueError, match=r"^benefit must be above cost"):
        game(cost=2.0, benefit=2.0)
    with pytest.raises(ValueError, match=r"^cost must be above 0"):
        game(cost=0.0, benefit=2.0)
    with pytest.raises(ValueError, match=r"^norm must be one of image_scoring, standing"):
        game(norm="golden_rule")
    with pytest.raises(ValueError, match=r"^second_order needs recent_actions"):
        game(second_order=True, recent_actions=0)
    done = run_front_door(
        "cli",
        [
            "validate",
            "conf/config.yaml",
            "game=donor_game",
            "game.options.players=2",
            "agent_a=donor_discriminator",
            "agent_b=donor_never_give",
            "game.options.cost=3",
            "game.options.benefit=2",
        ],
        cwd=ROOT,
        env={**os.environ, "PDBENCH_CACHE_DIR": str(tmp_path / "cache")},
    )
    assert done.code == 2
    (line,) = done.stderr.strip().splitlines()
    assert "game: options.benefit: benefit must be above cost" in line
    assert "conf/config.yaml" in line and "Traceback" not in done.stderr


def test_whole_numbers_are_taken_for_the_number_options():
    assert game(cost=1, benefit=3, endowment=10).benefit == 3


def test_the_same_seed_and_players_give_the_same_rounds_and_another_seed_others():
    rules = game(players=6, rounds=6)
    kinds = sorted(DONOR_GAME_POLICIES)
    players = {
        seat: DONOR_GAME_POLICIES[kinds[i % len(kinds)]]() for i, seat in enumerate(rules.seats)
    }
    first, _ = play(rules, players, 11)
    again, _ = play(rules, players, 11)
    other, _ = play(rules, players, 12)
    assert first == again
    assert [t["revealed"]["recipients"] for t in first] != [
        t["revealed"]["recipients"] for t in other
    ]


def test_an_answer_that_is_no_donation_is_refused_with_a_reason_and_the_fallback_refuses():
    rules = game()
    state = rules.initial_state(0)
    assert rules.problem(state, "a", {"type": "donate", "give": "yes"}) == (
        "\"give\" must be true or false, got 'yes'"
    )
    assert "type must be" in rules.problem(state, "a", {"type": "contribute", "amount": 1})
    assert rules.fallback(state, "a", "invalid") == {"type": "donate", "give": False}
    assert rules.problem(state, "a", rules.fallback(state, "a", "timeout")) is None


def test_the_house_players_answer_as_documented():
    seen = {
        "phase": "donate",
        "recipient": {
            "label": "P2",
            "reputation": {
                "image_score": 0,
                "recent_actions": [
                    {"round_number": 1, "recipient": "P3", "gave": True},
                    {"round_number": 2, "recipient": "P1", "gave": False},
                ],
            },
        },
    }
    rng = np.random.default_rng(0)
    act = {name: factory().act(seen, rng)["give"] for name, factory in DONOR_GAME_POLICIES.items()}
    assert act["donor_always_give"] and not act["donor_never_give"]
    assert not act["donor_discriminator"]  # the image says bad
    assert act["donor_threshold"]  # one gift in two: 0.5 >= 0.5
    assert not DONOR_GAME_POLICIES["donor_threshold"](threshold=0.75).act(seen, rng)["give"]
    no_image = {
        **seen,
        "recipient": {
            "label": "P2",
            "reputation": {**seen["recipient"]["reputation"], "image_score": None},
        },
    }
    assert not DONOR_GAME_POLICIES["donor_discriminator"]().act(no_image, rng)[
        "give"
    ]  # last: refused
    draws = [DONOR_GAME_POLICIES["donor_random"](p=0.25).act(seen, rng)["give"] for _ in range(400)]
    assert 0.15 < np.mean(draws) < 0.35
    for norm in NORMS:
        assert game(norm=norm).judged_by == norm
    assert game(norm="none").judged_by is None
