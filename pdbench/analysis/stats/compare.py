"""Comparisons between conditions for one per-replicate metric: differences, t intervals,
permutation tests, Holm correction, and the replicates a target precision needs.

Input: per condition, the metric's value in each replicate (NaN where undefined; left out) and the
replicate indices. The same replicate index means the same seeds in every condition of a run
(common random numbers, CRN), so conditions that share replicate indices are compared *paired*.

For a pair (A, B), the difference is mean(B) - mean(A).

- paired (pairing "auto" when both conditions have at least two replicate indices in common, or
  "paired"): the replicates present in both, d_r = B_r - A_r; the difference is mean(d). The
  permutation test flips the sign of each d_r at random (exact over all 2^n sign vectors when there
  are at most `n_permutations` of them); the interval is Student's t on the differences,
  mean(d) -/+ t(n - 1) sd(d) / sqrt(n).
- unpaired (otherwise, or "unpaired"): all defined values of each; the difference is mean(B) -
  mean(A); the permutation test shuffles the condition labels over the pooled values; the interval
  is Welch's t (unequal variances, Welch-Satterthwaite degrees of freedom). An unpaired analysis
  assumes the two conditions' replicates independent: when the caller says they share random
  streams (`shared_streams=True`), the comparison carries a warning.

Why t and not a bootstrap: a percentile bootstrap of n means undercovers at small n (about 0.88 at
n = 10); t covers 95 % at n = 5, 10, 30. For rates (`rates=True`; t reached -1.028 over three pairs)
the interval is `pdbench.analysis.stats.bounded`'s, t-like inside [-1, 1] and bent to stay in it.
Below SMALL_N replicates a note says no interval means much there and gives `p_floor`; when every
paired difference is the same (identical conditions under CRN) the note says so.

p-values are two-sided, (1 + #{|T*| >= |T|}) / (1 + n_permutations) for random permutations
(Phipson and Smyth 2010; never 0) and the exact share for an enumeration. `p_floor` is the floor
of the test that ran: 1 / (1 + n_permutations) for random permutations, the most extreme share
for an enumeration (2 / 2^n for n nonzero paired differences); no p is below it. Across a family of
comparisons p-values are Holm-corrected (Holm 1979), which controls the family-wise error rate
without assuming independence.

Replicates needed for a CI half-width h: ceil((z s / h)^2), s the observed standard deviation (of
one condition's values, of the paired differences, or sqrt(s_A^2 + s_B^2)); a planning figure.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

import numpy as np

from pdbench.analysis.stats.bounded import (
    paired_rate_difference_interval,
    unpaired_rate_difference_interval,
)
from pdbench.analysis.stats.intervals import (
    normal_quantile_two_sided,
    paired_t_interval,
    welch_interval,
)

Pairing = Literal["auto", "paired", "unpaired"]
SMALL_N = 5  # below this many pairs (or values per condition) no interval means much
PAIRED_INTERVAL = "t on paired differences"
UNPAIRED_INTERVAL = "Welch t"
# For values in [0, 1] (rates): `pdbench.analysis.stats.bounded`, inside [-1, 1].
PAIRED_RATE_INTERVAL = "Wilson (effective n) on paired differences"
UNPAIRED_RATE_INTERVAL = "MOVER of Wilson (effective n), Welch df"


@dataclass(frozen=True)
class ConditionSample:
    """One condition's per-replicate values of a metric (NaN = undefined in that replicate)."""

    values: np.ndarray
    replicates: np.ndarray | None = None  # replicate index of each value; None = unknown

    def defined(self) -> tuple[np.ndarray, np.ndarray | None]:
        values = np.asarray(self.values, dtype=float)
        keep = np.isfinite(values)
        replicates = None if self.replicates is None else np.asarray(self.replicates)[keep]
        return values[keep], replicates


@dataclass(frozen=True)
class Comparison:
    """B against A for one metric; `difference` is mean(B) - mean(A)."""

    condition_a: str
    condition_b: str
    test: str  # "paired sign-flip" or "unpaired label permutation"
    n_a: int
    n_b: int
    n_pairs: int | None  # paired tests only
    mean_a: float
    mean_b: float
    difference: float
    ci_low: float
    ci_high: float
    p_value: float
    p_exact: bool  # True when the permutation distribution was enumerated
    p_holm: float  # filled by the family functions; equals p_value for a lone comparison
    replicates_for_half_width: int | None  # per condition, for the difference's CI half-width
    interval: str = PAIRED_INTERVAL  # how ci_low/ci_high were computed
    df: float = math.nan  # the t interval's degrees of freedom
    p_floor: float = math.nan  # the smallest p-value the permutation test can give
    zero_variance: bool = False  # every difference (or every value) equal: no spread to test
    shared_streams: bool | None = None  # the units share random streams (CRN); None: unknown
    notes: tuple[str, ...] = ()  # what a reader must know to trust (or not) the numbers


