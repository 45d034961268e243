"""Behavioural profile of an agent: niceness, forgiveness, retaliation, troublemaking, emulation.

The five dimensions of Fontana, Pierri and Aiello, "Nicer Than Humans" (ICWSM 2025), after Romero
and Rosokha (2018), computed exactly as the authors' code does
(github.com/NicoloFontana/nicer_than_humans_icwsm25, src/behavioral_analysis/
main_behavioral_dimensions.py), except that a dimension with no occasion in a match is NaN there
instead of 0. Each is computed per match; the agent's value is the mean over the matches where it is
defined (the authors average per-game values the same way).

Notation: x is the agent, o its opponent, rounds t = 1..n of one match, x_t and o_t their moves.

- niceness = 1 if x never defects before o does (x's first D comes strictly after o's first D, or x
  never defects), else 0. A D by both in the same round is not nice. Always defined.
- forgiveness = forgiven / (grudges + penalties). Reading the rounds in order, o's D while x holds
  no grudge opens a grudge (grudges += 1); x's next C closes it (forgiven += 1); while a grudge is
  open, every round t < n in which o plays C and x answers D at t+1 adds a penalty (x kept
  punishing a cooperating opponent). A grudge opened in the last round counts as not forgiven, as
  in the authors' code. NaN when o never defects.
- retaliation (provocability) = #{t < n : o_t = D unprovoked, x_{t+1} = D} / #{t < n : o_t = D
  unprovoked}, where o's D at t is unprovoked when t = 1 or x_{t-1} = C (x did not defect just
  before, so o's D was not itself a retaliation). NaN when o never defects unprovoked.
- troublemaking = (#[x_1 = D] + #{t < n : o_t = C, x_{t+1} = D}) / (1 + #{t < n : o_t = C}): the
  share of defections among the occasions to defect unprovoked (round 1 and every round after o
  cooperated). Always defined.
- emulation = #{t < n : x_{t+1} = o_t} / (n - 1): how often x copies o's previous move. NaN when
  n = 1.

Two estimators (the `estimator` field of every profile row says which):
- "undefined left out" (pdbench's default): a match where a dimension has no occasion is left out
  of that dimension's mean.
- "fontana undefined as 0" (`pdbench analyze --profile fontana`): as the authors' code does, such a
  match scores 0 and every match counts, so their published numbers compare one for one (an audit
  found an ALLD retaliation of 0.833 scored their way where pdbench's way gave 0.979).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pdbench.analysis.identification.moves import MatchBatch
from pdbench.analysis.stats.bounded import rate_summary

DIMENSIONS = ("niceness", "forgiveness", "retaliation", "troublemaking", "emulation")
PDBENCH_PROFILE = "undefined left out"
FONTANA_PROFILE = "fontana undefined as 0"


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator > 0, numerator / np.maximum(denominator, 1), np.nan)


def _first_defection(moves: np.ndarray, valid: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Index of each match's first D (its length when there is none)."""
    defected = ~moves & valid
    return np.where(defected.any(axis=1), defected.argmax(axis=1), lengths)


def niceness(batch: MatchBatch) -> np.ndarray:
    """Per match: 1.0 when the agent never defects before its opponent does, else 0.0."""
    valid = batch.valid()
    own_first = _first_defection(batch.own, valid, batch.lengths)
    opponent_first = _first_defection(batch.opponent, valid, batch.lengths)
    return ((own_first == batch.lengths) | (own_first > opponent_first)).astype(float)


def forgiveness(batch: MatchBatch) -> np.ndarray:
    """Per match: grudges forgiven / (grudges opened + penalties); NaN without a grudge."""
    valid = batch.valid()
    holding = np.zeros(batch.n_matches, dtype=bool)
    grudges = np.zeros(batch.n_matches, dtype=np.int64)
    penalties = np.zeros(batch.n_matches, dtype=np.int64)
    forgiven = np.zeros(batch.n_matches, dtype=np.int64)
    for t in range(batch.longest):
        forgives = valid[:, t] & batch.own[:, t] & holding
        forgiven += forgives
        holding &= ~forgives
        if t + 1 < batch.longest:
            penalties += valid[:, t + 1] & batch.opponent[:, t] & holding & ~batch.own[:, t + 1]
        opens = valid[:, t] & ~batch.opponent[:, t] & ~holding
        grudges += opens
        holding |= opens
    return _ratio(forgiven, grudges + penalties)


def retaliation(batch: MatchBatch) -> np.ndarray:
    """Per match: P(agent D at t+1 | opponent's unprovoked D at t); NaN without one."""
    has_next = batch.valid()[:, 1:]
    own_before = np.ones_like(batch.own[:, :-1])  # round 1 has no previous move: unprovoked
    own_before[:, 1:] = batch.own[:, :-2]
    provoked = ~batch.opponent[:, :-1] & own_before & has_next
    reactions = provoked & ~batch.own[:, 1:]
    return _ratio(reactions.sum(axis=1), provoked.sum(axis=1))


def troublemaking(batch: MatchBatch) -> np.ndarray:
    """Per match: defections among the occasions to defect unprovoked (round 1 and every round
    after an opponent's C)."""
    has_next = batch.valid()[:, 1:]
    occasions = batch.opponent[:, :-1] & has_next
    defections = occasions & ~batch.own[:, 1:]
    return (defections.sum(axis=1) + ~batch.own[:, 0]) / (occasions.sum(axis=1) + 1)


def emulation(batch: MatchBatch) -> np.ndarray:
    """Per match: share of rounds 2..n in which the agent repeats the opponent's previous move."""
    has_next = batch.valid()[:, 1:]
    copies = (batch.own[:, 1:] == batch.opponent[:, :-1]) & has_next
    return _ratio(copies.sum(axis=1), batch.lengths - 1)


_PER_MATCH = {
    "niceness": niceness,
    "forgiveness": forgiveness,
    "retaliation": retaliation,
    "troublemaking": troublemaking,
    "emulation": emulation,
}


@dataclass(frozen=True)
class BehaviouralProfile:
    """Per-match values of each dimension and their summary over the matches where defined."""

    per_match: dict[str, np.ndarray]  # dimension -> (n_matches,); NaN (or 0) where undefined
    summary: dict[str, dict[str, float | int]]  # dimension -> mean, std, n, ci_low, ci_high
    estimator: str = PDBENCH_PROFILE

    def means(self) -> dict[str, float]:
        return {name: float(self.summary[name]["mean"]) for name in DIMENSIONS}


def behavioural_profile(
    batch: MatchBatch, confidence: float = 0.95, *, undefined_as_zero: bool = False
) -> BehaviouralProfile:
    """All five dimensions (module doc) per match, with their mean over the matches where each is
    defined (or, `undefined_as_zero`, over every match with 0 where undefined, as Fontana et al.'s
    code scores it), its n and an interval that stays inside [0, 1] (`analysis.stats.bounded`)."""
    per_match = {name: _PER_MATCH[name](batch) for name in DIMENSIONS}
    if undefined_as_zero:
        per_match = {name: np.nan_to_num(values, nan=0.0) for name, values in per_match.items()}
    return BehaviouralProfile(
        per_match=per_match,
        summary={name: rate_summary(values, confidence) for name, values in per_match.items()},
        estimator=FONTANA_PROFILE if undefined_as_zero else PDBENCH_PROFILE,
    )
