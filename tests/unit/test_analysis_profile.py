"""Behavioural profile: the vectorised dimensions equal a plain per-match reading of their
definitions, a worked example, and the values classic policies must have."""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_analysis_play import play_against_random

from pdbench.analysis.identification.moves import MatchBatch
from pdbench.analysis.identification.profile import DIMENSIONS, behavioural_profile


def _reference(own: list[bool], opponent: list[bool]) -> dict[str, float]:
    """The five dimensions of one match, read off their definitions one round at a time."""
    n = len(own)
    own_first = next((t for t in range(n) if not own[t]), n)
    opponent_first = next((t for t in range(n) if not opponent[t]), n)
    nice = 1.0 if own_first == n or own_first > opponent_first else 0.0

    holding, grudges, penalties, forgiven = False, 0, 0, 0
    for t in range(n):
        if holding and own[t]:
            forgiven, holding = forgiven + 1, False
        if holding and t + 1 < n and opponent[t] and not own[t + 1]:
            penalties += 1
        if not holding and not opponent[t]:
            grudges, holding = grudges + 1, True

    unprovoked = [t for t in range(n - 1) if not opponent[t] and (t == 0 or own[t - 1])]
    after_cooperation = [t for t in range(n - 1) if opponent[t]]

    def share(hits: int, occasions: int) -> float:
        return hits / occasions if occasions else math.nan

    return {
        "niceness": nice,
        "forgiveness": share(forgiven, grudges + penalties),
        "retaliation": share(sum(not own[t + 1] for t in unprovoked), len(unprovoked)),
        "troublemaking": ((not own[0]) + sum(not own[t + 1] for t in after_cooperation))
        / (1 + len(after_cooperation)),
        "emulation": share(sum(own[t + 1] == opponent[t] for t in range(n - 1)), n - 1),
    }


def test_vectorised_dimensions_equal_the_definitions_match_by_match():
    rng = np.random.default_rng(5)
    lengths = rng.integers(1, 25, size=300)
    own = [list(rng.random(n) < rng.random()) for n in lengths]
    opponent = [list(rng.random(n) < rng.random()) for n in lengths]
    profile = behavioural_profile(MatchBatch.from_sequences(own, opponent))
    for m in range(len(lengths)):
        expected = _reference(own[m], opponent[m])
        for name in DIMENSIONS:
            got = profile.per_match[name][m]
            assert got == pytest.approx(expected[name], nan_ok=True), (m, name)


def test_a_worked_example():
    #            round: 1  2  3  4  5  6
    own = [c == "C" for c in "CCDDCC"]
    opponent = [c == "C" for c in "CDDCCD"]
    profile = behavioural_profile(MatchBatch.from_sequences([own], [opponent]))
    values = {name: float(profile.per_match[name][0]) for name in DIMENSIONS}
    # Nice: its first D (round 3) follows the opponent's (round 2). One grudge opened in round 2
    # is forgiven in round 5; the one opened in round 6 cannot be: 1/2. Both of the opponent's
    # D in rounds 2 and 3 were unprovoked and answered with D. No D after an opponent's C. Every
    # move from round 2 on copies the opponent's previous move.
    assert values == {
        "niceness": 1.0,
        "forgiveness": 0.5,
        "retaliation": 1.0,
        "troublemaking": 0.0,
        "emulation": 1.0,
    }


@pytest.mark.parametrize(
    ("policy", "expected"),
    [
        ("tft", {"niceness": 1, "retaliation": 1, "troublemaking": 0, "emulation": 1}),
        ("grim", {"niceness": 1, "forgiveness": 0, "retaliation": 1, "troublemaking": None}),
        ("alld", {"niceness": 0, "forgiveness": 0, "retaliation": 1, "troublemaking": 1}),
        ("allc", {"niceness": 1, "retaliation": 0, "troublemaking": 0}),
    ],
)
def test_classic_policies_against_random_have_their_defining_values(policy, expected):
    batch = play_against_random(policy, n_matches=50, n_rounds=30, seed=8)
    means = behavioural_profile(batch).means()
    for name, value in expected.items():
        if value is not None:
            assert means[name] == value, (name, means[name])
    # TFT and ALLC forgive every grudge but one still open when the match ends: in long matches
    # that one weighs little.
    if policy in ("tft", "allc"):
        long = play_against_random(policy, n_matches=20, n_rounds=300, seed=8)
        assert 0.97 < behavioural_profile(long).means()["forgiveness"] < 1


def test_undefined_dimensions_are_nan_and_left_out_of_the_mean():
    # Match 1: the opponent never defects (no grudge, no provocation); match 2: one round.
    batch = MatchBatch.from_sequences([[True, True, True], [False]], [[True] * 3, [True]])
    profile = behavioural_profile(batch)
    assert np.isnan(profile.per_match["forgiveness"]).all()
    assert np.isnan(profile.per_match["retaliation"]).all()
    assert math.isnan(profile.per_match["emulation"][1])
    assert profile.summary["emulation"]["n"] == 1 and profile.summary["emulation"]["mean"] == 1.0
    assert profile.summary["forgiveness"]["n"] == 0 and math.isnan(profile.means()["forgiveness"])
    assert profile.per_match["troublemaking"].tolist() == [0.0, 1.0]
