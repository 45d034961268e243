"""The comparison interval covers the true difference 95 % of the time at small n, paired and
unpaired, by simulation: known differences, fixed seeds, and a tolerance from the binomial
sampling error of the simulated coverage (so the test is neither flaky nor loose)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pdbench.analysis.stats.compare import ConditionSample, compare_two
from pdbench.analysis.stats.intervals import paired_t_interval, welch_interval

TRIALS = 20_000
# 4 binomial standard errors of a coverage of 0.95 over TRIALS trials: 0.0062. A wrong interval
# (the percentile bootstrap covered 0.875-0.905 at n = 10) is 10+ standard errors away.
TOLERANCE = 4 * math.sqrt(0.95 * 0.05 / TRIALS)


@pytest.mark.parametrize("n", [5, 10, 30])
def test_paired_t_interval_covers_95_percent(n):
    rng = np.random.default_rng(1000 + n)
    true_difference = 0.12
    # Common random numbers: each replicate shares a large component between the conditions.
    shared = rng.normal(0.5, 0.2, (TRIALS, n))
    a = shared + rng.normal(0, 0.05, (TRIALS, n))
    b = shared + true_difference + rng.normal(0, 0.08, (TRIALS, n))
    low, high = paired_t_interval(b - a)
    coverage = float(np.mean((low <= true_difference) & (true_difference <= high)))
    assert abs(coverage - 0.95) <= TOLERANCE, coverage


@pytest.mark.parametrize(("n_a", "n_b"), [(5, 5), (10, 10), (30, 30), (5, 10)])
def test_welch_interval_covers_95_percent_with_unequal_variances(n_a, n_b):
    rng = np.random.default_rng(2000 + n_a + n_b)
    true_difference = -0.2
    a = rng.normal(0.6, 0.05, (TRIALS, n_a))
    b = rng.normal(0.6 + true_difference, 0.15, (TRIALS, n_b))
    interval = welch_interval(a, b)
    coverage = float(
        np.mean((interval.low <= true_difference) & (true_difference <= interval.high))
    )
    assert abs(coverage - 0.95) <= TOLERANCE, coverage


@pytest.mark.parametrize("pairing", ["paired", "unpaired"])
def test_compare_two_reports_the_covering_interval(pairing):
    # Through the public comparison, at n = 5 (where a percentile bootstrap covers about 0.83):
    # 600 trials, so 4 standard errors are 0.036.
    trials, n, true_difference = 600, 5, 0.1
    covered = 0
    for seed in range(trials):
        rng = np.random.default_rng(seed)
        shared = rng.normal(0.5, 0.2, n) if pairing == "paired" else 0.0
        a = shared + rng.normal(0, 0.1, n)
        b = shared + true_difference + rng.normal(0, 0.1, n)
        replicates = np.arange(n) if pairing == "paired" else None
        result = compare_two(
            "A",
            ConditionSample(a, replicates),
            "B",
            ConditionSample(b, replicates),
            pairing=pairing,
            n_permutations=32,
            seed=seed,
        )
        covered += result.ci_low <= true_difference <= result.ci_high
    assert abs(covered / trials - 0.95) <= 4 * math.sqrt(0.95 * 0.05 / trials), covered / trials
