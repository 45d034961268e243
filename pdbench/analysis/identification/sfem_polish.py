"""SFEM's last step: from EM's end point to the maximum, and the gradient that says it is one.

EM climbs fast at first and then crawls: where the likelihood is flat (matches against RANDOM(0.5),
weights spread over candidates that agree most of the time) it stopped 2e-4 to 3e-4
log-likelihood units short of the maximum while its relative-change test said "converged", with
weights off by up to 0.006. So EM's end point is polished by a constrained quasi-Newton optimiser
(scipy's SLSQP, on the problem as posed: weights on the simplex, beta in [1/2, 1], exact
gradient), and convergence is judged on the gradient, not on the change per step.

The stationarity measure is the norm of the projected gradient step x - P(x + g), with g the
gradient of the log-likelihood in (weights, beta) and P the Euclidean projection onto the feasible
set (the simplex times [1/2, 1]). It is 0 exactly at a Karush-Kuhn-Tucker point: every weight in
the support has the same partial derivative, none outside it a larger one, and beta is either
interior with zero derivative or at a bound pushing outwards.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pdbench.core.blas import one_blas_thread

# Beta stays this far below 1 while polishing: log(1 - beta) is -inf at 1.
_BETA_CEILING = 1.0 - 1e-12
GRADIENT_TOLERANCE = 1e-5  # per match: a fit converged when |projected gradient| / matches is below


@dataclass(frozen=True)
class Polished:
    weights: np.ndarray
    beta: float
    log_likelihood: float
    gradient_norm: float  # the projected gradient's norm at the returned point (module doc)


def log_likelihood_and_gradient(
    agree: np.ndarray, lengths: np.ndarray, counts: np.ndarray, weights: np.ndarray, beta: float
) -> tuple[float, np.ndarray, float]:
    """(log-likelihood, d/d weights (K,), d/d beta) for distinct matches `agree` (U, K) of
    `lengths` (U,), each occurring `counts` (U,) times."""
    miss = lengths[:, None] - agree
    with np.errstate(divide="ignore", invalid="ignore"):
        log_component = agree * np.log(beta) + np.where(miss > 0, miss * np.log1p(-beta), 0.0)
        top = np.max(np.where(weights[None] > 0, log_component, -np.inf), axis=1)
        top = np.where(np.isfinite(top), top, log_component.max(axis=1))
        scaled = np.exp(log_component - top[:, None])  # (U, K), the largest used is 1
        mixture = scaled @ weights  # (U,)
        loglik = float(counts @ (top + np.log(mixture)))
        grad_weights = (counts / mixture) @ scaled
        slope = agree / beta - np.where(
            miss > 0, miss / (1 - beta), 0.0
        )  # d log component / d beta
        grad_beta = float(counts @ (((scaled * slope) @ weights) / mixture))
    return loglik, grad_weights, grad_beta


def _project_simplex(v: np.ndarray) -> np.ndarray:
    """Euclidean projection onto {x >= 0, sum x = 1} (Held, Wolfe and Crowder 1974)."""
    ordered = np.sort(v)[::-1]
    cumulative = np.cumsum(ordered) - 1
    index = np.arange(1, len(v) + 1)
    last = index[ordered - cumulative / index > 0][-1]
    return np.maximum(v - cumulative[last - 1] / last, 0.0)


def projected_gradient_norm(
    weights: np.ndarray, beta: float, grad_weights: np.ndarray, grad_beta: float
) -> float:
    """|x - P(x + g)| over (weights, beta): 0 exactly at a constrained maximum (module doc)."""
    step_weights = weights - _project_simplex(weights + grad_weights)
    if not np.isfinite(grad_beta):
        grad_beta = 0.0 if beta >= _BETA_CEILING else grad_beta
    step_beta = beta - float(np.clip(beta + grad_beta, 0.5, 1.0))
    return float(np.sqrt(step_weights @ step_weights + step_beta**2))


def polish(
    agree: np.ndarray, lengths: np.ndarray, counts: np.ndarray, weights: np.ndarray, beta: float
) -> Polished:
    """Climb from (weights, beta) to the constrained maximum with SLSQP; the better of the start
    and SLSQP's end point is returned, with its projected gradient norm."""
    start_loglik, grad_weights, grad_beta = log_likelihood_and_gradient(
        agree, lengths, counts, weights, beta
    )
    start = Polished(
        weights,
        beta,
        start_loglik,
        projected_gradient_norm(weights, beta, grad_weights, grad_beta),
    )
    if beta >= _BETA_CEILING or (len(weights) == 1 and beta == 0.5):
        return start  # perfect play (beta 1), or nothing to move
    from scipy.optimize import minimize  # imported when a fit is polished, not with the module

    scale = max(1.0, float(counts.sum()))  # the objective per match keeps SLSQP's steps sane

    def objective(x: np.ndarray) -> tuple[float, np.ndarray]:
        value, gw, gb = log_likelihood_and_gradient(agree, lengths, counts, x[:-1], x[-1])
        return -value / scale, -np.append(gw, gb) / scale

    k = len(weights)
    with one_blas_thread():  # a fit of a few parameters: see pdbench.core.blas
        result = minimize(
            objective,
            np.append(weights, min(beta, _BETA_CEILING)),
            jac=True,
            method="SLSQP",
            bounds=[(0.0, 1.0)] * k + [(0.5, _BETA_CEILING)],
            constraints=[
                {
                    "type": "eq",
                    "fun": lambda x: x[:-1].sum() - 1,
                    "jac": lambda x: np.append(np.ones(k), 0.0),
                }
            ],
            options={"ftol": 1e-15, "maxiter": 1000},
        )
    new_weights = np.clip(result.x[:-1], 0.0, 1.0)
    new_weights /= new_weights.sum()
    new_beta = float(np.clip(result.x[-1], 0.5, 1.0))
    loglik, grad_weights, grad_beta = log_likelihood_and_gradient(
        agree, lengths, counts, new_weights, new_beta
    )
    if not loglik > start.log_likelihood:
        return start
    norm = projected_gradient_norm(new_weights, new_beta, grad_weights, grad_beta)
    return Polished(new_weights, new_beta, loglik, norm)
