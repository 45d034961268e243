"""Issue 42: every interval pdbench reports covers its nominal 95 % within simulation error, by
simulation in the regimes it is meant for (the wider sweep, with more trials and the regimes
where an interval does not reach nominal, is benchmarks/interval_coverage.py; docs/metrics.md
gives its numbers).

Each case draws TRIALS samples with a known truth, vectorised and seeded. The tolerance is 4
binomial standard errors of a 0.95 coverage over TRIALS (0.0097 at 8,000): an interval that
covers 0.90, or 0.935, fails; so does one that covers 0.965 or more (too wide to be called
nominal), except where the docs say an interval is conservative (rates piled up at 0 or 1, where
the sample cannot show the spread a [0, 1] value may have), which is checked one-sided.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import expit, logit

from pdbench.analysis.judging.kappa import (
    MEASURED_COVERAGE,
    cohen_kappa,
    cohen_rows,
    fleiss_kappa,
    fleiss_rows,
    kappa_with_interval,
)
from pdbench.analysis.stats.bounded import (
    paired_rate_difference_interval,
    rate_mean_interval,
    unpaired_rate_difference_interval,
)
from pdbench.analysis.stats.intervals import welch_interval
from pdbench.analysis.stats.lengths import geometric_length_interval

TRIALS = 8_000
TOLERANCE = 4 * math.sqrt(0.95 * 0.05 / TRIALS)
CONSERVATIVE_AT_MOST = 0.99  # near 0 or 1: at least nominal, and not the whole range


def _coverage(low: np.ndarray, high: np.ndarray, truth: float) -> float:
    return float(np.mean((low <= truth) & (truth <= high)))


# --- n_rounds under a geometric horizon ----------------------------------------------------------


@pytest.mark.parametrize("n", [3, 10])
@pytest.mark.parametrize("stop_prob", [0.1, 0.3, 0.02])
def test_geometric_length_interval_covers_the_mean_length(n, stop_prob):
    rng = np.random.default_rng(int(1000 * stop_prob) + n)
    lengths = rng.geometric(stop_prob, (TRIALS, n))
    low, high = geometric_length_interval(lengths)
    assert np.all(low >= 1)
    coverage = _coverage(low, high, 1 / stop_prob)
    assert abs(coverage - 0.95) <= TOLERANCE, coverage


@pytest.mark.parametrize("n", [3, 10])
def test_capped_geometric_length_interval_covers_the_capped_mean(n):
    # stop 0.1 capped at 20: 13.5 % of matches reach the cap; the mean is (1 - 0.9^20) / 0.1.
    rng = np.random.default_rng(20 + n)
    lengths = np.minimum(rng.geometric(0.1, (TRIALS, n)), 20)
    low, high = geometric_length_interval(lengths, max_rounds=20)
    assert np.all((low >= 1) & (high <= 20))
    coverage = _coverage(low, high, (1 - 0.9**20) / 0.1)
    assert abs(coverage - 0.95) <= TOLERANCE, coverage


def test_the_clipped_t_interval_fails_this_test():
    # The check above has the power the issue asks for: Student t over 3 geometric lengths,
    # clipped at the longest, covers far below 0.95.
    rng = np.random.default_rng(7)
    lengths = rng.geometric(0.1, (TRIALS, 3)).astype(float)
    half = 4.302652729911275 * lengths.std(axis=1, ddof=1) / math.sqrt(3)
    low = np.maximum(lengths.mean(axis=1) - half, 1)
    high = np.minimum(lengths.mean(axis=1) + half, lengths.max(axis=1))
    assert _coverage(low, high, 10.0) < 0.95 - 3 * TOLERANCE


# --- rates: a condition's mean and differences of conditions -------------------------------------


def _match_rates(rng, mean, latent, rounds):
    """Per-match rates: each match's propensity on the logit scale (a replicate effect `latent`
    shared with a paired condition plus its own), then `rounds` Bernoulli rounds."""
    own = rng.normal(0, 0.3, latent.shape)
    return rng.binomial(rounds, expit(logit(mean) + 0.8 * latent + own)) / rounds


def _true_mean(mean, seed=99, draws=2_000_000):
    rng = np.random.default_rng(seed)
    return float(
        expit(logit(mean) + 0.8 * rng.normal(size=draws) + rng.normal(0, 0.3, draws)).mean()
    )


def _check(coverage: float, conservative: bool) -> None:
    if conservative:
        assert 0.95 - TOLERANCE <= coverage <= CONSERVATIVE_AT_MOST, coverage
    else:
        assert abs(coverage - 0.95) <= TOLERANCE, coverage


# 0.85 at 3 replicates measures 0.958 over 20,000 trials: a shade conservative, from the samples
# whose three rates are all 1 (the widest interval), so it is checked one-sided.
RATE_REGIMES = [(n, 0.5, False) for n in (3, 5, 10)] + [
    (3, 0.85, True),
    (5, 0.85, False),
    (10, 0.85, False),
    *((n, 0.95, True) for n in (3, 5, 10)),
]


@pytest.mark.parametrize(("n", "mean", "conservative"), RATE_REGIMES)
def test_rate_mean_interval_covers_and_stays_in_zero_one(n, mean, conservative):
    rng = np.random.default_rng(100 * n + int(100 * mean))
    rates = _match_rates(rng, mean, rng.normal(size=(TRIALS, n)), rounds=20)
    low, high = rate_mean_interval(rates)
    assert np.all((low >= 0) & (high <= 1))
    _check(_coverage(low, high, _true_mean(mean)), conservative)


@pytest.mark.parametrize("n", [3, 5, 10])
@pytest.mark.parametrize(
    ("mean_a", "mean_b", "conservative"), [(0.5, 0.6, False), (0.9, 0.3, False), (0.95, 0.05, True)]
)
def test_paired_rate_difference_covers_and_stays_in_minus_one_one(n, mean_a, mean_b, conservative):
    # Common random numbers: replicate r of both conditions shares its latent draw.
    rng = np.random.default_rng(7 * n + int(100 * mean_a) + int(10 * mean_b))
    latent = rng.normal(size=(TRIALS, n))
    a = _match_rates(rng, mean_a, latent, rounds=10)
    b = _match_rates(rng, mean_b, latent, rounds=10)
    low, high = paired_rate_difference_interval(a, b)
    assert np.all((low >= -1) & (high <= 1))
    _check(_coverage(low, high, _true_mean(mean_b) - _true_mean(mean_a)), conservative)


@pytest.mark.parametrize("n", [5, 10])
@pytest.mark.parametrize(("mean_a", "mean_b"), [(0.5, 0.6), (0.9, 0.3)])
def test_unpaired_rate_difference_covers_and_stays_in_minus_one_one(n, mean_a, mean_b):
    rng = np.random.default_rng(11 * n + int(100 * mean_a))
    a = _match_rates(rng, mean_a, rng.normal(size=(TRIALS, n)), rounds=10)
    b = _match_rates(rng, mean_b, rng.normal(size=(TRIALS, n)), rounds=10)
    low, high = unpaired_rate_difference_interval(a, b, welch_interval(a, b).df)
    assert np.all((low >= -1) & (high <= 1))
    coverage = _coverage(low, high, _true_mean(mean_b) - _true_mean(mean_a))
    assert abs(coverage - 0.95) <= TOLERANCE, coverage


# --- kappas --------------------------------------------------------------------------------------

KAPPA_TRIALS = 2_000
KAPPA_TOLERANCE = 4 * math.sqrt(0.95 * 0.05 / KAPPA_TRIALS)  # 0.019


def _panels(rng, trials, items, judges, prevalence, accuracy):
    """Judges who each give an item's true class with probability `accuracy`: (trials, items,
    judges) verdict codes."""
    truth = rng.random((trials, items)) < prevalence
    right = rng.random((trials, items, judges)) < accuracy
    return np.where(right, truth[..., None], ~truth[..., None]).astype(int)


def _kappa_coverage(kind, items, prevalence, accuracy, seed, judges=None):
    judges = judges or (2 if kind == "cohen" else 3)
    big = _panels(np.random.default_rng(0), 1, 400_000, judges, prevalence, accuracy)[0]
    if kind == "cohen":
        truth = cohen_kappa(big[:, 0], big[:, 1])
    else:
        truth = fleiss_kappa(np.stack([(big == c).sum(axis=1) for c in (0, 1)], axis=1))
    covered = defined = 0
    for panel in _panels(
        np.random.default_rng(seed), KAPPA_TRIALS, items, judges, prevalence, accuracy
    ):
        if kind == "cohen":
            kappa = kappa_with_interval(
                lambda rows, p=panel: cohen_rows(p[rows, 0], p[rows, 1]), items
            )
        else:
            counts = np.stack([(panel == c).sum(axis=1) for c in (0, 1)], axis=1)
            kappa = kappa_with_interval(lambda rows, c=counts: fleiss_rows(c[rows]), items)
        if math.isnan(kappa.low):
            continue  # every verdict one category: no kappa to cover with
        defined += 1
        covered += kappa.low <= truth <= kappa.high
    return covered / defined


@pytest.mark.parametrize("kind", ["cohen", "fleiss"])
def test_kappa_interval_covers_at_40_items(kind):
    # Judges right 85 % of the time on a 50/50 split: kappa 0.49 (80 items too in
    # benchmarks/interval_coverage.py).
    coverage = _kappa_coverage(kind, 40, 0.5, 0.85, seed=40)
    assert abs(coverage - 0.95) <= KAPPA_TOLERANCE, coverage


@pytest.mark.parametrize(
    ("kind", "prevalence", "accuracy", "judges"),
    [
        ("cohen", 0.5, 0.85, 2),
        ("cohen", 0.5, 0.7, 2),
        ("fleiss", 0.2, 0.95, 3),
        ("fleiss", 0.5, 0.7, 5),
    ],
)
def test_kappa_interval_at_16_items_covers_within_its_stated_band(
    kind, prevalence, accuracy, judges
):
    # At 16 items the interval is not nominal everywhere (Cohen's at kappa 0.49: 0.933 over
    # 10,000 panels): the band printed beside every kappa (MEASURED_COVERAGE) holds, for
    # moderate and weak agreement, a skewed split, and 5 judges agreeing weakly (where the
    # percentile bootstrap covered 0.86-0.88).
    low, high = (float(x) for x in MEASURED_COVERAGE.split("-"))
    coverage = _kappa_coverage(kind, 16, prevalence, accuracy, int(100 * accuracy), judges)
    assert low - KAPPA_TOLERANCE <= coverage <= high + KAPPA_TOLERANCE, coverage
