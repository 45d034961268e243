"""Ratings on payoff: what an agent earns, against the field, from a Gaussian additive model.

Win/draw/loss asks who beats whom; in a game that is not zero-sum (the dilemmas) it rewards
exploitation, and ALLD, which never scores less than its opponent, rates first while it earns
less than the cooperators. Axelrod's tournaments rank on the payoff earned instead. In a complete
round robin that is each agent's mean payoff; a ladder pools runs in which agents met different
opponents, so the payoff an agent earned must be adjusted for whom it met. The model (the
offence/defence ratings of sports, Massey 1997):

    payoff of agent i in a match against j = mu + earn_i - concede_j + noise,

noise independent and Gaussian with one variance, one observation per seat of every match (a 2x2
game's mean payoff per round, so that long and short matches weigh alike; a turn game's score).
It is fitted by least squares. An agent's rating is what the model says it earns against the
other agents of its group, each met equally often:

    rating_i = mu + earn_i - mean over j != i of concede_j,

which in a complete round robin (every pair met equally often) is exactly its mean payoff, the
tournament's score. Intervals: the rating's t interval (its standard error from the least-squares
covariance, the noise variance from the residuals, n - rank degrees of freedom); the model's
misfit (two strategies that do better or worse together than their main effects say) is part of
that residual, so the interval widens where one number describes an agent badly.

A rating is identified when the design determines it (the functional lies in the row space of
the design: estimable); a group of agents that met too few different opponents to tell what an
agent earns from what its opponents concede is not, and is flagged. With no degrees of freedom
left the noise cannot be estimated; with every payoff exactly as the model says, the interval has
zero width, which is no certainty: both are flagged by the ladder.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

RANK_TOLERANCE = 1e-9  # relative, on the design's eigenvalues
EXACT = 1e-9  # residuals this small next to the payoffs are rounding: the model fits exactly


@dataclass(frozen=True)
class PayoffFit:
    """One component's payoff ratings, in the order of its agents."""

    rating: np.ndarray  # expected payoff against the others of its group (NaN: not estimable)
    ci_low: np.ndarray
    ci_high: np.ndarray
    se: np.ndarray
    estimable: np.ndarray  # bool per agent
    noise_sd: float  # the residuals' standard deviation (NaN: no degrees of freedom left)
    df: int


def payoff_model(
    first: np.ndarray,
    second: np.ndarray,
    payoff_first: np.ndarray,
    payoff_second: np.ndarray,
    k: int,
    *,
    confidence: float = 0.95,
) -> PayoffFit:
    """Fit one connected component (agents 0..k-1) from its matches' seats' payoffs."""
    me = np.concatenate([first, second])
    them = np.concatenate([second, first])
    y = np.concatenate([payoff_first, payoff_second]).astype(float)
    n = len(y)
    # the design: a row [1, e_me, -e_them] per observation
    design = np.zeros((n, 1 + 2 * k))
    design[:, 0] = 1.0
    design[np.arange(n), 1 + me] = 1.0
    design[np.arange(n), 1 + k + them] = -1.0
    return _least_squares(design, y, k, confidence)


def group_payoff_model(
    match: np.ndarray, agent: np.ndarray, payoff: np.ndarray, k: int, *, confidence: float = 0.95
) -> PayoffFit:
    """The same model for matches of any number of players (one row per seat): a seat's payoff
    is mu + earn_me - the mean of what the others of its match concede, plus noise. With two
    players it is `payoff_model`; the rating is the same contrast (what an agent earns against
    the others of its group, each met equally often)."""
    n = len(payoff)
    seats = np.bincount(match)[match]
    design = np.zeros((n, 1 + 2 * k))
    design[:, 0] = 1.0
    design[np.arange(n), 1 + agent] = 1.0
    # -(sum of the match's concede indicators - my own) / (seats - 1)
    per_match = np.zeros((int(match.max()) + 1, k))
    np.add.at(per_match, (match, agent), 1.0)
    others = per_match[match] - np.eye(k)[agent]
    design[:, 1 + k :] = -others / (seats - 1)[:, None]
    return _least_squares(design, np.asarray(payoff, dtype=float), k, confidence)


def _least_squares(design: np.ndarray, y: np.ndarray, k: int, confidence: float) -> PayoffFit:
    from scipy.special import stdtrit  # Student's t quantile (scipy.stats is slow to import)

    n, p = design.shape
    gram, moment = design.T @ design, design.T @ y
    values, vectors = np.linalg.eigh(gram)
    keep = values > RANK_TOLERANCE * values.max()
    rank = int(keep.sum())
    basis = vectors[:, keep]
    inverse = (basis / values[keep]) @ basis.T  # the Gram matrix's pseudo-inverse
    beta = inverse @ moment
    fitted = design @ beta
    df = n - rank
    noise_sd = float(np.sqrt(np.sum((y - fitted) ** 2) / df)) if df > 0 else float("nan")
    if noise_sd <= EXACT * max(1.0, float(np.abs(y).max())):
        noise_sd = 0.0  # rounding left by an exact fit, not noise
    # rating_i = mu + earn_i - mean_{j != i} concede_j, one row of `contrast` per agent
    contrast = np.zeros((k, p))
    contrast[:, 0] = 1.0
    contrast[np.arange(k), 1 + np.arange(k)] = 1.0
    contrast[:, 1 + k :] = -(1.0 - np.eye(k)) / (k - 1)
    outside = contrast - (contrast @ basis) @ basis.T
    estimable = np.linalg.norm(outside, axis=1) <= 1e-8 * np.linalg.norm(contrast, axis=1)
    rating = np.where(estimable, contrast @ beta, np.nan)
    se = np.where(
        estimable, noise_sd * np.sqrt(np.einsum("ip,pq,iq->i", contrast, inverse, contrast)), np.nan
    )
    quantile = float(stdtrit(df, 0.5 + confidence / 2)) if df > 0 else float("nan")
    return PayoffFit(
        rating, rating - quantile * se, rating + quantile * se, se, estimable, noise_sd, df
    )
