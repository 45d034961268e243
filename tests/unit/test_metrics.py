"""Match metrics and confidence intervals, checked against numbers worked out by hand."""

import math

import numpy as np
import pytest
from helpers import as_actions, play
from reference_metrics import match_metrics, time_to_collapse

from pdbench.analysis.stats.student_t import mean_ci
from pdbench.core.actions import C, D
from pdbench.core.rng import make_rng
from pdbench.games.tables import GAMES
from pdbench.strategies import make_policy

PD = GAMES["pd"]
# Student t, 97.5% quantile, 2 degrees of freedom, as usually quoted; the closed form for df=2,
# (2u - 1) / sqrt(2u(1 - u)) at u = 0.975, gives 4.30265272974946 (agrees to 1.6e-10).
T_975_DF2 = 4.302652729911275


def metrics_of(moves_a: str, moves_b: str, **kwargs):
    """Metrics of a PD match given as two move strings, e.g. "CDD" and "DDD"."""
    a, b = as_actions(moves_a), as_actions(moves_b)
    payoffs = [PD.payoffs.payoffs(x, y) for x, y in zip(a, b, strict=True)]
    return match_metrics(
        np.array([x is C for x in a], dtype=bool),
        np.array([y is C for y in b], dtype=bool),
        np.array([p[0] for p in payoffs], dtype=float),
        np.array([p[1] for p in payoffs], dtype=float),
        **kwargs,
    )


def metrics_of_match(policy_a: str, policy_b: str, n_rounds: int, seed_a=None, **kwargs):
    result = play(make_policy(policy_a, PD), make_policy(policy_b, PD), n_rounds, seed=seed_a)
    moves_a = "".join(r.played.action_a for r in result.rounds)
    moves_b = "".join(r.played.action_b for r in result.rounds)
    return moves_a, moves_b, metrics_of(moves_a, moves_b, **kwargs)


# --- policy matches, by hand -------------------------------------------------------------------


def test_tft_vs_alld():
    moves_a, moves_b, m = metrics_of_match("tft", "alld", 10, collapse_k=3)
    assert (moves_a, moves_b) == ("C" + "D" * 9, "D" * 10)
    assert m.n_rounds == 10
    # TFT: S=0 once, then P=1 nine times; ALLD: T=5 once, then P=1 nine times.
    assert (m.total_payoff_a, m.total_payoff_b) == (9.0, 14.0)
    assert (m.exploitability_payoff_gap_a, m.exploitability_payoff_gap_b) == (5.0, -5.0)
    assert (m.cooperation_rate_a, m.cooperation_rate_b, m.cooperation_rate) == (0.1, 0.0, 0.05)
    # ALLD defects before every round 2..10 (9 provocations); TFT answers each with D.
    assert (m.retaliation_rate_a, m.forgiveness_rate_a) == (1.0, 0.0)
    # TFT defects in rounds 2..9, i.e. before rounds 3..10 (8 provocations); ALLD always D.
    assert (m.retaliation_rate_b, m.forgiveness_rate_b) == (1.0, 0.0)
    # Rounds 1-3 hold 1 C out of 6 actions: 1/6 <= 0.2, so collapse starts at round 1.
    assert m.time_to_collapse == 1
    assert m.cooperation_rate_over_time == [0.5] + [0.0] * 9


def test_wsls_vs_alld():
    moves_a, moves_b, m = metrics_of_match("wsls", "alld", 10, collapse_k=2)
    assert (moves_a, moves_b) == ("CD" * 5, "D" * 10)
    # WSLS: S=0 in its five C rounds, P=1 in its five D rounds; ALLD: 5 * T + 5 * P.
    assert (m.total_payoff_a, m.total_payoff_b) == (5.0, 30.0)
    assert (m.exploitability_payoff_gap_a, m.exploitability_payoff_gap_b) == (25.0, -25.0)
    assert (m.cooperation_rate_a, m.cooperation_rate_b, m.cooperation_rate) == (0.5, 0.0, 0.25)
    # 9 provocations (rounds 2..10): D in rounds 2, 4, 6, 8, 10, C in rounds 3, 5, 7, 9.
    assert m.retaliation_rate_a == pytest.approx(5 / 9)
    assert m.forgiveness_rate_a == pytest.approx(4 / 9)
    # WSLS defects in rounds 2, 4, 6, 8 before a next round (10 is the last): 4 provocations.
    assert (m.retaliation_rate_b, m.forgiveness_rate_b) == (1.0, 0.0)
    # Every 2-round window holds 1 C of 4 actions: 0.25 > 0.2, never collapsed.
    assert m.time_to_collapse is None
    assert m.cooperation_rate_over_time == [0.5, 0.0] * 5


