"""Population dynamics: replicator dynamics on the simplex and against closed forms, Moran
fixation against theory (neutral drift, ALLD invading ALLC, TFT resisting ALLD), and Payne's
generations."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from pdbench.analysis.tournaments.dynamics import (
    moran_fixation,
    moran_fixation_probability,
    moran_shares,
    payne_generations,
    replicator_trajectory,
)

R, S, T, P = 3.0, 0.0, 5.0, 1.0


def tft_vs_alld(n_rounds: int) -> np.ndarray:
    """Mean payoff per round over n rounds; types (ALLD, TFT). TFT loses only round 1 to ALLD."""
    return np.array(
        [[P, (T + (n_rounds - 1) * P) / n_rounds], [(S + (n_rounds - 1) * P) / n_rounds, R]]
    )


ALLD_ALLC = np.array([[P, T], [S, R]])  # types (ALLD, ALLC)


def hawk_dove(value: float, cost: float) -> np.ndarray:
    """Maynard Smith's Hawk-Dove: types (hawk, dove)."""
    return np.array([[(value - cost) / 2, value], [0.0, value / 2]])


def test_replicator_dynamics_stay_on_the_simplex():
    rng = np.random.default_rng(0)
    for _ in range(20):
        payoffs = rng.normal(0, 3, size=(5, 5))  # negative entries force the shift
        trajectory = replicator_trajectory(payoffs, rng.random(5), 300)
        assert (trajectory.shares >= 0).all()
        np.testing.assert_allclose(trajectory.shares.sum(axis=1), 1.0, atol=1e-12)
        assert trajectory.shift == pytest.approx(1 - payoffs.min())


def test_constant_fitness_follows_the_closed_form():
    # When type i earns a_i whatever it meets, x_i(t) is proportional to x_i(0) a_i^t.
    fitness = np.array([1.0, 1.5, 2.0])
    start = np.array([0.7, 0.2, 0.1])
    trajectory = replicator_trajectory(np.tile(fitness[:, None], (1, 3)), start, 30)
    t = np.arange(31)[:, None]
    closed_form = start * fitness**t
    np.testing.assert_allclose(
        trajectory.shares, closed_form / closed_form.sum(axis=1, keepdims=True), rtol=1e-12
    )


@pytest.mark.parametrize(("value", "cost"), [(2.0, 4.0), (2.0, 3.0)])
def test_hawk_dove_converges_to_the_mixed_equilibrium_v_over_c(value, cost):
    for hawks in (0.05, 0.95):
        trajectory = replicator_trajectory(hawk_dove(value, cost), [hawks, 1 - hawks], 400)
        assert trajectory.shares[-1, 0] == pytest.approx(value / cost, abs=1e-9)
    # The equilibrium is a rest point.
    rest = replicator_trajectory(hawk_dove(value, cost), [value / cost, 1 - value / cost], 5)
    np.testing.assert_allclose(rest.shares, np.tile(rest.shares[0], (6, 1)), atol=1e-15)


def test_alld_takes_over_the_prisoners_dilemma_under_replicator_dynamics():
    trajectory = replicator_trajectory(ALLD_ALLC, [0.01, 0.99], 200)
    assert np.all(np.diff(trajectory.shares[:, 0]) >= 0) and trajectory.shares[-1, 0] > 0.999


def test_exact_moran_fixation_of_a_neutral_mutant_is_its_share():
    assert moran_fixation_probability(np.ones((2, 2)), 10) == pytest.approx(0.1)
    assert moran_fixation_probability(np.ones((2, 2)), 10, mutants=3) == pytest.approx(0.3)
    assert moran_fixation_probability(ALLD_ALLC, 10, selection_intensity=0.0) == pytest.approx(0.1)


def _within_sampling_error(result, type_index, expected):
    standard_error = np.sqrt(expected * (1 - expected) / result.n_runs)
    observed = result.fixation_probability[type_index]
    assert abs(observed - expected) <= 3 * standard_error, (observed, expected)


def test_a_neutral_mutant_fixes_with_probability_one_over_n():
    result = moran_fixation(np.full((2, 2), 2.0), [1, 9], n_runs=4000, seed=1)
    assert result.unfinished == 0 and result.fixation_counts.sum() == 4000
    _within_sampling_error(result, 0, 1 / 10)


def test_alld_invades_allc():
    result = moran_fixation(ALLD_ALLC, [1, 9], n_runs=2000, seed=2)
    assert result.ci_low[0] > 1 / 10  # selection favours the mutant
    _within_sampling_error(result, 0, moran_fixation_probability(ALLD_ALLC, 10))


