"""Payoff matrices: the four outcomes, symmetric construction, and the named PD inequalities."""

import pytest

from pdbench.core.actions import C, D
from pdbench.core.errors import ConfigError
from pdbench.core.payoff import DEFAULT_PAYOFFS, PayoffMatrix


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [(C, C, (3.0, 3.0)), (C, D, (0.0, 5.0)), (D, C, (5.0, 0.0)), (D, D, (1.0, 1.0))],
)
def test_default_payoffs_for_every_outcome(a, b, expected):
    assert DEFAULT_PAYOFFS.payoffs(a, b) == expected


def test_default_payoffs_are_the_classic_3_0_5_1():
    assert (DEFAULT_PAYOFFS.R, DEFAULT_PAYOFFS.S, DEFAULT_PAYOFFS.T, DEFAULT_PAYOFFS.P) == (
        3.0,
        0.0,
        5.0,
        1.0,
    )
    assert DEFAULT_PAYOFFS.prisoners_dilemma_violations() == []


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [(C, C, (4.0, 4.0)), (C, D, (-1.0, 6.0)), (D, C, (6.0, -1.0)), (D, D, (0.5, 0.5))],
)
def test_custom_payoffs_for_every_outcome(a, b, expected):
    matrix = PayoffMatrix(reward=4, sucker=-1, temptation=6, punishment=0.5)
    assert matrix.payoffs(a, b) == expected


def test_payoffs_are_stored_as_floats():
    matrix = PayoffMatrix(reward=4, sucker=0, temptation=6, punishment=1)
    assert all(isinstance(x, float) for x in matrix.payoffs(C, D))
    assert matrix.as_outcomes() == {
        "CC": [4.0, 4.0],
        "CD": [0.0, 6.0],
        "DC": [6.0, 0.0],
        "DD": [1.0, 1.0],
    }


def test_from_outcomes_builds_the_matrix():
    matrix = PayoffMatrix.from_outcomes((4, 4), (-1, 6), (6, -1), (0.5, 0.5))
    assert matrix == PayoffMatrix(reward=4, sucker=-1, temptation=6, punishment=0.5)
    assert matrix.as_outcomes() == {
        "CC": [4.0, 4.0],
        "CD": [-1.0, 6.0],
        "DC": [6.0, -1.0],
        "DD": [0.5, 0.5],
    }


def test_from_outcomes_round_trips_as_outcomes():
    outcomes = DEFAULT_PAYOFFS.as_outcomes()
    rebuilt = PayoffMatrix.from_outcomes(
        tuple(outcomes["CC"]), tuple(outcomes["CD"]), tuple(outcomes["DC"]), tuple(outcomes["DD"])
    )
    assert rebuilt == DEFAULT_PAYOFFS


def test_mirrored_outcomes_make_a_symmetric_matrix():
    matrix = PayoffMatrix.from_outcomes((3, 3), (0, 5), (5, 0), (1, 1))
    assert matrix.is_symmetric
    assert matrix == DEFAULT_PAYOFFS


def test_asymmetric_outcomes_keep_each_side_its_own_payoffs():
    """Akata et al.'s battle of the sexes: J/J 10/7, F/F 7/10, a mismatch 0/0."""
    matrix = PayoffMatrix.from_outcomes((10, 7), (0, 0), (0, 0), (7, 10))
    assert not matrix.is_symmetric
    assert matrix.as_outcomes() == {
        "CC": [10.0, 7.0],
        "CD": [0.0, 0.0],
        "DC": [0.0, 0.0],
        "DD": [7.0, 10.0],
    }
    # From b's side b is the row player: its own payoffs first.
    seen_by_b = matrix.seen_by("b")
    assert seen_by_b.payoffs(C, C) == (7.0, 10.0)
    assert seen_by_b.payoffs(D, D) == (10.0, 7.0)
    assert seen_by_b.seen_by("b").as_outcomes() == matrix.as_outcomes()
    assert matrix.seen_by("a") is matrix


def test_an_asymmetric_pd_is_checked_for_both_sides():
    # a's payoffs are a PD; b's temptation (2) is below its reward (3).
    matrix = PayoffMatrix.from_outcomes((3, 3), (0, 2), (5, 0), (1, 1))
    broken = matrix.prisoners_dilemma_violations()
    assert broken == ["agent b: T > R (temptation 2 must exceed reward 3)"]
    with pytest.raises(ConfigError, match="agent b: T > R"):
        matrix.check_prisoners_dilemma()


@pytest.mark.parametrize(
    ("reward", "sucker", "temptation", "punishment", "inequality"),
    [
        (3, 0, 2.9, 1, "T > R"),  # temptation no better than reward
        (3, 0, 3, 1, "T > R"),  # equal is not enough
        (3, 0, 5, 3, "R > P"),
        (3, 1, 4, 1, "P > S"),
        (3, 0, 7, 1, "2R > T + S"),
        (3, 0, 6, 1, "2R > T + S"),  # 2R == T + S is not enough
    ],
)
def test_each_broken_pd_inequality_is_named(reward, sucker, temptation, punishment, inequality):
    matrix = PayoffMatrix(
        reward=reward, sucker=sucker, temptation=temptation, punishment=punishment
    )
    violations = matrix.prisoners_dilemma_violations()
    assert len(violations) == 1 and violations[0].startswith(inequality), violations
    with pytest.raises(ConfigError) as raised:
        matrix.check_prisoners_dilemma(file="exp.yaml")
    message = str(raised.value)
    assert inequality in message and "not a prisoner's dilemma" in message
    assert message.startswith("exp.yaml: game.payoffs: ")
    assert raised.value.field == "game.payoffs"


def test_several_broken_inequalities_are_all_named():
    # R=4 > T=3 breaks T > R and S=2.5 > P=2 breaks P > S; R > P and 2R=8 > T+S=5.5 hold.
    matrix = PayoffMatrix(reward=4, sucker=2.5, temptation=3, punishment=2)
    names = [v.split(" (")[0] for v in matrix.prisoners_dilemma_violations()]
    assert names == ["T > R", "P > S"]


def test_a_valid_pd_passes_the_check():
    PayoffMatrix(reward=4, sucker=-1, temptation=6, punishment=0.5).check_prisoners_dilemma()
