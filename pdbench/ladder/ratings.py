"""Ratings on wins from pairwise outcomes: Bradley-Terry with Davidson's draws, Wald intervals on
the penalised fit, which ratings the data identify, OpenSkill, and the connected components of the
comparison graph.

Bradley-Terry-Davidson (Davidson 1970): agent i has strength theta_i (log scale) and draws have
one propensity nu, so in a match of i against j

    P(i wins) = e^theta_i / D,  P(j wins) = e^theta_j / D,  P(draw) = nu e^((theta_i+theta_j)/2) / D

with D the sum of the three numerators. A draw is a draw, not half a win. theta and log nu are
fitted by maximum likelihood (scipy's L-BFGS-B with the exact gradient) with a weak Gaussian prior
on theta (standard deviation PRIOR_SD): without it an agent that won every match has no finite
estimate, and with it the estimate is the mode of a posterior whose prior is negligible as soon as
an agent both won and lost. Ratings are only comparable within a connected component of the
graph whose edges are pairs that met: each component is fitted alone and centred on its mean.
Shown on the Elo scale: 1500 + theta x 400 / ln 10 (a 400-point gap: 10 to 1 odds, draws aside).

Intervals: Wald on the penalised fit. The covariance of (theta, log nu) is the inverse of the
negative log posterior's Hessian at its mode (exact, the prior's curvature included), and a
rating's interval is its centred estimate +/- z standard errors. Over simulated populations of
known strengths it covers at its nominal rate (docs/ladder.md gives the measured coverage), where
the percentile bootstrap it replaced covered 0.90-0.94; it is never of zero width, since the
prior alone bounds the curvature.

Identified: a maximum-likelihood rating exists only when no group of agents won every match it
played against the rest (Ford 1957; Hunter 2004), a draw counting both ways. `unidentified` says,
per agent, when the data leave its distance from some others unbounded (it won, or lost, every
match against them): its rating and interval are then the prior's, and the ladder flags it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize

PRIOR_SD = 3.0  # on theta (Elo sd ~520): weak next to any data where an agent both won and lost
ELO_SCALE = 400.0 / np.log(10.0)
ELO_MEAN = 1500.0
LOG_NU_BOUNDS = (-12.0, 12.0)  # no draws at all: nu -> 0, held at e^-12


@dataclass(frozen=True)
class Pairs:
    """Match counts per unordered pair (i < j): wins of i, wins of j, draws."""

    i: np.ndarray
    j: np.ndarray
    wins_i: np.ndarray
    wins_j: np.ndarray
    draws: np.ndarray


def pair_counts(first: np.ndarray, second: np.ndarray, result: np.ndarray, k: int) -> Pairs:
    """Counts per pair from matches given as agent indices and results ("a", "b", "draw")."""
    low, high = np.minimum(first, second), np.maximum(first, second)
    first_won = result == "a"
    low_won = np.where(first == low, first_won, result == "b")
    high_won = (result != "draw") & ~low_won
    pair = low * k + high
    codes, inverse = np.unique(pair, return_inverse=True)
    size = len(codes)
    return Pairs(
        i=codes // k,
        j=codes % k,
        wins_i=np.bincount(inverse, low_won, size),
        wins_j=np.bincount(inverse, high_won, size),
        draws=np.bincount(inverse, result == "draw", size),
    )


def _negative_log_posterior(params: np.ndarray, pairs: Pairs, k: int) -> tuple[float, np.ndarray]:
    theta, log_nu = params[:k], params[k]
    a, b = theta[pairs.i], theta[pairs.j]
    draw = log_nu + (a + b) / 2
    # log D = logsumexp of the three numerators' logs, shifted by their maximum; written out
    # rather than scipy.special.logsumexp, whose dispatch cost was two thirds of each call
    # (this runs for every L-BFGS step of every bootstrap fit)
    top = np.maximum(np.maximum(a, b), draw)
    e_i, e_j, e_draw = np.exp(a - top), np.exp(b - top), np.exp(draw - top)
    total = e_i + e_j + e_draw
    log_d = top + np.log(total)
    n = pairs.wins_i + pairs.wins_j + pairs.draws
    log_lik = pairs.wins_i * a + pairs.wins_j * b + pairs.draws * draw - n * log_d
    p_i, p_j, p_draw = e_i / total, e_j / total, e_draw / total
    grad = np.zeros(k + 1)
    # d log-lik / d theta_i = wins_i + draws / 2 - n (p_i + p_draw / 2), and the same for j
    grad[:k] = np.bincount(
        pairs.i, pairs.wins_i + pairs.draws / 2 - n * (p_i + p_draw / 2), minlength=k
    ) + np.bincount(pairs.j, pairs.wins_j + pairs.draws / 2 - n * (p_j + p_draw / 2), minlength=k)
    grad[k] = np.sum(pairs.draws - n * p_draw)
    prior = 0.5 * np.sum(theta**2) / PRIOR_SD**2
    grad[:k] -= theta / PRIOR_SD**2
    return -(float(log_lik.sum()) - prior), -grad


def fit_davidson(pairs: Pairs, k: int) -> tuple[np.ndarray, float]:
    """theta (centred on its mean) and nu fitted to the counts of one connected component."""
    start = np.zeros(k + 1)
    bounds = [(None, None)] * k + [LOG_NU_BOUNDS]
    fitted = minimize(
        _negative_log_posterior,
        start,
        args=(pairs, k),
        jac=True,
        method="L-BFGS-B",
        bounds=bounds,
        options={"maxiter": 1000, "gtol": 1e-9, "ftol": 1e-14},
    )
    theta = fitted.x[:k]
    return theta - theta.mean(), float(np.exp(fitted.x[k]))


def to_elo(theta: np.ndarray) -> np.ndarray:
    return ELO_MEAN + ELO_SCALE * theta


@dataclass(frozen=True)
class Fit:
    """One component's ratings, in the order of its agents (log-strength scale, centred)."""

    theta: np.ndarray
    nu: float
    ci_low: np.ndarray  # Wald interval of the centred theta on the penalised fit
    ci_high: np.ndarray
    se: np.ndarray


