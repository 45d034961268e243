"""Ratings on ranks, for matches of any number of players: Plackett-Luce maximum likelihood, the
Bradley-Terry reduction to pairs, and OpenSkill with N teams of one.

Plackett-Luce (Luce 1959; Plackett 1975): agent i has strength theta_i (log scale, as in
pdbench.ladder.ratings) and a match's finishing order o_1, o_2, ..., o_N has probability

    P(order) = prod_k exp(theta_{o_k}) / sum_{m >= k} exp(theta_{o_m}),

each place taken by one of the players still in, in proportion to its strength. With two players
and no tie it is Bradley-Terry, term for term.

Ties (equal scores share a rank) are read as "their order is not known" (a tie of scores hides
who was better). A tie for the last places is then exact: all the orders of the players left
have probability 1 together, so the last place, tied or not, contributes nothing. A tie above
the last place follows Breslow's rule (Breslow 1974, the rule for tied event times in Cox's
partial likelihood, which is Plackett-Luce's likelihood): the d players tied at a place each
contribute theta_i - log(sum of exp(theta) over everyone still in, the tied players included).
It needs no tie parameter and keeps the log-likelihood concave with a closed-form gradient and
Hessian (the exact sum over the d! orders does not); it is an approximation that pulls the
tied players towards each other, measured in docs/ladder.md's coverage table. The Davidson-Luce model (Firth, Kosmidis and Turner
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
    """Matches as rows (one per seat), and the terms of their Plackett-Luce likelihood.

    A term is one choice of a match's order: a log-sum-exp over the players still in (its risk
    entries, with a log weight each: 0, or Efron's log(1 - l/d) for a player tied at the place
    being filled), minus the strength of the player placed. The log-likelihood is
    sum(theta of the placed rows) - sum over terms of log sum_j exp(theta_j + offset_j)."""

    match: np.ndarray  # per row: match index 0..M-1
    agent: np.ndarray  # per row: agent index
    rank: np.ndarray  # per row: 1 = best; ties share a rank
    placed_agent: np.ndarray  # the rows placed by some term (every row but the last places)
    risk_term: np.ndarray  # per risk entry: its term
    risk_agent: np.ndarray  # per risk entry: the agent still in
    risk_offset: np.ndarray  # per risk entry: its log weight
    terms: int

    @classmethod
    def from_rows(cls, match: np.ndarray, agent: np.ndarray, rank: np.ndarray) -> GroupMatches:
        match = np.asarray(match, dtype=np.int64)
        agent = np.asarray(agent, dtype=np.int64)
        rank = np.asarray(rank, dtype=np.int64)
        order = np.argsort(match, kind="stable")
        sizes = np.bincount(match) if len(match) else np.zeros(0, np.int64)
        starts = np.r_[0, np.cumsum(sizes)[:-1]] if len(sizes) else sizes
        placed: list[np.ndarray] = []
        stage_parts: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
        for size in np.unique(sizes):
            ids = np.flatnonzero(sizes == size)
            if size == 0:
                continue
            rows = order[starts[ids][:, None] + np.arange(size)]  # (matches, size)
            ranks = rank[rows]
            # a stage is a place: the first row p of each rank of a match stands for it
            first_of_stage = np.ones_like(ranks, dtype=bool)
            for seat in range(1, size):
                earlier = ranks[:, :seat] == ranks[:, seat : seat + 1]
                first_of_stage[:, seat] = ~earlier.any(axis=1)
            tied_here = (ranks[:, :, None] == ranks[:, None, :]).sum(axis=2)  # [m, p]
            still_in = (ranks[:, None, :] >= ranks[:, :, None]).sum(axis=2)  # [m, p]
            # the last place of a match, tied or not, says nothing: whoever is left takes it
            # (all orders of the players left have probability 1 together); left out, exactly
            last = tied_here == still_in
            placed.append(agent[rows[~last]])
            stage = first_of_stage & ~last
            inside = (ranks[:, None, :] >= ranks[:, :, None]) & stage[:, :, None]  # [m, p, q]
            m, p, q = np.nonzero(inside)
            stage_parts.append(
                (
                    m * size + p,  # the place's id, within this part
                    agent[rows[m, q]],
                    ranks[m, q] == ranks[m, p],  # the risk entry is tied at this place
                    tied_here[m, p],
                )
            )
        return cls._with_terms(match, agent, rank, placed, stage_parts)

    @classmethod
    def _with_terms(
        cls,
        match: np.ndarray,
        agent: np.ndarray,
        rank: np.ndarray,
        placed: list[np.ndarray],
        stage_parts: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]],
    ) -> GroupMatches:
        """Efron's rule (Efron 1977): a place shared by d tied players is d terms, l = 0..d-1,
        each over everyone still in with the tied players weighted 1 - l/d (an average of the
        orders in which they could have been placed). One term per untied place."""
        offset = 0
        terms: list[np.ndarray] = []
        agents: list[np.ndarray] = []
        offsets: list[np.ndarray] = []
        for stage_id, risk_agent, is_tied, d in stage_parts:
            codes, stage = np.unique(stage_id, return_inverse=True)
            stage = stage.ravel()
            d = d.astype(np.int64)
            per_stage_d = np.zeros(len(codes), np.int64)
            per_stage_d[stage] = d
            first_term = offset + np.r_[0, np.cumsum(per_stage_d)[:-1]]
            repeat = per_stage_d[stage]
            entry = np.repeat(np.arange(len(stage)), repeat)
            level = np.arange(len(entry)) - np.repeat(np.cumsum(repeat) - repeat, repeat)
            terms.append(first_term[stage[entry]] + level)
            agents.append(risk_agent[entry])
            weight = np.where(is_tied[entry], 1.0 - level / d[entry], 1.0)
            offsets.append(np.log(weight))
            offset += int(per_stage_d.sum())

        def joined(parts: list[np.ndarray], dtype: type) -> np.ndarray:
            return np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype)

        return cls(
            match, agent, rank, joined(placed, np.int64), joined(terms, np.int64),
            joined(agents, np.int64), joined(offsets, float), offset,
        )  # fmt: skip


def _risk_shares(theta: np.ndarray, matches: GroupMatches) -> tuple[np.ndarray, np.ndarray]:
    """log of each term's weighted risk-set total, and each risk entry's share of it."""
    value = theta[matches.risk_agent] + matches.risk_offset
    top = np.full(matches.terms, -np.inf)
    np.maximum.at(top, matches.risk_term, value)
    weight = np.exp(value - top[matches.risk_term])
    total = np.bincount(matches.risk_term, weight, minlength=matches.terms)
    return top + np.log(total), weight / total[matches.risk_term]


def _negative_log_posterior(
    theta: np.ndarray, matches: GroupMatches, k: int
) -> tuple[float, np.ndarray]:
    log_total, share = _risk_shares(theta, matches)
    log_lik = theta[matches.placed_agent].sum() - log_total.sum()
    # d/d theta_j: times j was placed - its shares of every term it was in
    grad = np.bincount(matches.placed_agent, minlength=k).astype(float) - np.bincount(
        matches.risk_agent, share, minlength=k
    )
    prior = 0.5 * np.sum(theta**2) / PRIOR_SD**2
    grad -= theta / PRIOR_SD**2
    return -(float(log_lik) - prior), -grad


def _hessian(theta: np.ndarray, matches: GroupMatches, k: int) -> np.ndarray:
    """The negative log posterior's Hessian: per term, diag p - p p' over its risk entries (the
    Hessian of a log-sum-exp), plus the prior's curvature."""
    from scipy.sparse import coo_matrix

    _, share = _risk_shares(theta, matches)
    shares = coo_matrix(
        (share, (matches.risk_term, matches.risk_agent)), shape=(matches.terms, k)
    ).tocsr()  # duplicates (an agent in two seats of a match) are summed
    hessian = np.diag(np.asarray(shares.sum(axis=0)).ravel()) - (shares.T @ shares).toarray()
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
    return _pairs_of(matches)[:3]


