"""Comparisons between conditions: no inflated false positives, power for a real difference,
exact small-sample p-values, Holm's correction and the replicates a target precision needs."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from pdbench.analysis.stats.compare import (
    ConditionSample,
    compare_all_pairs,
    compare_to_reference,
    compare_two,
    holm,
    replicates_for_condition,
    replicates_needed,
    samples_from_long,
)


def _cooperation_rates(rng, means, n_replicates, rounds=50, shared_propensity=None):
    """Per-replicate cooperation rates: each replicate's propensity varies around `means`, and the
    rate is the share of C over `rounds` rounds."""
    propensity = (
        shared_propensity
        if shared_propensity is not None
        else np.clip(means + rng.normal(0, 0.15, n_replicates), 0, 1)
    )
    return rng.binomial(rounds, propensity) / rounds


@pytest.mark.parametrize("pairing", ["paired", "unpaired"])
def test_identical_conditions_give_uniform_p_values(pairing):
    p_values = []
    for seed in range(400):
        rng = np.random.default_rng(seed)
        # The same replicate index shares its propensity (common random numbers) when paired.
        propensity = np.clip(0.5 + rng.normal(0, 0.15, 20), 0, 1)
        shared = propensity if pairing == "paired" else None
        a = _cooperation_rates(rng, 0.5, 20, shared_propensity=shared)
        b = _cooperation_rates(rng, 0.5, 20, shared_propensity=shared)
        replicates = np.arange(20) if pairing == "paired" else None
        comparison = compare_two(
            "A",
            ConditionSample(a, replicates),
            "B",
            ConditionSample(b, replicates),
            n_permutations=1000,
            seed=seed,
        )
        assert comparison.test.startswith(pairing)
        p_values.append(comparison.p_value)
    p_values = np.array(p_values)
    # At every level the share of p <= level is the level, within 3.5 binomial standard deviations
    # (5 % of 400 is 20 +- 15). Ties (equal rates in a pair) make p-values near 1 a little more
    # frequent, which is conservative, so levels above 1/2 are not checked.
    for level in (0.01, 0.05, 0.1, 0.2, 0.5):
        count = int((p_values <= level).sum())
        assert abs(count - 400 * level) <= 3.5 * np.sqrt(400 * level * (1 - level)), (level, count)


@pytest.mark.parametrize("pairing", ["auto", "unpaired"])
def test_a_difference_of_0_2_in_cooperation_with_50_replicates_is_detected(pairing):
    rng = np.random.default_rng(1)
    a = _cooperation_rates(rng, 0.4, 50)
    b = _cooperation_rates(rng, 0.6, 50)
    replicates = np.arange(50)
    samples = {"low": ConditionSample(a, replicates), "high": ConditionSample(b, replicates)}
    (comparison,) = compare_all_pairs(samples, pairing=pairing, seed=2)
    assert comparison.p_holm < 0.001
    assert comparison.ci_low <= 0.2 <= comparison.ci_high and comparison.ci_low > 0
    assert comparison.difference == pytest.approx(b.mean() - a.mean())
    assert comparison.test == (
        "paired sign-flip" if pairing == "auto" else "unpaired label permutation"
    )


def test_small_samples_get_exact_permutation_p_values():
    paired = compare_two(
        "A",
        ConditionSample([0.1, 0.2, 0.3], [0, 1, 2]),
        "B",
        ConditionSample([0.5, 0.6, 0.8], [0, 1, 2]),
    )
    # 2^3 sign vectors; only all-plus and all-minus reach |mean difference| >= observed.
    assert paired.p_exact and paired.p_value == pytest.approx(2 / 8) and paired.n_pairs == 3
    unpaired = compare_two(
        "A", ConditionSample([0.0, 0.0, 0.0]), "B", ConditionSample([1.0, 1.0, 1.0])
    )
    # C(6, 3) = 20 splits; the observed one and its mirror are the most extreme.
    assert unpaired.p_exact and unpaired.p_value == pytest.approx(2 / 20)
    assert unpaired.test == "unpaired label permutation" and unpaired.n_pairs is None


def test_pairs_use_the_replicates_both_conditions_have_and_skip_undefined_values():
    a = ConditionSample([0.2, np.nan, 0.4, 0.5], [0, 1, 2, 3])
    b = ConditionSample([0.3, 0.9, 0.6, 0.5, 0.7], [0, 1, 2, 3, 4])
    comparison = compare_two("A", a, "B", b)
    assert comparison.test == "paired sign-flip"
    assert (comparison.n_a, comparison.n_b, comparison.n_pairs) == (3, 5, 3)
    assert comparison.difference == pytest.approx(np.mean([0.1, 0.2, 0.0]))
    with pytest.raises(ValueError, match="at least two replicate indices"):
        compare_two(
            "A", ConditionSample([0.1, 0.2]), "B", ConditionSample([0.3, 0.4]), pairing="paired"
        )


def test_holm_adjusts_step_down_in_input_order():
    np.testing.assert_allclose(holm([0.01, 0.04, 0.03, 0.20]), [0.04, 0.09, 0.09, 0.20])
    np.testing.assert_allclose(holm([0.5, 0.6]), [1.0, 1.0])


def test_reference_comparisons_and_long_format_input():
    rng = np.random.default_rng(3)
    conditions = np.repeat(["base", "persona", "window"], 10)
    values = np.concatenate(
        [rng.random(10) * 0.2, 0.5 + rng.random(10) * 0.2, rng.random(10) * 0.2]
    )
    samples = samples_from_long(conditions, np.tile(np.arange(10), 3), values)
    assert list(samples) == ["base", "persona", "window"]
    family = compare_to_reference(samples, "base", n_permutations=2000)
    assert [(c.condition_a, c.condition_b) for c in family] == [
        ("base", "persona"),
        ("base", "window"),
    ]
    assert family[0].p_holm < 0.01 < family[1].p_holm
    assert all(c.p_holm >= c.p_value for c in family)
    assert len(compare_all_pairs(samples, n_permutations=200)) == 3
    with pytest.raises(KeyError, match="reference condition"):
        compare_to_reference(samples, "nope")


def test_replicates_needed_for_a_half_width_uses_the_normal_approximation():
    # (1.96 * 0.25 / 0.05)^2 = 96.04 -> 97
    assert replicates_needed(0.25) == 97
    assert replicates_needed(0.25, half_width=0.1) == 25
    assert replicates_needed(float("nan")) is None
    sample = ConditionSample(np.array([0.0, 1.0] * 10))
    std = np.std([0.0, 1.0] * 10, ddof=1)
    assert replicates_for_condition(sample) == int(np.ceil((1.959963984540054 * std / 0.05) ** 2))


def test_the_same_seed_gives_byte_identical_comparisons():
    rng = np.random.default_rng(4)
    samples = {name: ConditionSample(rng.random(30), np.arange(30)) for name in "ABC"}
    first = compare_all_pairs(samples, seed=7, n_permutations=500)
    assert pickle.dumps(first) == pickle.dumps(
        compare_all_pairs(samples, seed=7, n_permutations=500)
    )


def test_the_interval_is_t_on_paired_differences_and_welch_unpaired():
    a = ConditionSample([0.1, 0.2, 0.3, 0.25, 0.15, 0.3], np.arange(6))
    b = ConditionSample([0.5, 0.6, 0.8, 0.4, 0.55, 0.7], np.arange(6))
    paired = compare_two("A", a, "B", b)
    d = np.asarray(b.values) - np.asarray(a.values)
    half = 2.570581835636314 * d.std(ddof=1) / np.sqrt(6)  # t(0.975, 5)
    assert paired.interval == "t on paired differences" and paired.df == 5
    assert (paired.ci_low, paired.ci_high) == pytest.approx((d.mean() - half, d.mean() + half))
    unpaired = compare_two("A", a, "B", b, pairing="unpaired")
    va, vb = np.var(a.values, ddof=1) / 6, np.var(b.values, ddof=1) / 6
    df = (va + vb) ** 2 / (va**2 / 5 + vb**2 / 5)
    from scipy import stats

    half = stats.t.ppf(0.975, df) * np.sqrt(va + vb)
    assert unpaired.interval == "Welch t" and unpaired.df == pytest.approx(df)
    assert (unpaired.ci_low, unpaired.ci_high) == pytest.approx(
        (unpaired.difference - half, unpaired.difference + half)
    )


def test_three_replicates_are_flagged_as_too_few_for_an_interval():
    comparison = compare_two(
        "A",
        ConditionSample([0.1, 0.2, 0.3], [0, 1, 2]),
        "B",
        ConditionSample([0.5, 0.6, 0.8], [0, 1, 2]),
    )
    assert comparison.p_floor == pytest.approx(0.25)
    assert any("only 3 pairs" in note and "0.25" in note for note in comparison.notes)
    # t(0.975, 2) = 4.30: 4.30 * sd / sqrt(3) either side, not the range of the three differences
    d = np.array([0.4, 0.4, 0.5])
    half = 4.302652729911275 * d.std(ddof=1) / np.sqrt(3)
    assert (comparison.ci_low, comparison.ci_high) == pytest.approx(
        (d.mean() - half, d.mean() + half)
    )
    assert comparison.ci_high - comparison.ci_low > 2 * (d.max() - d.min())


def test_identical_conditions_under_common_random_numbers_say_zero_variance():
    values = [0.4, 0.7, 0.55, 0.6, 0.5, 0.65]
    same = compare_two(
        "A",
        ConditionSample(values, np.arange(6)),
        "B",
        ConditionSample(values, np.arange(6)),
        shared_streams=True,
    )
    assert same.zero_variance and same.shared_streams
    assert (same.ci_low, same.ci_high) == (0.0, 0.0)
    assert any("zero variance" in note and "common random numbers" in note for note in same.notes)


def test_an_unpaired_test_over_shared_streams_is_warned_about():
    rng = np.random.default_rng(3)
    a = ConditionSample(rng.random(8), np.arange(8))
    b = ConditionSample(rng.random(8), np.arange(8))
    result = compare_two("A", a, "B", b, pairing="unpaired", shared_streams=True)
    assert any("not independent" in note for note in result.notes)
    independent = compare_two("A", a, "B", b, pairing="unpaired", shared_streams=False)
    assert not any("not independent" in note for note in independent.notes)


@pytest.mark.parametrize("pairing", ["paired", "unpaired"])
def test_p_floor_is_that_of_the_random_permutations_when_they_are_fewer_than_all(pairing):
    # Issue 42: 10 pairs have 1,024 sign vectors, more than 1,000 permutations, so the test run
    # draws 1,000 at random and its smallest p is 1 / 1,001, whatever the data. The floor was
    # read off the drawn null instead (0.0170 beside a p of 0.0010).
    rng = np.random.default_rng(3)
    a = rng.normal(0.3, 0.05, 10)
    b = a + 0.5 + rng.normal(0, 0.01, 10)
    result = compare_two(
        "A",
        ConditionSample(a, np.arange(10)),
        "B",
        ConditionSample(b, np.arange(10)),
        pairing=pairing,
        n_permutations=1_000,
    )
    assert not result.p_exact
    assert result.p_floor == pytest.approx(1 / 1_001)
    assert result.p_value >= result.p_floor


def test_p_floor_of_an_enumeration_is_its_most_extreme_share_and_no_p_falls_below_it():
    rng = np.random.default_rng(4)
    for n in (3, 4, 6):
        a = rng.normal(0.3, 0.05, n)
        b = a + rng.normal(0.1, 0.05, n)
        result = compare_two(
            "A", ConditionSample(a, np.arange(n)), "B", ConditionSample(b, np.arange(n))
        )
        assert result.p_exact
        assert result.p_floor == pytest.approx(2 / 2**n)  # the all-+ and all-- sign vectors
        assert result.p_value >= result.p_floor


@pytest.mark.parametrize("pairing", ["paired", "unpaired"])
def test_a_difference_of_rates_stays_within_minus_one_and_one(pairing):
    # Issue 42: a t interval over 3 pairs of cooperation rates reached -1.028.
    a = ConditionSample([0.95, 1.0, 0.7], np.arange(3))
    b = ConditionSample([0.0, 0.05, 0.2], np.arange(3))
    t_only = compare_two("A", a, "B", b, pairing=pairing)
    assert t_only.ci_low < -1  # Student t leaves the range a difference of rates has
    bounded = compare_two("A", a, "B", b, pairing=pairing, rates=True)
    assert -1 <= bounded.ci_low < bounded.difference < bounded.ci_high <= 1
    assert "Wilson" in bounded.interval
    assert any("only 3" in note for note in bounded.notes)  # and it is marked as small-n