def bradley_terry(
    first: np.ndarray,
    second: np.ndarray,
    result: np.ndarray,
    k: int,
    *,
    confidence: float = 0.95,
) -> Fit:
    """Fit one connected component (agents 0..k-1), with Wald intervals on the penalised fit.
    Call it under `one_blas_thread` (pdbench.core.blas), as `ladder_table` does."""
    from scipy.special import ndtri  # the normal quantile (scipy.stats takes 0.5 s to import)

    pairs = pair_counts(first, second, result, k)
    theta, nu = fit_davidson(pairs, k)
    log_nu = float(np.log(nu))
    at_bound = not (LOG_NU_BOUNDS[0] + 1e-6 < log_nu < LOG_NU_BOUNDS[1] - 1e-6)
    covariance = np.linalg.inv(_hessian(theta, log_nu, pairs, k, with_nu=not at_bound))[:k, :k]
    centre = np.eye(k) - 1.0 / k
    se = np.sqrt(np.clip(np.diag(centre @ covariance @ centre), 0.0, None))
    z = float(ndtri(0.5 + confidence / 2))
    return Fit(theta, nu, theta - z * se, theta + z * se, se)


def _hessian(
    theta: np.ndarray, log_nu: float, pairs: Pairs, k: int, *, with_nu: bool
) -> np.ndarray:
    """The negative log posterior's Hessian in (theta, log nu); without log nu (held where it is)
    when the fit put it on a bound (no draws at all, or only draws)."""
    a, b = theta[pairs.i], theta[pairs.j]
    logits = np.stack([a, b, log_nu + (a + b) / 2], axis=1)
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    # log D is a log-sum-exp of u = M (theta_i, theta_j, log nu): its Hessian is
    # M' (diag p - p p') M, times the pair's number of matches
    m = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.5, 0.5, 1.0]])
    inner = p[:, :, None] * np.eye(3) - p[:, :, None] * p[:, None, :]
    n = pairs.wins_i + pairs.wins_j + pairs.draws
    blocks = n[:, None, None] * np.einsum("ua,puv,vb->pab", m, inner, m)
    index = np.stack([pairs.i, pairs.j, np.full_like(pairs.i, k)], axis=1)
    hessian = np.zeros((k + 1, k + 1))
    np.add.at(hessian, (index[:, :, None], index[:, None, :]), blocks)
    hessian[np.arange(k), np.arange(k)] += 1.0 / PRIOR_SD**2
    return hessian if with_nu else hessian[:k, :k]


