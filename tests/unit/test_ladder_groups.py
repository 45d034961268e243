"""Ratings of matches of N players from their ranks (pdbench.ladder.rank_ratings): Plackett-Luce
maximum likelihood, the Bradley-Terry reduction to pairs, OpenSkill with N teams of one; and the
ladder choosing them for outcome tables with more than two rows a match."""

from __future__ import annotations

import numpy as np
import pytest

from pdbench.ladder.rank_ratings import (
    GroupMatches,
    openskill_ranks,
    pair_reduction,
    plackett_luce,
)
from pdbench.ladder.ratings import bradley_terry


def simulated_orders(theta: np.ndarray, n_matches: int, seats: int, rng: np.random.Generator):
    """Matches of `seats` agents drawn at random, their orders drawn from Plackett-Luce (Gumbel
    trick: sorting theta + Gumbel noise gives a Plackett-Luce order); ranks 1..seats."""
    k = len(theta)
    players = np.argsort(rng.random((n_matches, k)), axis=1)[:, :seats]
    utility = theta[players] + rng.gumbel(size=players.shape)
    ranks = np.argsort(np.argsort(-utility, axis=1), axis=1) + 1
    return GroupMatches.from_rows(
        np.repeat(np.arange(n_matches), seats), players.ravel(), ranks.ravel()
    )


def test_plackett_luce_on_two_player_matches_is_bradley_terry():
    rng = np.random.default_rng(4)
    theta = np.array([-0.8, 0.0, 0.3, 0.9])
    matches = simulated_orders(theta, 400, 2, rng)
    fit = plackett_luce(matches, len(theta))
    first, second, result = pair_reduction(matches)
    bt = bradley_terry(first, second, result, len(theta))
    assert not (result == "draw").any()
    np.testing.assert_allclose(fit.theta, bt.theta, atol=1e-4)
    np.testing.assert_allclose(fit.se, bt.se, rtol=1e-3)


def test_plackett_luce_recovers_known_strengths_from_four_player_orders():
    rng = np.random.default_rng(5)
    theta = np.array([-1.2, -0.4, 0.0, 0.5, 1.1, 0.2])
    fit = plackett_luce(simulated_orders(theta, 600, 4, rng), len(theta))
    truth = theta - theta.mean()
    assert np.all((fit.ci_low <= truth) & (truth <= fit.ci_high)), (fit.theta, truth)
    assert np.argsort(fit.theta).tolist() == np.argsort(truth).tolist()


def test_the_gradient_and_hessian_are_exact():
    from pdbench.ladder.rank_ratings import _hessian, _negative_log_posterior

    rng = np.random.default_rng(6)
    matches = simulated_orders(np.zeros(5), 30, 3, rng)
    # ties: the first match's two last seats share a rank
    matches.rank[matches.match == 0] = np.array([1, 2, 2])[: int((matches.match == 0).sum())]
    matches = GroupMatches.from_rows(matches.match, matches.agent, matches.rank)
    theta = rng.normal(size=5)
    value, grad = _negative_log_posterior(theta, matches, 5)
    step = 1e-6
    numeric = [
        (_negative_log_posterior(theta + step * e, matches, 5)[0] - value) / step for e in np.eye(5)
    ]
    np.testing.assert_allclose(grad, numeric, atol=1e-4)
    hessian = _hessian(theta, matches, 5)
    numeric_h = np.array(
        [
            (_negative_log_posterior(theta + step * e, matches, 5)[1] - grad) / step
            for e in np.eye(5)
        ]
    )
    np.testing.assert_allclose(hessian, numeric_h, atol=1e-4)


def test_a_tie_is_shared_by_breslows_rule_and_two_equal_agents_always_tying_rate_equal():
    # a and b tie first every time, c last: a and b equal, both above c
    match = np.repeat(np.arange(20), 3)
    agent = np.tile([0, 1, 2], 20)
    rank = np.tile([1, 1, 3], 20)
    matches = GroupMatches.from_rows(match, agent, rank)
    fit = plackett_luce(matches, 3)
    assert fit.theta[0] == pytest.approx(fit.theta[1], abs=1e-8)
    assert fit.theta[0] > fit.theta[2]
    *_, result = pair_reduction(matches)
    assert result.tolist().count("draw") == 20  # a-b of every match


def test_the_pair_reduction_gives_every_pair_of_a_match_once():
    matches = GroupMatches.from_rows(
        np.array([0, 0, 0, 0]), np.array([3, 1, 0, 2]), np.array([2, 1, 4, 2])
    )
    first, second, result = pair_reduction(matches)
    got = {(int(a), int(b), str(r)) for a, b, r in zip(first, second, result, strict=True)}
    # agent 1 first, 3 and 2 tied second, 0 last
    assert got == {
        (3, 1, "b"), (3, 0, "a"), (3, 2, "draw"), (1, 0, "a"), (1, 2, "a"), (0, 2, "b"),
    }  # fmt: skip


def test_openskill_takes_the_ranks_of_n_teams_of_one():
    matches = GroupMatches.from_rows(
        np.repeat(np.arange(30), 3), np.tile([0, 1, 2], 30), np.tile([1, 2, 3], 30)
    )
    mu, sigma, ordinal = openskill_ranks(matches, 3)
    assert mu[0] > mu[1] > mu[2]
    assert np.all(sigma < 25 / 3)
    np.testing.assert_allclose(ordinal, mu - 3 * sigma)