def samples_from_long(
    conditions: Sequence[str], replicates: Sequence[int] | None, values: Sequence[float]
) -> dict[str, ConditionSample]:
    """Group long-format rows (one per condition x replicate, as aggregates.parquet keeps them)
    into samples, conditions in order of first appearance."""
    names = np.asarray(conditions, dtype=object)
    values_array = np.asarray(values, dtype=float)
    replicate_array = None if replicates is None else np.asarray(replicates)
    samples = {}
    for name in dict.fromkeys(names.tolist()):
        rows = names == name
        samples[str(name)] = ConditionSample(
            values_array[rows], None if replicate_array is None else replicate_array[rows]
        )
    return samples


def replicates_needed(std: float, half_width: float = 0.05, confidence: float = 0.95) -> int | None:
    """Replicates for a normal-approximation CI of half-width `half_width`: ceil((z s / h)^2).
    None when the standard deviation is unknown (NaN)."""
    if not half_width > 0:
        raise ValueError(f"half_width must be positive, got {half_width}")
    if not math.isfinite(std):
        return None
    z = normal_quantile_two_sided(confidence)
    return max(1, math.ceil((z * std / half_width) ** 2 - 1e-9))


def _p_value(observed: float, null: np.ndarray, exact: bool) -> float:
    # Statistics that equal the observed one up to rounding count as at least as extreme.
    extreme = int(np.sum(np.abs(null) >= abs(observed) - 1e-12 * max(1.0, abs(observed))))
    return extreme / len(null) if exact else (1 + extreme) / (1 + len(null))


def _p_floor(null: np.ndarray, exact: bool) -> float:
    """The smallest p-value the test that ran can give. An enumeration: the share of the
    permutations at least as extreme as the most extreme one (2 / 2^n for n nonzero paired
    differences). Random permutations: 1 / (1 + B), reached when no drawn statistic is as extreme
    as the observed one, whatever the draws (the +1 counts the observed arrangement)."""
    if exact:
        return _p_value(float(np.abs(null).max()), null, exact)
    return 1 / (1 + len(null))


def _small_n_note(n: int, what: str, p_floor: float) -> tuple[str, ...]:
    if n >= SMALL_N:
        return ()
    return (
        f"only {n} {what}: too few for an interval to mean much (it assumes near-normal values "
        f"that {n} cannot show) and the permutation test cannot give p below {p_floor:.3g}; "
        f"run at least {SMALL_N} replicates",
    )


def compare_two(
    name_a: str,
    a: ConditionSample,
    name_b: str,
    b: ConditionSample,
    *,
    pairing: Pairing = "auto",
    n_permutations: int = 10_000,
    confidence: float = 0.95,
    half_width: float = 0.05,
    seed: int = 0,
    shared_streams: bool | None = None,
    rates: bool = False,
) -> Comparison:
    """Compare B with A (module doc); seeded, so the same inputs give the same numbers.
    `shared_streams`: whether the same replicate index ran with the same random draws in both
    conditions (common random numbers); recorded, and warned about when the analysis is unpaired.
    `rates`: the values are in [0, 1], and the interval stays inside [-1, 1]."""
    rng = np.random.Generator(np.random.PCG64(seed))
    values_a, replicates_a = a.defined()
    values_b, replicates_b = b.defined()
    shared = (
        np.intersect1d(replicates_a, replicates_b)
        if replicates_a is not None and replicates_b is not None
        else np.empty(0)
    )
    paired = pairing == "paired" or (pairing == "auto" and len(shared) >= 2)
    if paired:
        if replicates_a is None or replicates_b is None or len(shared) < 2:
            raise ValueError(
                f"a paired comparison of {name_a} and {name_b} needs at least two replicate "
                "indices defined in both"
            )
        settings = _Settings(rng, n_permutations, confidence, half_width, rates)
        result = _paired(name_a, values_a, replicates_a, name_b, values_b, replicates_b, settings)
        return replace(result, shared_streams=shared_streams)
    if len(values_a) < 1 or len(values_b) < 1 or len(values_a) + len(values_b) < 3:
        raise ValueError(f"comparing {name_a} and {name_b} needs at least 3 defined values")
    settings = _Settings(rng, n_permutations, confidence, half_width, rates)
    result = _unpaired(name_a, values_a, name_b, values_b, settings)
    if shared_streams:
        warning = (
            "the conditions share random streams (common random numbers), so their replicates "
            "are not independent as this unpaired test assumes; its p-value and interval are off"
        )
        result = replace(result, notes=(warning, *result.notes))
    return replace(result, shared_streams=shared_streams)