def unidentified(
    first: np.ndarray, second: np.ndarray, result: np.ndarray, names: list[str]
) -> list[str | None]:
    """Per agent of one component: None when the data bound its rating, else why not (it won,
    or lost, every match against some agents: no finite maximum-likelihood distance to them).

    The ratings exist when the digraph "j took at least a draw off i" is strongly connected; its
    strongly connected components are the groups whose distances are identified."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    k = len(names)
    drawn = result == "draw"
    winner = np.where(result == "b", second, first)
    loser = np.where(result == "b", first, second)
    tail = np.concatenate([loser, first[drawn], second[drawn]])
    head = np.concatenate([winner, second[drawn], first[drawn]])
    graph = coo_matrix((np.ones(len(tail)), (tail, head)), shape=(k, k))
    groups, label = connected_components(graph, directed=True, connection="strong")
    if groups == 1:
        return [None] * k
    reasons: list[str | None] = []
    for agent in range(k):
        mine = (first == agent) | (second == agent)
        opponent = np.where(first == agent, second, first)[mine]
        won = np.where(first == agent, result == "a", result == "b")[mine]
        lost = np.where(first == agent, result == "b", result == "a")[mine]
        outside = label[opponent] != label[agent]
        if won.all() or lost.all():
            how = "won" if won.all() else "lost"
            reasons.append(
                f"{how} every match: no finite rating; the prior sets it and its interval"
            )
            continue
        beaten = sorted({names[j] for j in opponent[outside & won]})
        beaten_by = sorted({names[j] for j in opponent[outside & lost]})
        parts = [f"won every match against {', '.join(beaten)}"] if beaten else []
        parts += [f"lost every match against {', '.join(beaten_by)}"] if beaten_by else []
        reasons.append(
            ("; ".join(parts) or "its group won, or lost, every match against the others")
            + ": the prior sets the distance, and so where it stands against the mean"
        )
    return reasons


def components(first: np.ndarray, second: np.ndarray, k: int) -> np.ndarray:
    """The connected component of each agent (0, 1, ...; by first appearance) in the graph
    whose edges are the pairs that met."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    graph = coo_matrix((np.ones(len(first)), (first, second)), shape=(k, k))
    _, labels = connected_components(graph, directed=False)
    order = {label: n for n, label in enumerate(dict.fromkeys(labels.tolist()))}
    return np.array([order[label] for label in labels.tolist()], dtype=np.int64)


def openskill(
    first: np.ndarray, second: np.ndarray, result: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """OpenSkill's Plackett-Luce ratings (Weng and Lin 2011) after every match in the given
    order (the stored order): mu, sigma and the ordinal mu - 3 sigma per agent."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = [model.rating() for _ in range(k)]
    ranks = {"a": [0.0, 1.0], "b": [1.0, 0.0], "draw": [0.0, 0.0]}
    for a, b, outcome in zip(first.tolist(), second.tolist(), result.tolist(), strict=True):
        [new_a], [new_b] = model.rate([[ratings[a]], [ratings[b]]], ranks=ranks[outcome])
        ratings[a], ratings[b] = new_a, new_b
    mu = np.array([r.mu for r in ratings])
    sigma = np.array([r.sigma for r in ratings])
    return mu, sigma, np.array([r.ordinal() for r in ratings])
