"""Ratings on ranks, for matches of any number of players: Plackett-Luce maximum likelihood, the
Bradley-Terry reduction to pairs, and OpenSkill with N teams of one.

Plackett-Luce (Luce 1959; Plackett 1975): agent i has strength theta_i (log scale, as in
pdbench.ladder.ratings) and a match's finishing order o_1, o_2, ..., o_N has probability

    P(order) = prod_k exp(theta_{o_k}) / sum_{m >= k} exp(theta_{o_m}),

each place taken by one of the players still in, in proportion to its strength. With two players
and no tie it is Bradley-Terry, term for term.

Ties (equal scores share a rank) follow Breslow's rule (Breslow 1974, the survival analysis
rule for tied event times, as Cox's partial likelihood, which is Plackett-Luce's, uses it): the d
players tied at a place each contribute theta_i - log(sum of exp(theta) over everyone still in,
the tied players included). It needs no tie parameter and keeps the log-likelihood concave with a
closed-form gradient and Hessian; it treats a tie as "each of them came first among those left",
which is the approximation Breslow's rule is known for (it pulls tied players' estimates slightly
towards each other when ties are common). The Davidson-Luce model (Firth, Kosmidis and Turner
2019; the PlackettLuce R package, Turner et al. 2020) fits a tie propensity per tie size instead;
it is the better model when ties are frequent and an option for later. With two players a tie is
then half a win each, not a Davidson draw: pdbench.ladder.ratings stays the two-player model.

The fit is that of pdbench.ladder.ratings: a weak Gaussian prior on theta (PRIOR_SD), scipy's
L-BFGS-B with the exact gradient, Wald intervals from the exact Hessian of the negative log
posterior, each connected component (agents who met in a match) fitted alone and centred.

The reduction to pairs (as Kaggle's Game Arena rates multi-player games): every match of N
players is its N(N-1)/2 pairwise results, a tie a draw, fitted by Bradley-Terry-Davidson. The
pairs of one match are not independent (they share its players' luck), so the Wald intervals of
that fit are narrower than the data warrant: docs/ladder.md gives the measured coverage.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize

from pdbench.ladder.ratings import PRIOR_SD, Fit


@dataclass(frozen=True)
class GroupMatches:
    """Matches as rows (one per seat), grouped by match, and the stages of their orders.

    A stage is one place of one match (its distinct rank): the players tied there (`placed`)
    and the players still in (`risk`: ranked there or lower), as (stage, agent) index pairs."""

    match: np.ndarray  # per row: match index 0..M-1
    agent: np.ndarray  # per row: agent index
    rank: np.ndarray  # per row: 1 = best; ties share a rank
    placed_stage: np.ndarray
    placed_agent: np.ndarray
    risk_stage: np.ndarray
    risk_agent: np.ndarray
    tied: np.ndarray  # per stage: how many players share the place

    @classmethod
    def from_rows(cls, match: np.ndarray, agent: np.ndarray, rank: np.ndarray) -> GroupMatches:
        match = np.asarray(match, dtype=np.int64)
        agent = np.asarray(agent, dtype=np.int64)
        rank = np.asarray(rank, dtype=np.int64)
        # a stage per distinct (match, rank)
        stage_keys, row_stage = np.unique(
            np.stack([match, rank], axis=1), axis=0, return_inverse=True
        )
        row_stage = row_stage.ravel()
        tied = np.bincount(row_stage, minlength=len(stage_keys)).astype(float)
        # risk set of a stage: the rows of its match ranked at its rank or lower (the rows of a
        # match are few: N x N pairs per match)
        order = np.argsort(match, kind="stable")
        sorted_match = match[order]
        starts = np.searchsorted(sorted_match, np.arange(match.max() + 1 if len(match) else 0))
        sizes = np.bincount(sorted_match, minlength=len(starts))
        risk_stage: list[np.ndarray] = []
        risk_agent: list[np.ndarray] = []
        for size in np.unique(sizes):
            ids = np.flatnonzero(sizes == size)
            if size == 0:
                continue
            rows = order[starts[ids][:, None] + np.arange(size)]  # (matches, size)
            ranks = rank[rows]
            # stage of row p, risk member row q: q ranks at or below p's rank
            inside = ranks[:, None, :] >= ranks[:, :, None]  # [m, p, q]
            # one entry per stage, not per tied player: keep p the first row of its stage
            first_of_stage = np.ones_like(ranks, dtype=bool)
            for seat in range(1, size):
                earlier = ranks[:, :seat] == ranks[:, seat : seat + 1]
                first_of_stage[:, seat] = ~earlier.any(axis=1)
            inside &= first_of_stage[:, :, None]
            m, p, q = np.nonzero(inside)
            risk_stage.append(row_stage[rows[m, p]])
            risk_agent.append(agent[rows[m, q]])
        return cls(
            match,
            agent,
            rank,
            row_stage,
            agent,
            np.concatenate(risk_stage) if risk_stage else np.zeros(0, np.int64),
            np.concatenate(risk_agent) if risk_agent else np.zeros(0, np.int64),
            tied,
        )


def _risk_shares(theta: np.ndarray, matches: GroupMatches) -> tuple[np.ndarray, np.ndarray]:
    """log of each stage's risk-set total, and each (stage, agent) entry's share of it."""
    n_stages = len(matches.tied)
    value = theta[matches.risk_agent]
    top = np.full(n_stages, -np.inf)
    np.maximum.at(top, matches.risk_stage, value)
    weight = np.exp(value - top[matches.risk_stage])
    total = np.bincount(matches.risk_stage, weight, minlength=n_stages)
    return top + np.log(total), weight / total[matches.risk_stage]


def _negative_log_posterior(
    theta: np.ndarray, matches: GroupMatches, k: int
) -> tuple[float, np.ndarray]:
    log_total, share = _risk_shares(theta, matches)
    log_lik = theta[matches.placed_agent].sum() - np.sum(matches.tied * log_total)
    # d/d theta_j: times j was placed - sum over stages of (tied players) x (j's share)
    grad = np.bincount(matches.placed_agent, minlength=k).astype(float) - np.bincount(
        matches.risk_agent, matches.tied[matches.risk_stage] * share, minlength=k
    )
    prior = 0.5 * np.sum(theta**2) / PRIOR_SD**2
    grad -= theta / PRIOR_SD**2
    return -(float(log_lik) - prior), -grad


def _hessian(theta: np.ndarray, matches: GroupMatches, k: int) -> np.ndarray:
    """The negative log posterior's Hessian: per stage, tied x (diag p - p p') over its risk
    set (the Hessian of a log-sum-exp), plus the prior's curvature."""
    from scipy.sparse import coo_matrix

    _, share = _risk_shares(theta, matches)
    n_stages = len(matches.tied)
    shares = coo_matrix(
        (share, (matches.risk_stage, matches.risk_agent)), shape=(n_stages, k)
    ).tocsr()  # duplicates (an agent in two seats of a match) are summed
    weighted = shares.multiply(matches.tied[:, None]).tocsr()
    hessian = np.diag(np.asarray(weighted.sum(axis=0)).ravel()) - (shares.T @ weighted).toarray()
    hessian[np.arange(k), np.arange(k)] += 1.0 / PRIOR_SD**2
    return hessian


