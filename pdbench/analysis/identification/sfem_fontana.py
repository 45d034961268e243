"""Fontana et al.'s strategy estimate: each match fitted on its own, then one vote per match.

pdbench's SFEM (`pdbench.analysis.identification.sfem`) is Dal Bo and Frechette's pooled estimator: one mixture
and one tremble for all of an agent's matches, fitted by maximum likelihood. Fontana, Pierri and
Aiello ("Nicer Than Humans", ICWSM 2025; their sfem_computation.py, `compute_sfem`, adapted from
Romero and Rosokha 2018) fit the same likelihood to each match separately (SLSQP from 50 random
starts) and give the match's vote to the candidate with the largest fitted weight; a candidate's
score is the share of matches it wins. Their candidates are RND, ALLC, ALLD, TFT, STFT, GRIM and
WSLS (`THEIR_CANDIDATES`, the default here). The two estimators can differ by up to 0.5 in a
weight on the same data; this one lets their published numbers be compared one for one. It is
selected with `pdbench analyze --sfem fontana` and its rows say `estimator = fontana per-match`.

Per match m with n_m rounds, a candidate k that agrees with the agent in a_mk rounds fits best at
beta = clip(a_mk / n_m, 1/2, 1) with likelihood beta^a (1 - beta)^(n - a). With a single match the
mixture's likelihood is at most its best component's, so the per-match maximum puts all weight on
the best-fitting candidates and the vote goes to the best fit: computed here in closed form, with
no optimiser and no random start. Two things their code leaves to chance are made definite:
- candidates that tie (the same agreement in that match) share the vote equally; their code gives
  it to whichever the optimiser's random start happened to weight more, so equal shares are its
  expected value;
- RANDOM's likelihood is (1/2)^n, the probability of the agent's moves under RANDOM; their code
  replays RANDOM as one random move sequence per match and scores its chance agreement.
The reported beta is the mean over matches of the winners' per-match betas. No bootstrap: the
spread of the per-match votes gives the standard error (of their mean).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pdbench.analysis.identification.moves import MatchBatch
from pdbench.analysis.identification.prescriptions import candidate_prescriptions
from pdbench.core.game import Game
from pdbench.core.payoff import PayoffMatrix

RANDOM = "random"
ESTIMATOR = "fontana per-match"
# Their candidate set (strategy_utils.get_strategies, URND left out as compute_sfem does).
THEIR_CANDIDATES = ("allc", "alld", "tft", "stft", "grim", "wsls")
# Log-likelihoods within this of the best count as a tie (agreement counts are whole numbers).
_TIE = 1e-9


@dataclass(frozen=True)
class FontanaResult:
    candidates: tuple[str, ...]  # the deterministic candidates, then "random"
    weights: np.ndarray  # (K,) share of the matches each candidate wins (mean per-match vote)
    weights_se: np.ndarray  # (K,) standard error of that mean (NaN with one match)
    per_match_weights: np.ndarray  # (n_matches, K)
    beta: float  # mean over matches of the winning candidates' per-match beta
    n_matches: int


def fontana_candidates(candidates: Sequence[str] | None) -> tuple[str, ...]:
    """The deterministic candidates (their set when None) with RANDOM added last."""
    names = tuple(THEIR_CANDIDATES if candidates is None else candidates)
    return (*(name for name in names if name != RANDOM), RANDOM)


def estimate_per_match(
    batch: MatchBatch, game: Game | PayoffMatrix, candidates: Sequence[str] | None = None
) -> FontanaResult:
    """Fontana et al.'s per-match estimate (module doc) for one agent's matches."""
    if batch.n_matches == 0:
        raise ValueError("the per-match estimate needs at least one match")
    names = fontana_candidates(candidates)
    rules = names[:-1]
    valid = batch.valid()
    lengths = batch.lengths.astype(float)
    if rules:
        prescriptions = candidate_prescriptions(batch, rules, game)
        agree = ((prescriptions == batch.own[None]) & valid[None]).sum(axis=2).T.astype(float)
    else:
        agree = np.empty((batch.n_matches, 0))
    beta = np.clip(agree / lengths[:, None], 0.5, 1.0)
    miss = lengths[:, None] - agree
    with np.errstate(divide="ignore", invalid="ignore"):
        rule_loglik = agree * np.log(beta) + np.where(miss > 0, miss * np.log1p(-beta), 0.0)
    loglik = np.concatenate([rule_loglik, (lengths * np.log(0.5))[:, None]], axis=1)
    betas = np.concatenate([beta, np.full((batch.n_matches, 1), 0.5)], axis=1)
    best = loglik >= loglik.max(axis=1, keepdims=True) - _TIE
    per_match = best / best.sum(axis=1, keepdims=True)
    n = batch.n_matches
    se = per_match.std(axis=0, ddof=1) / np.sqrt(n) if n > 1 else np.full(len(names), np.nan)
    return FontanaResult(
        candidates=names,
        weights=per_match.mean(axis=0),
        weights_se=se,
        per_match_weights=per_match,
        beta=float((per_match * betas).sum(axis=1).mean()),
        n_matches=n,
    )
