"""The metric definitions written plainly for one match: the reference the vectorised
`pdbench.analysis.metrics.behaviour.many_match_metrics` is tested against (tests/unit/test_metrics.py,
tests/integration/test_aggregate.py)."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np


@dataclass(frozen=True, slots=True)
class MatchMetrics:
    n_rounds: int
    total_payoff_a: float
    total_payoff_b: float
    cooperation_rate_a: float | None
    cooperation_rate_b: float | None
    cooperation_rate: float | None
    retaliation_rate_a: float | None
    retaliation_rate_b: float | None
    forgiveness_rate_a: float | None
    forgiveness_rate_b: float | None
    exploitability_payoff_gap_a: float
    exploitability_payoff_gap_b: float
    time_to_collapse: int | None
    cooperation_rate_over_time: list[float]

    def as_dict(self) -> dict:
        return asdict(self)


def _rate(numerator: int, denominator: int) -> float | None:
    return None if denominator == 0 else numerator / denominator


def response_rates(own_coop: np.ndarray, opponent_coop: np.ndarray) -> tuple[float | None, ...]:
    """(retaliation, forgiveness) of the agent whose actions are `own_coop` (True = C)."""
    provoked = ~opponent_coop[:-1]  # o played D at t-1, for t = 2..n
    responses = own_coop[1:][provoked]
    denominator = int(provoked.sum())
    cooperated = int(responses.sum())
    return _rate(denominator - cooperated, denominator), _rate(cooperated, denominator)


def time_to_collapse(
    coop_a: np.ndarray, coop_b: np.ndarray, *, k: int, threshold: float
) -> int | None:
    """First round index t (from 1) starting a k-round window with a joint C share <= threshold."""
    n = len(coop_a)
    if n < k:
        return None
    per_round = coop_a.astype(np.int64) + coop_b.astype(np.int64)
    window_sums = np.convolve(per_round, np.ones(k, dtype=np.int64), mode="valid")
    # Compare counts, not floats: share <= threshold  <=>  count <= threshold * 2k.
    collapsed = np.flatnonzero(window_sums <= threshold * 2 * k + 1e-9)
    return int(collapsed[0]) + 1 if collapsed.size else None


def match_metrics(
    coop_a: np.ndarray,
    coop_b: np.ndarray,
    payoff_a: np.ndarray,
    payoff_b: np.ndarray,
    *,
    collapse_k: int = 10,
    collapse_threshold: float = 0.2,
) -> MatchMetrics:
    """All metrics of one match; `coop_x` are boolean arrays (True = C) in round order."""
    coop_a = np.asarray(coop_a, dtype=bool)
    coop_b = np.asarray(coop_b, dtype=bool)
    n = len(coop_a)
    c_a, c_b = int(coop_a.sum()), int(coop_b.sum())
    total_a, total_b = float(np.sum(payoff_a)), float(np.sum(payoff_b))
    retaliation_a, forgiveness_a = response_rates(coop_a, coop_b) if n else (None, None)
    retaliation_b, forgiveness_b = response_rates(coop_b, coop_a) if n else (None, None)
    over_time = ((coop_a.astype(np.int8) + coop_b.astype(np.int8)) / 2).tolist()
    return MatchMetrics(
        n_rounds=n,
        total_payoff_a=total_a,
        total_payoff_b=total_b,
        cooperation_rate_a=_rate(c_a, n),
        cooperation_rate_b=_rate(c_b, n),
        cooperation_rate=_rate(c_a + c_b, 2 * n),
        retaliation_rate_a=retaliation_a,
        retaliation_rate_b=retaliation_b,
        forgiveness_rate_a=forgiveness_a,
        forgiveness_rate_b=forgiveness_b,
        exploitability_payoff_gap_a=total_b - total_a,
        exploitability_payoff_gap_b=total_a - total_b,
        time_to_collapse=time_to_collapse(
            coop_a, coop_b, k=collapse_k, threshold=collapse_threshold
        ),
        cooperation_rate_over_time=over_time,
    )
