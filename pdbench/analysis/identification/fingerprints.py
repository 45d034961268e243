"""Memory-one fingerprint of an agent: how often it cooperates after each outcome of the last round.

Definitions (x the agent, o its opponent, rounds t = 2..n of every match, pooled over the matches of
the batch):

- P(C | CC) = #{t : x played C at t-1, o played C at t-1, x plays C at t} / #{t : CC at t-1}, and
  likewise P(C | CD), P(C | DC), P(C | DD); the agent's own previous move comes first (CD: x
  cooperated, o defected), as in Payne and Alloui-Cros (2025) and Axelrod's state distribution.
- P(C in round 1) = share of matches whose first move was C.

Each comes with its counts and a 95% Wilson interval; an outcome that never occurred has a NaN rate.
A memory-one strategy has these four numbers as its definition: TFT (1, 0, 1, 0), WSLS (1, 0, 0, 1),
ALLC (1, 1, 1, 1), ALLD (0, 0, 0, 0). GRIM is not memory-one; its fingerprint depends on whom it met.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pdbench.analysis.identification.moves import MatchBatch
from pdbench.analysis.stats.intervals import wilson_interval

OUTCOMES = ("CC", "CD", "DC", "DD")  # (own previous move, opponent's previous move)


@dataclass(frozen=True)
class CooperationRate:
    """cooperations / occasions with its Wilson interval (NaN when there was no occasion)."""

    cooperations: int
    occasions: int
    rate: float
    ci_low: float
    ci_high: float


@dataclass(frozen=True)
class Fingerprint:
    """The memory-one fingerprint of one agent over a batch of matches."""

    after: dict[str, CooperationRate]  # keyed by OUTCOMES
    first_round: CooperationRate
    confidence: float

    def vector(self) -> np.ndarray:
        """(P(C | CC), P(C | CD), P(C | DC), P(C | DD))."""
        return np.array([self.after[outcome].rate for outcome in OUTCOMES])

    def as_row(self) -> dict[str, float | int]:
        """Flat columns for a table: p_c_after_cc (and _ci_low, _ci_high), cooperations_after_cc,
        occasions_after_cc, ... for the four outcomes, then the same for "first" (round 1)."""
        row: dict[str, float | int] = {}
        named = {f"after_{outcome.lower()}": self.after[outcome] for outcome in OUTCOMES}
        named["first"] = self.first_round
        for name, rate in named.items():
            row[f"p_c_{name}"] = rate.rate
            row[f"p_c_{name}_ci_low"] = rate.ci_low
            row[f"p_c_{name}_ci_high"] = rate.ci_high
            row[f"cooperations_{name}"] = rate.cooperations
            row[f"occasions_{name}"] = rate.occasions
        return row


def _rates(
    cooperations: np.ndarray, occasions: np.ndarray, confidence: float
) -> list[CooperationRate]:
    low, high = wilson_interval(cooperations, occasions, confidence)
    return [
        CooperationRate(
            cooperations=int(k),
            occasions=int(n),
            rate=float(k / n) if n > 0 else math.nan,
            ci_low=float(lo),
            ci_high=float(hi),
        )
        for k, n, lo, hi in zip(cooperations, occasions, low, high, strict=True)
    ]


def memory_one_counts(batch: MatchBatch) -> tuple[np.ndarray, np.ndarray]:
    """(cooperations, occasions), each of shape (4,) in OUTCOMES order, pooled over the batch."""
    if batch.longest < 2:
        return np.zeros(4, dtype=np.int64), np.zeros(4, dtype=np.int64)
    has_next = batch.valid()[:, 1:]  # round t-1 is followed by a round t of the same match
    # 0 = CC, 1 = CD, 2 = DC, 3 = DD: own defection counts 2, the opponent's 1.
    state = 2 * (~batch.own[:, :-1]).astype(np.int64) + (~batch.opponent[:, :-1]).astype(np.int64)
    state = state[has_next]
    cooperated = batch.own[:, 1:][has_next]
    occasions = np.bincount(state, minlength=4)
    cooperations = np.bincount(state, weights=cooperated, minlength=4).astype(np.int64)
    return cooperations, occasions


def memory_one_fingerprint(batch: MatchBatch, confidence: float = 0.95) -> Fingerprint:
    """The agent's fingerprint over every match of the batch (definitions in the module doc)."""
    cooperations, occasions = memory_one_counts(batch)
    first_cooperations = int(batch.own[:, 0].sum()) if batch.n_matches else 0
    (first,) = _rates(np.array([first_cooperations]), np.array([batch.n_matches]), confidence)
    return Fingerprint(
        after=dict(zip(OUTCOMES, _rates(cooperations, occasions, confidence), strict=True)),
        first_round=first,
        confidence=confidence,
    )