def test_grim_vs_tft_never_defects():
    moves_a, moves_b, m = metrics_of_match("grim", "tft", 12)
    assert (moves_a, moves_b) == ("C" * 12, "C" * 12)
    assert (m.total_payoff_a, m.total_payoff_b) == (36.0, 36.0)
    assert (m.exploitability_payoff_gap_a, m.exploitability_payoff_gap_b) == (0.0, 0.0)
    assert (m.cooperation_rate_a, m.cooperation_rate_b, m.cooperation_rate) == (1.0, 1.0, 1.0)
    # Nobody was ever provoked: the rates are undefined, not 0.
    assert m.retaliation_rate_a is None and m.forgiveness_rate_a is None
    assert m.retaliation_rate_b is None and m.forgiveness_rate_b is None
    assert m.time_to_collapse is None
    assert m.cooperation_rate_over_time == [1.0] * 12


def test_gtft_vs_alld_with_a_fixed_seed():
    seed, n = 2024, 40
    moves_a, moves_b, m = metrics_of_match("gtft", "alld", n, seed_a=seed, collapse_k=5)
    # GTFT's round t uses draw t of its stream; after ALLD's D it forgives when draw < 1/3.
    draws = make_rng(seed).random(n)
    assert moves_a == "C" + "".join("C" if d < 1 / 3 else "D" for d in draws[1:])
    assert moves_b == "D" * n
    forgiven = moves_a[1:].count("C")
    assert 0 < forgiven < n - 1  # the seed exercises both answers
    c_a = moves_a.count("C")
    assert m.total_payoff_a == 0.0 * c_a + 1.0 * (n - c_a)
    assert m.total_payoff_b == 5.0 * c_a + 1.0 * (n - c_a)
    assert m.exploitability_payoff_gap_a == m.total_payoff_b - m.total_payoff_a == 5.0 * c_a
    assert m.cooperation_rate_a == c_a / n
    assert m.cooperation_rate == c_a / (2 * n)
    assert m.forgiveness_rate_a == forgiven / (n - 1)
    assert m.retaliation_rate_a == (n - 1 - forgiven) / (n - 1)
    # ALLD was provoked after every GTFT D that has a next round.
    provoked_b = moves_a[:-1].count("D")
    assert (m.retaliation_rate_b, m.forgiveness_rate_b) == (
        (1.0, 0.0) if provoked_b else (None, None)
    )
    first_collapse = next(
        (t + 1 for t in range(n - 5 + 1) if moves_a[t : t + 5].count("C") / 10 <= 0.2), None
    )
    assert m.time_to_collapse == first_collapse
    assert m.cooperation_rate_over_time == [0.5 if x == "C" else 0.0 for x in moves_a]


# --- edge cases --------------------------------------------------------------------------------


def test_an_empty_match_has_no_rates():
    m = metrics_of("", "")
    assert m.n_rounds == 0
    assert (m.total_payoff_a, m.total_payoff_b) == (0.0, 0.0)
    assert m.cooperation_rate_a is None and m.cooperation_rate is None
    assert m.retaliation_rate_a is None and m.forgiveness_rate_b is None
    assert m.time_to_collapse is None
    assert m.cooperation_rate_over_time == []


@pytest.mark.parametrize(("a", "b"), [("C", "C"), ("C", "D"), ("D", "C"), ("D", "D")])
def test_a_one_round_match(a, b):
    m = metrics_of(a, b, collapse_k=1)
    assert m.n_rounds == 1
    assert (m.total_payoff_a, m.total_payoff_b) == PD.payoffs.payoffs(
        C if a == "C" else D, C if b == "C" else D
    )
    assert m.cooperation_rate_a == (1.0 if a == "C" else 0.0)
    assert m.cooperation_rate_b == (1.0 if b == "C" else 0.0)
    # There is no round after the first, so nobody can respond to anything.
    for rate in (
        m.retaliation_rate_a,
        m.retaliation_rate_b,
        m.forgiveness_rate_a,
        m.forgiveness_rate_b,
    ):
        assert rate is None
    assert m.time_to_collapse == (1 if a + b == "DD" else None)


def test_no_defections_gives_none_never_zero():
    m = metrics_of("CCCC", "CCCC")
    rates = [m.retaliation_rate_a, m.retaliation_rate_b, m.forgiveness_rate_a, m.forgiveness_rate_b]
    assert rates == [None, None, None, None]


def test_zero_denominator_on_one_side_only():
    # b defects only in round 2; a never defects.
    m = metrics_of("CCCC", "CDCC")
    # a was provoked once (before round 3) and forgave.
    assert (m.retaliation_rate_a, m.forgiveness_rate_a) == (0.0, 1.0)
    # a never defected, so b's response rates are undefined.
    assert (m.retaliation_rate_b, m.forgiveness_rate_b) == (None, None)


def test_a_defection_in_the_last_round_provokes_nothing():
    m = metrics_of("CCCC", "CCCD")
    assert (m.retaliation_rate_a, m.forgiveness_rate_a) == (None, None)
    assert m.cooperation_rate_b == 0.75


