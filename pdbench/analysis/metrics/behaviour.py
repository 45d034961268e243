"""Behavioural metrics of many matches at once (numpy), from stored actions and payoffs only.

Definitions (x an agent, o its opponent, t a round index from 1, n the rounds played):

- cooperation_rate_x: share of rounds in which x played C; cooperation_rate: share of C among all
  2n actions of both agents.
- retaliation_rate_x = #{t >= 2 : o played D at t-1 and x plays D at t} / #{t >= 2 : o played D at t-1}
- forgiveness_rate_x = #{t >= 2 : o played D at t-1 and x plays C at t} / the same denominator.
- exploitability_payoff_gap_a = total payoff of b - total payoff of a (and the mirror for b).
- time_to_collapse: the first t such that rounds t .. t+k-1 all exist and the share of C among
  both agents' 2k actions in them is <= threshold; None when there is no such t.
- cooperation_rate_over_time: per round, the share of C among the two actions.

A rate whose denominator is zero is None, never 0.
"""

from __future__ import annotations

import numpy as np


def many_match_metrics(
    starts: np.ndarray,
    coop_a: np.ndarray,
    coop_b: np.ndarray,
    payoff_a: np.ndarray,
    payoff_b: np.ndarray,
    *,
    collapse_k: int = 10,
    collapse_threshold: float = 0.2,
) -> dict[str, np.ndarray]:
    """`match_metrics` for many matches at once, over their rounds laid end to end.

    `starts` are the offsets where each match begins (every match has at least one round). Rates
    with a zero denominator are NaN. tests/reference_metrics.py holds a plain one-match version
    of every definition, and a test holds the two equal.
    """
    coop_a = np.asarray(coop_a, dtype=bool)
    coop_b = np.asarray(coop_b, dtype=bool)
    n_total = len(coop_a)
    starts = np.asarray(starts, dtype=np.intp)
    ends = np.append(starts[1:], n_total)
    lengths = ends - starts

    def per_match(values: np.ndarray) -> np.ndarray:
        return np.add.reduceat(values, starts)

    def rate(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(denominator > 0, numerator / np.maximum(denominator, 1), np.nan)

    c_a = per_match(coop_a.astype(np.int64))
    c_b = per_match(coop_b.astype(np.int64))
    total_a = per_match(np.asarray(payoff_a, dtype=float))
    total_b = per_match(np.asarray(payoff_b, dtype=float))

    def responses(own: np.ndarray, other: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        provoked = np.zeros(n_total, dtype=bool)
        provoked[1:] = ~other[:-1]
        provoked[starts] = False  # round 1 of a match has no previous round
        denominator = per_match(provoked.astype(np.int64))
        retaliated = per_match((provoked & ~own).astype(np.int64))
        return rate(retaliated, denominator), rate(denominator - retaliated, denominator)

    retaliation_a, forgiveness_a = responses(coop_a, coop_b)
    retaliation_b, forgiveness_b = responses(coop_b, coop_a)

    # time_to_collapse: window sums of joint cooperation via one cumulative sum.
    k = collapse_k
    joint = coop_a.astype(np.int64) + coop_b.astype(np.int64)
    cumulative = np.concatenate(([0], np.cumsum(joint)))
    index = np.arange(n_total)
    match_end = np.repeat(ends, lengths)
    window_end = np.minimum(index + k, n_total)
    window_sum = cumulative[window_end] - cumulative[index]
    collapsed = (index + k <= match_end) & (window_sum <= collapse_threshold * 2 * k + 1e-9)
    first = np.minimum.reduceat(np.where(collapsed, index, n_total), starts)
    time_to_collapse = np.where(first < n_total, first - starts + 1, np.nan)

    return {
        "n_rounds": lengths,
        "total_payoff_a": total_a,
        "total_payoff_b": total_b,
        "cooperation_rate_a": c_a / lengths,
        "cooperation_rate_b": c_b / lengths,
        "cooperation_rate": (c_a + c_b) / (2 * lengths),
        "retaliation_rate_a": retaliation_a,
        "retaliation_rate_b": retaliation_b,
        "forgiveness_rate_a": forgiveness_a,
        "forgiveness_rate_b": forgiveness_b,
        "exploitability_payoff_gap_a": total_b - total_a,
        "exploitability_payoff_gap_b": total_a - total_b,
        "time_to_collapse": time_to_collapse,
    }