def pairs_bradley_terry(matches: GroupMatches, k: int, *, confidence: float = 0.95) -> Fit:
    """Bradley-Terry-Davidson on the pair reduction of one component, with cluster-robust Wald
    intervals: the pairs of one match share its players' luck, so the covariance is the sandwich
    H^-1 (sum over matches of g_m g_m') H^-1, g_m the sum of the match's pairs' scores (the
    gradient of their log-likelihood) at the fit and H the penalised Hessian (Liang and Zeger
    1986). The plain Wald interval, which takes the pairs as independent, is too narrow."""
    from scipy.special import ndtri

    from pdbench.ladder.ratings import LOG_NU_BOUNDS, _hessian, bradley_terry, pair_counts

    first, second, result, match = _pairs_of(matches)
    fit = bradley_terry(first, second, result, k, confidence=confidence)
    log_nu = float(np.log(fit.nu))
    with_nu = LOG_NU_BOUNDS[0] + 1e-6 < log_nu < LOG_NU_BOUNDS[1] - 1e-6
    hessian = _hessian(fit.theta, log_nu, pair_counts(first, second, result, k), k, with_nu=with_nu)
    a, b = fit.theta[first], fit.theta[second]
    logits = np.stack([a, b, log_nu + (a + b) / 2], axis=1)
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    outcome = np.stack([result == "a", result == "b", result == "draw"], axis=1).astype(float)
    residual = outcome - p  # the score in (theta_i, theta_j, log nu) is M' (y - p)
    scores = np.zeros((int(match.max()) + 1 if len(match) else 0, k + 1))
    np.add.at(scores, (match, first), residual[:, 0] + residual[:, 2] / 2)
    np.add.at(scores, (match, second), residual[:, 1] + residual[:, 2] / 2)
    scores[:, k] = np.bincount(match, residual[:, 2], minlength=len(scores))
    scores = scores if with_nu else scores[:, :k]
    bread = np.linalg.inv(hessian)
    covariance = (bread @ (scores.T @ scores) @ bread)[:k, :k]
    centre = np.eye(k) - 1.0 / k
    se = np.sqrt(np.clip(np.diag(centre @ covariance @ centre), 0.0, None))
    z = float(ndtri(0.5 + confidence / 2))
    return Fit(fit.theta, fit.nu, fit.theta - z * se, fit.theta + z * se, se)


def _pairs_of(
    matches: GroupMatches,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The pair reduction and the match of each pair."""
    order = np.argsort(matches.match, kind="stable")
    match, agent, rank = matches.match[order], matches.agent[order], matches.rank[order]
    # all (p, q) row pairs of one match, p before q
    p, q = _pairs_by_match(match)
    keep = agent[p] != agent[q]
    p, q = p[keep], q[keep]
    result = np.where(rank[p] < rank[q], "a", np.where(rank[q] < rank[p], "b", "draw"))
    return agent[p], agent[q], result, match[p]


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
