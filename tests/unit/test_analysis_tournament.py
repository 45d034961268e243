"""Round-robin summaries: the classic policies' payoff matrix and ranking from theory, with and
without self-play, and Axelrod's conventions (median over replicates, stable ties, wins)."""

from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np
import pytest
from test_analysis_play import PD

from pdbench.analysis.tournaments.results import TournamentMatches, summarise_tournament
from pdbench.strategies import LastRounds, make_policy

PLAYERS = ["allc", "alld", "tft", "grim", "wsls"]


def _play(name_a: str, name_b: str, n_rounds: int) -> tuple[np.ndarray, np.ndarray]:
    """One match of two policies (batch form, one match): each side's moves (True = C)."""
    a, b = make_policy(name_a, PD), make_policy(name_b, PD)
    a.reset_batch([0], n_rounds)
    b.reset_batch([1], n_rounds)
    p = PD.payoffs
    table = np.array([[p.R, p.S], [p.T, p.P]])
    moves_a, moves_b = np.empty(n_rounds, bool), np.empty(n_rounds, bool)
    last_a = last_b = None
    for t in range(n_rounds):
        moves_a[t] = a.act_batch(t + 1, last_a)[0]
        moves_b[t] = b.act_batch(t + 1, last_b)[0]
        pay_a = table[int(not moves_a[t]), int(not moves_b[t])]
        pay_b = table[int(not moves_b[t]), int(not moves_a[t])]
        last_a = LastRounds(moves_a[t : t + 1], moves_b[t : t + 1], np.array([pay_a]))
        last_b = LastRounds(moves_b[t : t + 1], moves_a[t : t + 1], np.array([pay_b]))
    return moves_a, moves_b


def _round_robin(pairs, n_rounds=200, replicates=3) -> TournamentMatches:
    p = PD.payoffs
    table = np.array([[p.R, p.S], [p.T, p.P]])
    rows = []
    for replicate in range(replicates):
        for name_a, name_b in pairs:
            a, b = _play(name_a, name_b, n_rounds)
            score_a = table[(~a).astype(int), (~b).astype(int)].mean()
            score_b = table[(~b).astype(int), (~a).astype(int)].mean()
            rows.append((name_a, name_b, replicate, score_a, score_b, a.mean(), b.mean(), n_rounds))
    columns = list(zip(*rows, strict=True))
    return TournamentMatches(*(np.array(column) for column in columns))


UNORDERED_WITH_SELF = list(itertools.combinations_with_replacement(PLAYERS, 2))

# Mean payoff per round over 200 rounds, row against column, from the rules: ALLD gets T once
# then P against TFT and GRIM (1.02, they 0.995); WSLS alternates C, D against ALLD (0.5 vs 3).
THEORY = np.array(
    [
        [3, 0, 3, 3, 3],
        [5, 1, 1.02, 1.02, 3],
        [3, 0.995, 3, 3, 3],
        [3, 0.995, 3, 3, 3],
        [3, 0.5, 3, 3, 3],
    ]
)


def test_classic_round_robin_matches_theory_without_self_play():
    summary = summarise_tournament(_round_robin(UNORDERED_WITH_SELF), PLAYERS)
    np.testing.assert_allclose(summary.payoff_matrix, THEORY)
    assert (summary.payoff_n == 3).all()
    # Deterministic play: every replicate agrees, so the interval collapses onto the mean.
    np.testing.assert_allclose(summary.payoff_ci_low, THEORY)
    off_diagonal = ~np.eye(5, dtype=bool)
    expected_scores = (THEORY * off_diagonal).sum(axis=1) / 4
    np.testing.assert_allclose(summary.median_score, expected_scores)
    np.testing.assert_allclose(summary.mean_score, expected_scores)
    # TFT and GRIM tie at 2.49875 and keep their player order (Axelrod's stable sort).
    assert summary.ranked_players == ["alld", "tft", "grim", "wsls", "allc"]
    assert summary.median_wins.tolist() == [0, 4, 0, 0, 0]
    np.testing.assert_allclose(summary.cooperation_rating, [1, 0, 601 / 800, 601 / 800, 700 / 800])
    assert summary.ranking_rows()[0] == pytest.approx(
        {
            "rank": 1,
            "player": "alld",
            "median_score": 2.51,
            "mean_score": 2.51,
            "mean_score_ci_low": 2.51,
            "mean_score_ci_high": 2.51,
            "median_wins": 4.0,
            "cooperation_rating": 0.0,
        }
    )