def plackett_luce(matches: GroupMatches, k: int, *, confidence: float = 0.95) -> Fit:
    """Fit one connected component (agents 0..k-1), with Wald intervals on the penalised fit
    (`Fit.nu` is NaN: the model has no draw parameter). Call it under `one_blas_thread`."""
    from scipy.special import ndtri

    fitted = minimize(
        _negative_log_posterior,
        np.zeros(k),
        args=(matches, k),
        jac=True,
        method="L-BFGS-B",
        options={"maxiter": 1000, "gtol": 1e-9, "ftol": 1e-14},
    )
    theta = fitted.x - fitted.x.mean()
    covariance = np.linalg.inv(_hessian(fitted.x, matches, k))
    centre = np.eye(k) - 1.0 / k
    se = np.sqrt(np.clip(np.diag(centre @ covariance @ centre), 0.0, None))
    z = float(ndtri(0.5 + confidence / 2))
    return Fit(theta, float("nan"), theta - z * se, theta + z * se, se)


def pair_reduction(matches: GroupMatches) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every match's pairwise results as two-player matches (first, second, "a" | "b" | "draw"),
    seats in the order of the rows; two seats of one agent in a match compare nothing and are
    left out."""
    order = np.argsort(matches.match, kind="stable")
    match, agent, rank = matches.match[order], matches.agent[order], matches.rank[order]
    # all (p, q) row pairs of one match, p before q
    p, q = _pairs_by_match(match)
    keep = agent[p] != agent[q]
    p, q = p[keep], q[keep]
    result = np.where(rank[p] < rank[q], "a", np.where(rank[q] < rank[p], "b", "draw"))
    return agent[p], agent[q], result


def _pairs_by_match(match: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(p, q) row pairs within each match of rows sorted by match (no N_rows^2 matrix)."""
    if len(match) == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    starts = np.flatnonzero(np.r_[True, match[1:] != match[:-1]])
    sizes = np.diff(np.r_[starts, len(match)])
    firsts, seconds = [], []
    for size in np.unique(sizes):
        at = starts[sizes == size]
        i, j = np.triu_indices(int(size), k=1)
        firsts.append((at[:, None] + i).ravel())
        seconds.append((at[:, None] + j).ravel())
    return np.concatenate(firsts), np.concatenate(seconds)


def openskill_ranks(matches: GroupMatches, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """OpenSkill's Plackett-Luce ratings (Weng and Lin 2011) after every match in its index
    order, each match N teams of one with its ranks as given: mu, sigma, ordinal mu - 3 sigma."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = [model.rating() for _ in range(k)]
    order = np.argsort(matches.match, kind="stable")
    match, agent, rank = matches.match[order], matches.agent[order], matches.rank[order]
    bounds = np.flatnonzero(np.r_[True, match[1:] != match[:-1], True])
    for start, stop in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True):
        players = agent[start:stop].tolist()
        if len(set(players)) < len(players):
            continue  # an agent in two seats cannot be two teams of one rating
        rated = model.rate([[ratings[a]] for a in players], ranks=rank[start:stop].tolist())
        for a, [new] in zip(players, rated, strict=True):
            ratings[a] = new
    mu = np.array([r.mu for r in ratings])
    sigma = np.array([r.sigma for r in ratings])
    return mu, sigma, np.array([r.ordinal() for r in ratings])