@dataclass(frozen=True)
class _Settings:
    rng: np.random.Generator
    n_permutations: int
    confidence: float
    half_width: float
    rates: bool = False  # values in [0, 1]: the bounded intervals


def _paired(
    name_a: str,
    values_a: np.ndarray,
    replicates_a: np.ndarray,
    name_b: str,
    values_b: np.ndarray,
    replicates_b: np.ndarray,
    settings: _Settings,
) -> Comparison:
    rng = settings.rng
    shared = np.intersect1d(replicates_a, replicates_b)
    by_replicate_a = dict(zip(replicates_a.tolist(), values_a, strict=True))
    by_replicate_b = dict(zip(replicates_b.tolist(), values_b, strict=True))
    if len(by_replicate_a) != len(values_a) or len(by_replicate_b) != len(values_b):
        raise ValueError(f"a replicate index appears twice in {name_a} or {name_b}")
    pair_a = np.array([by_replicate_a[r] for r in shared.tolist()])
    pair_b = np.array([by_replicate_b[r] for r in shared.tolist()])
    differences = pair_b - pair_a
    n = len(differences)
    observed = float(differences.mean())
    exact = 2**n <= settings.n_permutations
    if exact:  # every sign vector once: bit j of row i flips pair j
        signs = 1 - 2 * ((np.arange(2**n)[:, None] >> np.arange(n)) & 1)
    else:
        signs = rng.choice(np.array([-1.0, 1.0]), size=(settings.n_permutations, n))
    null = (signs * differences).mean(axis=1)
    if settings.rates:
        low, high = paired_rate_difference_interval(pair_a, pair_b, settings.confidence)
    else:
        low, high = paired_t_interval(differences, settings.confidence)
    p_value = _p_value(observed, null, exact)
    p_floor = _p_floor(null, exact)
    std = float(differences.std(ddof=1)) if n > 1 else math.nan
    zero_variance = bool(np.all(differences == differences[0]))
    notes = _small_n_note(n, "pairs", p_floor)
    if zero_variance:
        width = " and the interval has no width" if float(high) == float(low) else ""
        same = (
            " (identical values in every shared replicate: under common random numbers the "
            "conditions may simply play the same)"
        )
        notes += (
            f"every paired difference is {differences[0]:.6g}: zero variance, so the test has "
            f"nothing to weigh{width}{same if differences[0] == 0 else ''}",
        )
    return Comparison(
        condition_a=name_a,
        condition_b=name_b,
        test="paired sign-flip",
        n_a=len(values_a),
        n_b=len(values_b),
        n_pairs=n,
        mean_a=float(pair_a.mean()),
        mean_b=float(pair_b.mean()),
        difference=observed,
        ci_low=float(low),
        ci_high=float(high),
        p_value=p_value,
        p_exact=exact,
        p_holm=p_value,
        replicates_for_half_width=replicates_needed(std, settings.half_width, settings.confidence),
        interval=PAIRED_RATE_INTERVAL if settings.rates else PAIRED_INTERVAL,
        df=float(n - 1),
        p_floor=p_floor,
        zero_variance=zero_variance,
        notes=notes,
    )