def test_self_play_counts_once_per_match_when_asked_for():
    summary = summarise_tournament(_round_robin(UNORDERED_WITH_SELF), PLAYERS, self_play=True)
    np.testing.assert_allclose(summary.mean_score, THEORY.mean(axis=1))
    # Self-play rewards the reciprocators and punishes ALLD: the ranking turns over.
    assert summary.ranked_players == ["tft", "grim", "wsls", "allc", "alld"]
    assert summary.median_wins.tolist() == [0, 4, 0, 0, 0]


def test_ordered_pairs_give_the_same_matrix_and_ranking():
    ordered = [(a, b) for a in PLAYERS for b in PLAYERS if a != b]
    summary = summarise_tournament(_round_robin(ordered, replicates=1), PLAYERS)
    np.testing.assert_allclose(
        summary.payoff_matrix[~np.eye(5, dtype=bool)], THEORY[~np.eye(5, dtype=bool)]
    )
    assert np.isnan(np.diag(summary.payoff_matrix)).all()  # no self-play was played
    assert (summary.payoff_n[~np.eye(5, dtype=bool)] == 2).all()
    assert summary.ranked_players == ["alld", "tft", "grim", "wsls", "allc"]
    assert summary.median_wins.tolist() == [0, 8, 0, 0, 0]


def test_ranking_uses_the_median_over_replicates_as_axelrod_does():
    # X scores 1, 1, 10 (mean 4, median 1) and Y 2, 2, 2: the median puts Y first.
    matches = TournamentMatches(
        player_a=np.array(["X", "X", "X"]),
        player_b=np.array(["Y", "Y", "Y"]),
        replicate=np.array([0, 1, 2]),
        score_a=np.array([1.0, 1.0, 10.0]),
        score_b=np.array([2.0, 2.0, 2.0]),
        cooperation_a=np.array([0.5, 0.5, 0.5]),
        cooperation_b=np.array([1.0, 1.0, 1.0]),
        n_rounds=np.array([10, 10, 30]),
    )
    summary = summarise_tournament(matches)
    assert summary.players == ("X", "Y")
    assert summary.ranked_players == ["Y", "X"]
    assert summary.mean_score.tolist() == [4.0, 2.0]
    assert summary.wins.tolist() == [[0, 0, 1], [1, 1, 0]]
    assert summary.payoff_rows()[0]["n_matches"] == 3
    low, high = summary.payoff_ci_low[0, 1], summary.payoff_ci_high[0, 1]
    assert low < 4.0 < high  # Student t over the three matches
    np.testing.assert_allclose(summary.cooperation_rating, [(5 + 5 + 15) / 50, 1.0])
    unweighted = replace(matches, n_rounds=None)
    np.testing.assert_allclose(summarise_tournament(unweighted).cooperation_rating, [0.5, 1.0])
    with pytest.raises(ValueError, match="missing from `players`"):
        summarise_tournament(matches, ["X"])


def test_a_pairs_interval_counts_each_replicate_once_not_each_order():
    # Issue 42: X-Y and Y-X of one replicate drew the same random numbers (common random
    # numbers), here the same payoffs. Six matches are three draws: the interval is Student t
    # over the three replicates, not over six matches counted as independent.
    x_scores = np.array([1.0, 2.0, 4.0])
    matches = TournamentMatches(
        player_a=np.array(["X"] * 3 + ["Y"] * 3),
        player_b=np.array(["Y"] * 3 + ["X"] * 3),
        replicate=np.array([0, 1, 2, 0, 1, 2]),
        score_a=np.concatenate([x_scores, np.full(3, 3.0)]),
        score_b=np.concatenate([np.full(3, 3.0), x_scores]),
        cooperation_a=np.full(6, 0.5),
        cooperation_b=np.full(6, 0.5),
    )
    summary = summarise_tournament(matches)
    half = 4.302652729911275 * x_scores.std(ddof=1) / np.sqrt(3)  # t(0.975, 2)
    assert summary.payoff_matrix[0, 1] == pytest.approx(x_scores.mean())
    assert summary.payoff_ci_low[0, 1] == pytest.approx(x_scores.mean() - half)
    assert summary.payoff_ci_high[0, 1] == pytest.approx(x_scores.mean() + half)
    assert summary.payoff_n[0, 1] == 6  # the matches behind the cell
