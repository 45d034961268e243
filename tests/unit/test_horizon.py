"""Match length: fixed, or geometric drawn from the match's own seeded horizon stream."""

import numpy as np
import pytest

from pdbench.core.errors import ConfigError
from pdbench.core.horizon import FixedHorizon, GeometricHorizon
from pdbench.core.rng import HORIZON, derive_seed, make_rng


def horizon_rng(replicate: int, run_seed: int = 7) -> np.random.Generator:
    return make_rng(derive_seed(run_seed, replicate, HORIZON))


def test_fixed_horizon_is_always_its_length():
    horizon = FixedHorizon(20)
    assert {horizon.sample_length(horizon_rng(r)) for r in range(50)} == {20}
    assert horizon.sample_length() == 20
    assert (horizon.fixed_n, horizon.max_length, horizon.stop_prob) == (20, 20, None)


def test_one_round_is_a_valid_fixed_horizon():
    assert FixedHorizon(1).sample_length() == 1


@pytest.mark.parametrize("rounds", [0, -1, -20])
def test_fixed_horizon_needs_a_positive_length(rounds):
    with pytest.raises(ConfigError, match=f"got {rounds}") as raised:
        FixedHorizon(rounds)
    assert raised.value.field == "horizon.rounds"


def test_geometric_same_seed_same_length():
    horizon = GeometricHorizon(0.1)
    first = [horizon.sample_length(horizon_rng(r)) for r in range(200)]
    again = [horizon.sample_length(horizon_rng(r)) for r in range(200)]
    assert first == again
    assert len(set(first)) > 10  # and the seeds really do vary the length
    assert (horizon.fixed_n, horizon.max_length) == (None, None)


@pytest.mark.parametrize("stop_prob", [0.05, 0.1, 0.25, 0.5])
def test_geometric_mean_length_is_one_over_stop_prob(stop_prob):
    horizon = GeometricHorizon(stop_prob)
    lengths = np.array([horizon.sample_length(horizon_rng(r)) for r in range(4000)])
    assert lengths.min() >= 1  # the round in progress is always played
    assert lengths.mean() == pytest.approx(1 / stop_prob, rel=0.05)


def test_geometric_max_rounds_caps_the_length():
    capped = GeometricHorizon(0.05, max_rounds=15)
    uncapped = GeometricHorizon(0.05)
    lengths = [capped.sample_length(horizon_rng(r)) for r in range(2000)]
    raw = [uncapped.sample_length(horizon_rng(r)) for r in range(2000)]
    assert max(lengths) == 15
    assert lengths == [min(x, 15) for x in raw]  # the cap cuts; it does not redraw
    assert capped.max_length == 15


@pytest.mark.parametrize("stop_prob", [0, 1, -0.1, 1.5, float("nan")])
def test_geometric_stop_prob_must_be_strictly_between_0_and_1(stop_prob):
    with pytest.raises(ConfigError, match="strictly between 0 and 1") as raised:
        GeometricHorizon(stop_prob)
    assert raised.value.field == "horizon.stop_prob"


@pytest.mark.parametrize("max_rounds", [0, -5])
def test_geometric_max_rounds_must_be_positive(max_rounds):
    with pytest.raises(ConfigError, match=f"got {max_rounds}") as raised:
        GeometricHorizon(0.1, max_rounds=max_rounds)
    assert raised.value.field == "horizon.max_rounds"