def _unpaired(
    name_a: str, values_a: np.ndarray, name_b: str, values_b: np.ndarray, settings: _Settings
) -> Comparison:
    rng = settings.rng
    n_a, n_b = len(values_a), len(values_b)
    observed = float(values_b.mean() - values_a.mean())
    pooled = np.concatenate([values_a, values_b])
    n = n_a + n_b
    exact = math.comb(n, n_b) <= settings.n_permutations
    if exact:  # every split of the pooled values into the two sizes once
        in_b = np.zeros((math.comb(n, n_b), n), dtype=bool)
        for row, chosen in enumerate(itertools.combinations(range(n), n_b)):
            in_b[row, list(chosen)] = True
    else:
        in_b = np.argsort(rng.random((settings.n_permutations, n)), axis=1) < n_b
    total = pooled.sum()
    sum_b = in_b @ pooled
    null = sum_b / n_b - (total - sum_b) / n_a
    interval = welch_interval(values_a, values_b, settings.confidence)
    low, high = interval.low, interval.high
    if settings.rates:
        low, high = unpaired_rate_difference_interval(
            values_a, values_b, interval.df, settings.confidence
        )
    p_value = _p_value(observed, null, exact)
    p_floor = _p_floor(null, exact)
    zero_variance = bool(np.all(values_a == values_a[0]) and np.all(values_b == values_b[0]))
    notes = _small_n_note(min(n_a, n_b), "values in a condition", p_floor)
    if n_a < 2 or n_b < 2:
        notes += ("a condition with one value has no spread: no interval",)
    elif zero_variance:
        notes += (
            "every value within each condition is the same: zero variance, no interval width",
        )
    variance = values_a.var(ddof=1) + values_b.var(ddof=1) if n_a > 1 and n_b > 1 else math.nan
    return Comparison(
        condition_a=name_a,
        condition_b=name_b,
        test="unpaired label permutation",
        n_a=n_a,
        n_b=n_b,
        n_pairs=None,
        mean_a=float(values_a.mean()),
        mean_b=float(values_b.mean()),
        difference=observed,
        ci_low=float(low),
        ci_high=float(high),
        p_value=p_value,
        p_exact=exact,
        p_holm=p_value,
        replicates_for_half_width=replicates_needed(
            math.sqrt(variance), settings.half_width, settings.confidence
        ),
        interval=UNPAIRED_RATE_INTERVAL if settings.rates else UNPAIRED_INTERVAL,
        df=float(interval.df),
        p_floor=p_floor,
        zero_variance=zero_variance,
        notes=notes,
    )


def holm(p_values: Sequence[float]) -> np.ndarray:
    """Holm's step-down adjusted p-values, in the input order."""
    p = np.asarray(p_values, dtype=float)
    order = np.argsort(p, kind="stable")
    m = len(p)
    stepped = np.maximum.accumulate((m - np.arange(m)) * p[order])
    adjusted = np.empty(m)
    adjusted[order] = np.minimum(stepped, 1.0)
    return adjusted


def _family(
    pairs: list[tuple[str, str]], samples: Mapping[str, ConditionSample], seed: int, **options: Any
) -> list[Comparison]:
    # Each comparison gets its own stream, derived from the seed and its position in the family.
    streams = np.random.SeedSequence(seed).generate_state(len(pairs), dtype=np.uint64)
    comparisons = [
        compare_two(a, samples[a], b, samples[b], seed=int(stream), **options)
        for (a, b), stream in zip(pairs, streams, strict=True)
    ]
    adjusted = holm([c.p_value for c in comparisons])
    return [replace(c, p_holm=float(p)) for c, p in zip(comparisons, adjusted, strict=True)]


def compare_all_pairs(
    samples: Mapping[str, ConditionSample], *, seed: int = 0, **options: Any
) -> list[Comparison]:
    """Every pair (A, B) with A before B in `samples` order, Holm-corrected as one family.
    `options` are those of `compare_two` (pairing, n_permutations, confidence, half_width,
    shared_streams)."""
    names = list(samples)
    return _family(list(itertools.combinations(names, 2)), samples, seed, **options)


def compare_to_reference(
    samples: Mapping[str, ConditionSample], reference: str, *, seed: int = 0, **options: Any
) -> list[Comparison]:
    """Every other condition (B) against `reference` (A), Holm-corrected as one family."""
    if reference not in samples:
        raise KeyError(f'reference condition "{reference}" is not among {list(samples)}')
    pairs = [(reference, name) for name in samples if name != reference]
    return _family(pairs, samples, seed, **options)


def replicates_for_condition(
    sample: ConditionSample, half_width: float = 0.05, confidence: float = 0.95
) -> int | None:
    """Replicates one condition needs for a CI half-width `half_width` around its mean."""
    values, _ = sample.defined()
    std = float(values.std(ddof=1)) if len(values) > 1 else math.nan
    return replicates_needed(std, half_width, confidence)
