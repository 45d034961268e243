"""Strategy frequency estimation (SFEM): which deterministic strategies explain an agent's moves.

The model (Dal Bo and Frechette 2011, AER; Romero and Rosokha 2018), pooled over the agent's matches;
Fontana et al. 2025's published code fits each match alone instead (pdbench.analysis.identification.sfem_fontana,
`pdbench analyze --sfem fontana`):
each match is played by one strategy k from a candidate set, drawn with probability phi_k. Strategy
k prescribes a move in every round as a function of the observed history so far (both players'
actual moves and the agent's actual payoffs); the agent plays the prescribed move with probability
beta and the other move with probability 1 - beta (one common tremble, 1 - beta, for every
strategy). With a_mk the rounds of match m where the agent's move equals strategy k's prescription
and n_m the rounds of match m, the likelihood is

    L(phi, beta) = prod_m sum_k phi_k * beta^a_mk * (1 - beta)^(n_m - a_mk),

maximised over phi on the simplex and beta in [1/2, 1] (below 1/2 "tremble" would mean the agent
does the opposite of the rule more often than not). The maximiser is found by expectation
maximisation, whose M-step is closed-form here: phi_k = mean responsibility of k, beta = matching
rounds weighted by responsibilities / all rounds, clamped into [1/2, 1] (the objective in beta is
concave, so the clamp is the exact constrained step). EM starts from uniform weights at three betas
(0.6, 0.8, 0.95) and from near each candidate alone, and keeps the best end point, which a
constrained quasi-Newton step then carries to the maximum (pdbench.analysis.identification.sfem_polish: EM alone
crawls where the likelihood is flat and stopped up to 3e-4 log-likelihood units short). The fit is
`converged` when the projected gradient at the estimate is below 1e-5 per match; its norm is
reported. Standard errors: the standard deviation of the estimates over bootstrap resamples of
whole matches (seeded numpy Generator; EM only, warm-started at the estimate), with percentile
intervals.

The candidates and their prescriptions (each replayed on the observed history; deterministic
rules only) come from pdbench.analysis.identification.prescriptions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pdbench.analysis.identification.moves import MatchBatch
from pdbench.analysis.identification.prescriptions import (
    candidate_prescriptions,
    default_candidates,
    indistinguishable,
)
from pdbench.analysis.identification.sfem_polish import GRADIENT_TOLERANCE, polish
from pdbench.core.errors import ConfigError
from pdbench.core.game import Game
from pdbench.core.payoff import PayoffMatrix

POOLED_ESTIMATOR = "pooled Dal Bo-Frechette"  # the `estimator` of its rows in analysis.parquet
BETA_STARTS = (0.6, 0.8, 0.95)
# Bootstrap fits run in chunks so that chunk x distinct matches x candidates stays this small.
_CHUNK_ELEMENTS = 2_000_000


@dataclass(frozen=True)
class SingleStrategyFit:
    """The best fit of the data by one candidate alone: its beta and log-likelihood."""

    strategy: str
    beta: float
    log_likelihood: float


@dataclass(frozen=True)
class SfemResult:
    """Estimated mixture over `candidates` (weights in candidate order) and the common beta."""

    candidates: tuple[str, ...]
    weights: np.ndarray
    weights_se: np.ndarray  # bootstrap standard errors (NaN without bootstrap)
    weights_ci_low: np.ndarray  # bootstrap percentile interval
    weights_ci_high: np.ndarray
    beta: float
    beta_se: float
    log_likelihood: float
    converged: bool  # the projected gradient is below GRADIENT_TOLERANCE per match
    iterations: int  # EM's, before the polish
    n_matches: int
    n_rounds: int
    single_fits: tuple[SingleStrategyFit, ...]  # one per candidate, in candidate order
    # Groups of candidates that prescribed the same move in every observed round: the data cannot
    # tell them apart, so only the sum of their weights is identified.
    indistinguishable: tuple[tuple[str, ...], ...]
    n_bootstrap: int
    bootstrap_unconverged: int  # resamples whose fit hit max_iterations (their SEs are rougher)
    seed: int
    confidence: float
    gradient_norm: float = float("nan")  # projected gradient at the estimate (sfem_polish)

    @property
    def tremble(self) -> float:
        return 1.0 - self.beta

    @property
    def nearest(self) -> SingleStrategyFit:
        """The single candidate with the highest likelihood (the first one on ties)."""
        best = int(np.argmax([fit.log_likelihood for fit in self.single_fits]))
        return self.single_fits[best]

    def weight(self, strategy: str) -> float:
        return float(self.weights[self.candidates.index(strategy)])

    def as_rows(self) -> list[dict[str, object]]:
        """One row per candidate: weight with its SE and interval, and the single-strategy fit."""
        return [
            {
                "strategy": name,
                "weight": float(self.weights[k]),
                "weight_se": float(self.weights_se[k]),
                "weight_ci_low": float(self.weights_ci_low[k]),
                "weight_ci_high": float(self.weights_ci_high[k]),
                "single_beta": self.single_fits[k].beta,
                "single_log_likelihood": self.single_fits[k].log_likelihood,
            }
            for k, name in enumerate(self.candidates)
        ]


@dataclass(frozen=True)
class _Fit:
    weights: np.ndarray  # (B, K)
    beta: np.ndarray  # (B,)
    loglik: np.ndarray  # (B,)
    iterations: int
    converged: np.ndarray  # (B,)


def _e_step(
    agree: np.ndarray,
    miss: np.ndarray,
    lengths: np.ndarray,
    counts: np.ndarray,
    weights: np.ndarray,
    beta: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """(log-likelihood (B,), responsibilities (B, U, K)) at the given parameters.

    A component's log-likelihood is n log(beta) - miss * log(beta / (1 - beta)): the first term is
    the same for every candidate, so it cancels from the responsibilities."""
    with np.errstate(divide="ignore", invalid="ignore"):
        odds = np.log(beta) - np.log1p(-beta)  # +inf at beta = 1
        penalty = miss[None] * odds[:, None, None]
        if np.isinf(odds).any():  # 0 * inf: a candidate that never missed loses nothing
            penalty = np.where(miss[None] > 0, penalty, 0.0)
        joint = np.log(weights)[:, None, :] - penalty
        top = joint.max(axis=2)
        exp = np.exp(joint - top[..., None])
        total = exp.sum(axis=2)
        responsibilities = exp / total[..., None]
        per_match = top + np.log(total) + lengths[None] * np.log(beta)[:, None]
        if not np.isfinite(top).all():  # only at beta = 1 with a match no candidate fits
            responsibilities = np.where(np.isfinite(top)[..., None], responsibilities, 0.0)
        loglik = np.where(counts > 0, counts * per_match, 0.0).sum(axis=1)
    return loglik, responsibilities


def _em(
    agree: np.ndarray,
    lengths: np.ndarray,
    counts: np.ndarray,
    weights0: np.ndarray,
    beta0: np.ndarray,
    *,
    tolerance: float,
    max_iterations: int,
) -> _Fit:
    """EM for B data sets at once: the distinct matches `agree` (U, K) and `lengths` (U,), each
    data set weighting them by `counts` (B, U) (how often each distinct match occurs in it).
    A data set stops when its log-likelihood changed by at most tolerance * (1 + |loglik|)."""
    miss = lengths[:, None] - agree
    total_rounds = counts @ lengths
    n_matches = counts.sum(axis=1)
    weights, beta = weights0.copy(), beta0.copy()
    loglik, responsibilities = _e_step(agree, miss, lengths, counts, weights, beta)
    converged = np.zeros(len(beta), dtype=bool)
    active = np.arange(len(beta))
    iterations = 0
    while iterations < max_iterations and active.size:
        iterations += 1
        weighted = responsibilities * counts[active, :, None]
        weights[active] = weighted.sum(axis=1) / n_matches[active, None]
        matched = np.einsum("buk,uk->b", weighted, agree)
        beta[active] = np.clip(matched / total_rounds[active], 0.5, 1.0)
        previous = loglik[active]
        loglik[active], responsibilities = _e_step(
            agree, miss, lengths, counts[active], weights[active], beta[active]
        )
        done = np.abs(loglik[active] - previous) <= tolerance * (1 + np.abs(loglik[active]))
        converged[active[done]] = True
        active, responsibilities = active[~done], responsibilities[~done]
    return _Fit(weights, beta, loglik, iterations, converged)


def _single_fits(
    agree: np.ndarray, lengths: np.ndarray, counts: np.ndarray, names: Sequence[str]
) -> tuple[SingleStrategyFit, ...]:
    """Each candidate alone: beta = its share of matched rounds (clamped into [1/2, 1])."""
    total = float(counts @ lengths)
    fits = []
    for k, name in enumerate(names):
        matched = float(counts @ agree[:, k])
        beta = min(1.0, max(0.5, matched / total))
        missed = total - matched
        loglik = matched * np.log(beta) + (missed * np.log1p(-beta) if missed > 0 else 0.0)
        fits.append(SingleStrategyFit(name, beta, float(loglik)))
    return tuple(fits)


def estimate_strategies(
    batch: MatchBatch,
    game: Game | PayoffMatrix,
    candidates: Sequence[str] | None = None,
    *,
    n_bootstrap: int = 200,
    seed: int = 0,
    confidence: float = 0.95,
    tolerance: float = 1e-10,
    max_iterations: int = 5000,
) -> SfemResult:
    """Fit the SFEM mixture to one agent's matches (see the module doc for the model).

    `candidates` defaults to the registered names of DEFAULT_CANDIDATES. `game` gives the payoffs
    that payoff-based rules (WSLS) read. The same batch, candidates and seed give identical output.
    """
    if batch.n_matches == 0:
        raise ValueError("SFEM needs at least one match")
    names = tuple(default_candidates()[0] if candidates is None else candidates)
    if not names:
        raise ConfigError("at least one candidate strategy is needed", field="sfem.candidates")
    if len(set(names)) != len(names):
        raise ConfigError(f"a candidate is listed twice: {list(names)}", field="sfem.candidates")
    prescriptions = candidate_prescriptions(batch, names, game)
    valid = batch.valid()
    agree_all = ((prescriptions == batch.own[None]) & valid[None]).sum(axis=2).T.astype(float)

    # Matches with the same agreement counts and length are interchangeable in the likelihood.
    keys = np.concatenate([agree_all, batch.lengths[:, None].astype(float)], axis=1)
    distinct, inverse = np.unique(keys, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    agree, lengths = distinct[:, :-1], distinct[:, -1]
    n_distinct, n_candidates = agree.shape
    counts = np.bincount(inverse, minlength=n_distinct).astype(float)[None]

    # Starts: uniform weights at three betas, and near each candidate alone at its own beta; the
    # best end point wins (the likelihood need not be unimodal in beta).
    single_fits = _single_fits(agree, lengths, counts[0], names)
    near_vertices = 0.9 * np.eye(n_candidates) + 0.1 / n_candidates
    start_weights = np.vstack(
        [np.full((len(BETA_STARTS), n_candidates), 1.0 / n_candidates), near_vertices]
    )
    start_betas = np.array([*BETA_STARTS, *(min(fit.beta, 0.999) for fit in single_fits)])
    fit = _em(
        agree,
        lengths,
        np.repeat(counts, len(start_betas), axis=0),
        start_weights,
        start_betas,
        tolerance=tolerance,
        max_iterations=max_iterations,
    )
    best = int(np.argmax(fit.loglik))
    polished = polish(agree, lengths, counts[0], fit.weights[best], float(fit.beta[best]))
    weights, beta = polished.weights, polished.beta

    boot_weights, boot_beta, boot_unconverged = _bootstrap(
        agree, lengths, inverse, weights, beta, n_bootstrap, seed, tolerance, max_iterations
    )
    alpha = (1 - confidence) / 2
    if n_bootstrap >= 2:
        weights_se = boot_weights.std(axis=0, ddof=1)
        beta_se = float(boot_beta.std(ddof=1))
        ci_low, ci_high = np.quantile(boot_weights, [alpha, 1 - alpha], axis=0)
    else:
        weights_se = ci_low = ci_high = np.full(n_candidates, np.nan)
        beta_se = float("nan")
    return SfemResult(
        candidates=names,
        weights=weights,
        weights_se=weights_se,
        weights_ci_low=ci_low,
        weights_ci_high=ci_high,
        beta=beta,
        beta_se=beta_se,
        log_likelihood=polished.log_likelihood,
        converged=polished.gradient_norm <= GRADIENT_TOLERANCE * batch.n_matches,
        iterations=fit.iterations,
        n_matches=batch.n_matches,
        n_rounds=batch.n_rounds,
        single_fits=single_fits,
        indistinguishable=indistinguishable(prescriptions, valid, names),
        n_bootstrap=n_bootstrap,
        bootstrap_unconverged=boot_unconverged,
        seed=seed,
        confidence=confidence,
        gradient_norm=polished.gradient_norm,
    )


def _bootstrap(
    agree: np.ndarray,
    lengths: np.ndarray,
    inverse: np.ndarray,
    weights: np.ndarray,
    beta: float,
    n_bootstrap: int,
    seed: int,
    tolerance: float,
    max_iterations: int,
) -> tuple[np.ndarray, np.ndarray, int]:
    """Refit on `n_bootstrap` resamples of the matches (with replacement): weights (B, K), betas
    (B,) and how many fits did not converge."""
    n_distinct, n_candidates = agree.shape
    if n_bootstrap < 1:
        return np.empty((0, n_candidates)), np.empty(0), 0
    rng = np.random.Generator(np.random.PCG64(seed))
    n_matches = len(inverse)
    drawn = rng.integers(0, n_matches, size=(n_bootstrap, n_matches))
    # Warm start from the estimate, mixed with uniform weights: EM cannot revive a zero weight.
    start = 0.9 * weights + 0.1 / n_candidates
    chunk = max(1, _CHUNK_ELEMENTS // max(1, n_distinct * n_candidates))
    boot_weights, boot_beta, unconverged = [], [], 0
    for first in range(0, n_bootstrap, chunk):
        rows = drawn[first : first + chunk]
        counts = np.stack([np.bincount(inverse[r], minlength=n_distinct) for r in rows])
        fit = _em(
            agree,
            lengths,
            counts.astype(float),
            np.tile(start, (len(rows), 1)),
            np.full(len(rows), beta),
            tolerance=tolerance,
            max_iterations=max_iterations,
        )
        boot_weights.append(fit.weights)
        boot_beta.append(fit.beta)
        unconverged += int((~fit.converged).sum())
    return np.concatenate(boot_weights), np.concatenate(boot_beta), unconverged