def test_tft_resists_alld_when_matches_are_long_enough():
    # One-shot play: ALLD is favoured. Fifty rounds: TFT's lost first round no longer pays ALLD.
    assert moran_fixation_probability(tft_vs_alld(1), 10) > 1 / 10
    long_matches = tft_vs_alld(50)
    assert moran_fixation_probability(long_matches, 10) < 1 / 10
    result = moran_fixation(long_matches, [1, 9], n_runs=2000, seed=3)
    assert result.ci_high[0] < 1 / 10
    _within_sampling_error(result, 0, moran_fixation_probability(long_matches, 10))
    short = moran_fixation(tft_vs_alld(1), [1, 9], n_runs=2000, seed=4)
    assert short.ci_low[0] > 1 / 10


def test_weak_selection_matches_the_exact_probability():
    result = moran_fixation(ALLD_ALLC, [3, 7], selection_intensity=0.1, n_runs=2000, seed=5)
    _within_sampling_error(
        result, 0, moran_fixation_probability(ALLD_ALLC, 10, mutants=3, selection_intensity=0.1)
    )


def test_moran_with_mutation_keeps_shares_on_the_simplex_and_favours_alld():
    shares = moran_shares(ALLD_ALLC, [5, 5], generations=60, mutation_rate=0.01, n_runs=200, seed=0)
    np.testing.assert_allclose(shares.sum(axis=1), 1.0)
    assert shares[0].tolist() == [0.5, 0.5] and shares[-1, 0] > 0.8


def test_moran_refuses_fitness_that_would_go_negative():
    with pytest.raises(ValueError, match="fitness 1 - w \\+ w \\* payoff goes negative"):
        moran_fixation(np.array([[-2.0, 0.0], [0.0, 1.0]]), [1, 9])
    with pytest.raises(ValueError, match="at least 2 individuals"):
        moran_fixation(ALLD_ALLC, [1, 0])


def test_moran_runs_are_byte_reproducible_for_a_seed():
    first = moran_fixation(tft_vs_alld(10), [2, 8], n_runs=500, seed=7)
    assert pickle.dumps(first) == pickle.dumps(
        moran_fixation(tft_vs_alld(10), [2, 8], n_runs=500, seed=7)
    )
    assert not np.array_equal(
        first.steps, moran_fixation(tft_vs_alld(10), [2, 8], n_runs=500, seed=8).steps
    )
    shares = moran_shares(ALLD_ALLC, [5, 5], generations=5, mutation_rate=0.1, n_runs=50, seed=1)
    again = moran_shares(ALLD_ALLC, [5, 5], generations=5, mutation_rate=0.1, n_runs=50, seed=1)
    assert shares.tobytes() == again.tobytes()


# Types (ALLC, ALLD, TFT), 200-round matches: the tournament's payoff matrix.
CLASSIC = np.array([[3, 0, 3], [5, 1, 1.02], [3, 0.995, 3]])


def test_payne_generations_by_hand_with_the_squared_fitness_of_their_code():
    generations = payne_generations(CLASSIC, [2, 2, 2], 2, exponent=2)
    # Generation 1: fitness 1.8, 2.608, 2.198 (mean 2.202); 2 (f / mean)^2 = 1.34, 2.81, 1.99
    # rounds to 1, 3, 2. Generation 2: fitness 1.2, 1.808, 1.797; 1.0 * 0.56, 3 * 1.27, 2 * 1.26
    # rounds to 1, 4, 3: two too many, taken from the least fit present, ALLC then TFT.
    assert generations.counts.tolist() == [[2, 2, 2], [1, 3, 2], [0, 4, 2]]
    np.testing.assert_allclose(generations.fitness[0], [1.8, 2.608, 2.198])
    np.testing.assert_allclose(generations.fitness[1], [1.2, 1.808, 1.797])


def test_payne_generations_keep_the_population_size_and_drop_extinct_types():
    generations = payne_generations(CLASSIC, [10, 1, 10], 15)
    assert (generations.counts.sum(axis=1) == 21).all()
    np.testing.assert_allclose(generations.shares.sum(axis=1), 1.0)
    extinct = generations.counts == 0
    assert np.isnan(generations.fitness[extinct[:-1]]).all()
    # Proportional reproduction (exponent 1) with one ALLD among reciprocators: it cannot grow.
    assert generations.counts[-1, 1] <= 1
