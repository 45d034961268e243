"""Strategy frequency estimation: every deterministic registered policy is identified as itself,
a known mixture is recovered within its bootstrap error, and the candidate set is checked."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from test_analysis_play import PD, concatenate, play_against_random

from pdbench.analysis.identification.moves import MatchBatch
from pdbench.analysis.identification.prescriptions import (
    DEFAULT_CANDIDATES,
    candidate_prescriptions,
    default_candidates,
)
from pdbench.analysis.identification.sfem import estimate_strategies
from pdbench.core.errors import ConfigError
from pdbench.strategies import POLICIES, make_policy


def _deterministic_policies() -> list[str]:
    """Registered policies whose moves do not depend on their seeds (gtft's do)."""
    batch = play_against_random("allc", n_matches=20, n_rounds=30, seed=0)
    names = []
    for name in sorted(POLICIES):
        try:
            candidate_prescriptions(batch, [name], PD)
        except ConfigError:
            continue
        names.append(name)
    return names


@pytest.mark.parametrize("policy", _deterministic_policies())
def test_each_deterministic_policy_against_random_is_identified_as_itself(policy):
    batch = play_against_random(policy, n_matches=40, n_rounds=50, p_cooperate=0.5, seed=11)
    candidates = list(dict.fromkeys([*default_candidates()[0], policy]))
    result = estimate_strategies(batch, PD, candidates, n_bootstrap=50, seed=1)
    assert result.weight(policy) >= 0.95, dict(zip(result.candidates, result.weights, strict=True))
    assert result.nearest.strategy == policy
    assert result.beta == 1.0 and result.nearest.log_likelihood == 0.0
    assert result.converged


def test_a_60_40_mixture_of_tft_and_alld_with_5_percent_tremble_is_recovered():
    tft = play_against_random("tft", n_matches=180, n_rounds=40, tremble=0.05, seed=21)
    alld = play_against_random("alld", n_matches=120, n_rounds=40, tremble=0.05, seed=22)
    result = estimate_strategies(concatenate(tft, alld), PD, n_bootstrap=100, seed=3)
    for name, truth in (("tft", 0.6), ("alld", 0.4)):
        k = result.candidates.index(name)
        assert abs(result.weights[k] - truth) <= 2.5 * result.weights_se[k], (name, result)
        assert result.weights_ci_low[k] <= truth <= result.weights_ci_high[k]
    assert abs(result.tremble - 0.05) <= 2.5 * result.beta_se
    assert result.weights.sum() == pytest.approx(1.0)
    assert result.bootstrap_unconverged == 0
    # The mixture explains the data at least as well as its best single strategy.
    assert result.log_likelihood >= result.nearest.log_likelihood
    assert result.nearest.strategy == "tft"


def test_candidates_replay_the_observed_history_so_grim_triggers_on_the_real_defection():
    # The agent keeps cooperating after the opponent's D in round 2: GRIM, replayed on what
    # happened, prescribes D from round 3 on; TFT copies the opponent's moves.
    batch = MatchBatch.from_sequences([[True] * 5], [[True, False, True, True, True]])
    grim, tft = candidate_prescriptions(batch, ["grim", "tft"], PD)[:, 0]
    assert grim.tolist() == [True, True, False, False, False]
    assert tft.tolist() == [True, True, False, True, True]


def test_wsls_reads_the_payoffs_of_the_game_it_is_given():
    # After (D, C) the agent earned T: WSLS stays with D in every PD.
    batch = MatchBatch.from_sequences([[False, False]], [[True, True]])
    (wsls,) = candidate_prescriptions(batch, ["wsls"], PD)[:, 0]
    assert wsls.tolist() == [True, False]


def test_default_candidates_are_the_registered_ones_of_the_issue_list(monkeypatch):
    used, missing = default_candidates()
    assert sorted(used + missing) == sorted(DEFAULT_CANDIDATES)
    assert used == [name for name in DEFAULT_CANDIDATES if name in used]  # the issue's order
    assert set(used) <= set(POLICIES) and not set(missing) & set(POLICIES)
    monkeypatch.delitem(POLICIES, "wsls")
    assert "wsls" in default_candidates()[1]
    batch = play_against_random("tft", n_matches=5, n_rounds=10, seed=0)
    assert "wsls" not in estimate_strategies(batch, PD, n_bootstrap=0).candidates


def test_unknown_and_stochastic_candidates_are_refused_by_name():
    batch = play_against_random("tft", n_matches=10, n_rounds=20, seed=0)
    with pytest.raises(ConfigError, match='unknown policy "tfft" \\(did you mean "tft"\\?\\)'):
        estimate_strategies(batch, PD, ["allc", "tfft"])
    with pytest.raises(ConfigError, match='"gtft" is stochastic'):
        estimate_strategies(batch, PD, ["allc", "gtft"])
    with pytest.raises(ConfigError, match="listed twice"):
        estimate_strategies(batch, PD, ["tft", "allc", "tft"])


def test_a_policy_flagged_stochastic_is_refused_without_replaying_it(monkeypatch):
    monkeypatch.setattr(type(make_policy("tft", PD)), "stochastic", True, raising=False)
    batch = play_against_random("tft", n_matches=3, n_rounds=5, seed=0)
    with pytest.raises(ConfigError, match='"tft" is stochastic'):
        estimate_strategies(batch, PD, ["tft"])


def test_candidates_that_always_agreed_are_reported_as_indistinguishable():
    # Against an opponent who always cooperates, ALLC, TFT, GRIM and WSLS prescribe the same moves.
    batch = play_against_random("allc", n_matches=10, n_rounds=20, p_cooperate=1.0, seed=0)
    result = estimate_strategies(batch, PD, ["alld", "allc", "tft", "grim", "wsls"], n_bootstrap=0)
    assert result.indistinguishable == (("allc", "tft", "grim", "wsls"),)
    assert result.weights[1:].sum() == pytest.approx(1.0)
    assert np.isnan(result.weights_se).all()


def test_the_same_seed_gives_byte_identical_results():
    batch = concatenate(
        play_against_random("tft", n_matches=30, n_rounds=30, tremble=0.1, seed=5),
        play_against_random("grim", n_matches=20, n_rounds=25, tremble=0.1, seed=6),
    )
    first = estimate_strategies(batch, PD, n_bootstrap=40, seed=9)
    again = estimate_strategies(batch, PD, n_bootstrap=40, seed=9)
    assert pickle.dumps(first) == pickle.dumps(again)
    other = estimate_strategies(batch, PD, n_bootstrap=40, seed=10)
    assert not np.array_equal(first.weights_se, other.weights_se)
