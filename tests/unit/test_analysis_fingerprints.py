"""Memory-one fingerprints: the textbook vectors of memory-one policies from simulated play, the
counts behind them, and Wilson intervals against published values."""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_analysis_play import play_against_random

from pdbench.analysis.identification.fingerprints import (
    OUTCOMES,
    memory_one_counts,
    memory_one_fingerprint,
)
from pdbench.analysis.identification.moves import MatchBatch
from pdbench.analysis.stats.intervals import wilson_interval

NAN = math.nan


@pytest.mark.parametrize(
    ("policy", "expected"),
    [
        ("tft", (1, 0, 1, 0)),
        ("wsls", (1, 0, 0, 1)),
        # ALLC never defects, ALLD never cooperates: the outcomes after their own other move never
        # occur, and their rates are undefined (NaN), never 0.
        ("allc", (1, 1, NAN, NAN)),
        ("alld", (NAN, NAN, 0, 0)),
    ],
)
def test_memory_one_policies_show_their_textbook_vector(policy, expected):
    batch = play_against_random(policy, n_matches=60, n_rounds=40, seed=7)
    fingerprint = memory_one_fingerprint(batch)
    np.testing.assert_array_equal(fingerprint.vector(), np.array(expected, dtype=float))
    for outcome, value in zip(OUTCOMES, expected, strict=True):
        rate = fingerprint.after[outcome]
        if math.isnan(value):
            assert rate.occasions == 0 and math.isnan(rate.ci_low)
        else:
            assert rate.occasions > 100  # RANDOM(0.5) visits every reachable outcome often
            assert rate.ci_low <= rate.rate <= rate.ci_high
    assert fingerprint.first_round.rate == (0.0 if policy == "alld" else 1.0)
    assert fingerprint.first_round.occasions == 60


def test_counts_cover_every_round_after_the_first_of_every_match():
    lengths = np.array([1, 5, 17, 40])
    batch = play_against_random("wsls", n_matches=4, n_rounds=lengths, tremble=0.2, seed=2)
    cooperations, occasions = memory_one_counts(batch)
    assert occasions.sum() == (lengths - 1).sum()
    # Recount by hand over the unpadded rounds of each match.
    expected = np.zeros(4, dtype=int)
    for m, n in enumerate(lengths):
        own, opponent = batch.own[m, :n], batch.opponent[m, :n]
        for t in range(1, n):
            state = OUTCOMES.index(("C" if own[t - 1] else "D") + ("C" if opponent[t - 1] else "D"))
            expected[state] += own[t]
    np.testing.assert_array_equal(cooperations, expected)


def test_a_trembling_tft_is_near_its_vector_within_the_intervals():
    batch = play_against_random("tft", n_matches=200, n_rounds=50, tremble=0.05, seed=4)
    fingerprint = memory_one_fingerprint(batch)
    for outcome, intended in zip(OUTCOMES, (1, 0, 1, 0), strict=True):
        rate = fingerprint.after[outcome]
        expected = 0.95 if intended else 0.05
        assert rate.ci_low <= expected <= rate.ci_high, (outcome, rate)


def test_one_round_matches_have_a_first_move_and_no_transition():
    batch = MatchBatch.from_sequences([[True], [False], [True]], [[False], [False], [True]])
    fingerprint = memory_one_fingerprint(batch)
    assert all(fingerprint.after[o].occasions == 0 for o in OUTCOMES)
    assert fingerprint.first_round.cooperations == 2 and fingerprint.first_round.occasions == 3
    row = fingerprint.as_row()
    assert row["p_c_first"] == pytest.approx(2 / 3) and math.isnan(row["p_c_after_cc"])


def test_wilson_intervals_match_newcombe_1998():
    # Newcombe (1998), Statistics in Medicine 17: 857-872, Table I: 81/263 and 15/148; 0/10.
    low, high = wilson_interval(np.array([81, 15, 0, 10]), np.array([263, 148, 10, 10]))
    np.testing.assert_allclose(low, [0.2553, 0.0624, 0.0, 0.7225], atol=5e-5)
    np.testing.assert_allclose(high, [0.3662, 0.1605, 0.2775, 1.0], atol=5e-5)