def test_retaliation_counts_the_response_not_the_provocation():
    # b defects in rounds 1, 2, 4; a answers D, C at rounds 2, 3 and D at round 5.
    m = metrics_of("CDCCD", "DDCDC")
    assert m.retaliation_rate_a == pytest.approx(2 / 3)
    assert m.forgiveness_rate_a == pytest.approx(1 / 3)
    # a defects in round 2 (answered at 3 with C); round 5 is the last.
    assert (m.retaliation_rate_b, m.forgiveness_rate_b) == (0.0, 1.0)


@pytest.mark.parametrize(
    ("moves", "k", "expected"),
    [
        ("DDDCCCCC", 3, 1),  # collapsed from the first round
        ("CCCCCDDD", 3, 6),  # at the last possible start, n - k + 1 = 6
        ("CCCCCCDD", 3, None),  # the last window still holds C: never
        ("CCCCCCCC", 3, None),
        ("DD", 3, None),  # n < k: no window at all, even though every move is D
        ("DDD", 3, 1),  # n == k: exactly one window
    ],
)
def test_time_to_collapse(moves, k, expected):
    assert metrics_of(moves, moves, collapse_k=k).time_to_collapse == expected


def test_collapse_at_exactly_the_threshold_counts():
    # Window of k=5 rounds, 10 actions; one C makes a share of exactly 0.1.
    moves_a, moves_b = "CCCDDDDDD", "CCCCDDDDD"
    assert metrics_of(moves_a, moves_b, collapse_k=5, collapse_threshold=0.1).time_to_collapse == 4
    # Just under that share, round 4's window no longer counts; round 5's (no C at all) does.
    assert metrics_of(moves_a, moves_b, collapse_k=5, collapse_threshold=0.09).time_to_collapse == 5


@pytest.mark.parametrize("threshold", [0.2, 0.3, 0.6, 0.7])
def test_collapse_threshold_boundary_with_awkward_floats(threshold):
    # k=5 windows have 10 actions, k=10 windows 20: shares 0.2, 0.3, 0.6, 0.7 are exact counts
    # (2, 3, 6, 7 of 10) that float multiplication may round just below.
    n_c = round(threshold * 10)
    coop_a = np.array([True] * n_c + [False] * (5 - n_c) if n_c <= 5 else [True] * 5)
    coop_b = np.array([False] * 5 if n_c <= 5 else [True] * (n_c - 5) + [False] * (10 - n_c))
    assert coop_a.sum() + coop_b.sum() == n_c
    assert time_to_collapse(coop_a, coop_b, k=5, threshold=threshold) == 1


def test_cooperation_rate_over_time_is_per_round():
    m = metrics_of("CCDD", "CDCD")
    assert m.cooperation_rate_over_time == [1.0, 0.5, 0.5, 0.0]


def test_as_dict_has_every_field():
    d = metrics_of("CD", "DD").as_dict()
    assert d["n_rounds"] == 2 and d["cooperation_rate_over_time"] == [0.5, 0.0]
    assert d["retaliation_rate_a"] == 1.0 and d["forgiveness_rate_a"] == 0.0


# --- mean_ci -----------------------------------------------------------------------------------


def test_mean_ci_of_nothing():
    empty = {"mean": None, "std": None, "n": 0, "ci_low": None, "ci_high": None}
    assert mean_ci([]) == empty
    assert mean_ci([None, float("nan")]) == empty


def test_mean_ci_of_one_value_has_no_interval():
    assert mean_ci([0.4]) == {"mean": 0.4, "std": None, "n": 1, "ci_low": None, "ci_high": None}
    assert mean_ci([None, 0.4]) == mean_ci([0.4])


def test_mean_ci_of_three_values_uses_the_t_quantile():
    summary = mean_ci([1.0, 2.0, 3.0])
    # Mean 2, sample std 1 (deviations -1, 0, 1 over n - 1 = 2), half-width t * 1 / sqrt(3).
    u = 0.975
    exact_t = (2 * u - 1) / math.sqrt(2 * u * (1 - u))
    assert exact_t == pytest.approx(T_975_DF2, abs=1e-9)
    half = exact_t / math.sqrt(3)
    assert summary["n"] == 3
    assert summary["mean"] == pytest.approx(2.0)
    assert summary["std"] == pytest.approx(1.0)
    assert summary["ci_low"] == pytest.approx(2.0 - half, rel=1e-12)
    assert summary["ci_high"] == pytest.approx(2.0 + half, rel=1e-12)


def test_mean_ci_skips_undefined_values():
    assert mean_ci([1.0, None, 2.0, float("nan"), 3.0]) == mean_ci([1.0, 2.0, 3.0])


def test_mean_ci_of_equal_values_is_a_point():
    summary = mean_ci([0.5, 0.5, 0.5])
    assert (summary["mean"], summary["std"], summary["ci_low"], summary["ci_high"]) == (
        0.5,
        0.0,
        0.5,
        0.5,
    )
