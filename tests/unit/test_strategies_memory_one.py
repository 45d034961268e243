"""RANDOM(p) and the generic memory-one policy: their moves follow the n-th draw of their own seeded
stream in round n, so expected moves can be written from the same draws; with probabilities 0
and 1 they are the deterministic policies they name."""

import itertools

import numpy as np
import pytest
from helpers import ScriptedAgent, as_actions, play, versus_test

from pdbench.core.actions import C, D
from pdbench.core.rng import make_rng
from pdbench.games.tables import GAMES
from pdbench.strategies import make_policy

PD = GAMES["pd"]
MIXED = "CDDCCDCDDDCC"

# --- RANDOM(p) -------------------------------------------------------------------------------


def test_random_round_n_uses_the_nth_draw():
    seed, prob = 77, 0.3
    draws = make_rng(seed).random(len(MIXED))
    expected = [C if draw < prob else D for draw in draws]
    assert C in expected and D in expected
    versus_test(make_policy("random", PD, {"cooperate_prob": prob}), MIXED, expected, seed=seed)


@pytest.mark.parametrize(("prob", "expected"), [(0.0, "D"), (1.0, "C")])
def test_random_0_is_alld_and_random_1_is_allc(prob, expected):
    policy = make_policy("random", PD, {"cooperate_prob": prob})
    versus_test(policy, MIXED, expected * len(MIXED), seed=3)


@pytest.mark.parametrize("prob", [0.1, 0.5, 0.8])
def test_random_cooperates_as_often_as_its_probability(prob):
    # 5000 rounds: standard error at most 0.007 against a tolerance of 0.025.
    result = play(
        make_policy("random", PD, {"cooperate_prob": prob}), make_policy("alld", PD), 5000, seed=42
    )
    cooperated = np.mean([r.played.action_a is C for r in result.rounds])
    assert cooperated == pytest.approx(prob, abs=0.025)


def test_random_ignores_the_opponent():
    moves = [
        [
            r.played.action_a
            for r in play(make_policy("random", PD), ScriptedAgent(script), 12, seed=9).rounds
        ]
        for script in ("C" * 12, "D" * 12, MIXED)
    ]
    assert moves[0] == moves[1] == moves[2]


# --- memory-one ------------------------------------------------------------------------------


def memory_one(*after, initial=1.0):
    names = ("after_cc", "after_cd", "after_dc", "after_dd")
    return make_policy(
        "memory_one", PD, {**dict(zip(names, after, strict=True)), "initial": initial}
    )


@pytest.mark.parametrize(
    ("vector", "initial", "expected"),
    [
        # The special cases Axelrod's MemoryOnePlayer docstring lists, against MIXED.
        ((1, 0, 1, 0), 1.0, "C" + MIXED[:-1]),  # TFT copies the opponent
        ((1, 1, 1, 1), 1.0, "C" * 12),  # ALLC
        ((0, 0, 0, 0), 0.0, "D" * 12),  # ALLD
        ((0, 0, 1, 1), 1.0, "CD" * 6),  # Alternator
    ],
)
def test_memory_one_special_cases(vector, initial, expected):
    versus_test(memory_one(*vector, initial=initial), MIXED, expected, seed=1)


def test_memory_one_default_is_wsls():
    # Axelrod's default four-vector (1, 0, 0, 1): cooperate after CC and DD, defect after CD, DC.
    versus_test(make_policy("memory_one", PD), "DDDDDD", "CDCDCD")
    versus_test(make_policy("wsls", PD), "DDDDDD", "CDCDCD")


def test_memory_one_uses_the_probability_of_the_last_outcome_own_move_first():
    seed = 2024
    vector = {"CC": 0.9, "CD": 0.2, "DC": 0.6, "DD": 0.4}
    opponent = as_actions("CDDCCDCDDDCCDCDDCDCC")
    draws = make_rng(seed).random(len(opponent))
    expected = [C if draws[0] < 0.5 else D]
    for t in range(1, len(opponent)):
        outcome = f"{expected[t - 1].value}{opponent[t - 1].value}"
        expected.append(C if draws[t] < vector[outcome] else D)
    assert len(set(expected)) == 2
    policy = memory_one(*vector.values(), initial=0.5)
    versus_test(policy, opponent, expected, seed=seed)


def test_memory_one_cooperation_rates_match_the_vector():
    # Against RANDOM(0.5) every outcome occurs often; the share of C after each matches the
    # vector within sampling error (thousands of rounds per outcome, tolerance 0.04).
    vector = (0.9, 0.2, 0.6, 0.4)
    result = play(memory_one(*vector), make_policy("random", PD), 12_000, seed=5, opponent_seed=6)
    rounds = [r.played for r in result.rounds]
    for index, outcome in enumerate(("CC", "CD", "DC", "DD")):
        after = [
            now.action_a is C
            for before, now in itertools.pairwise(rounds)
            if f"{before.action_a.value}{before.action_b.value}" == outcome
        ]
        assert len(after) > 1000
        assert np.mean(after) == pytest.approx(vector[index], abs=0.04), outcome
