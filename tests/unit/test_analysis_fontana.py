"""Fontana et al.'s variant: each match fitted alone with RANDOM among the candidates, one vote
per match for the best fit (shared on ties), and undefined profile dimensions scored 0. A recorded
fixture (tests/fixtures/fontana_sfem) holds matches and the scores their per-match procedure
gives; this test recomputes them with a plain loop reimplementation and holds pdbench's
`--sfem fontana` / `--profile fontana` to them."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from pdbench.analysis.identification.moves import MatchBatch
from pdbench.analysis.identification.profile import behavioural_profile
from pdbench.analysis.identification.sfem import estimate_strategies
from pdbench.analysis.identification.sfem_fontana import estimate_per_match
from pdbench.games.tables import GAMES

FIXTURE = Path(__file__).parents[1] / "fixtures" / "fontana_sfem" / "matches.json"


def _rule_moves(rule: str, own: str, opponent: str) -> str:
    """What a rule would have played in every round, given the observed history."""
    moves = []
    for t in range(len(own)):
        if rule == "allc":
            move = "C"
        elif rule == "alld":
            move = "D"
        elif rule == "tft":
            move = "C" if t == 0 else opponent[t - 1]
        elif rule == "grim":
            move = "D" if "D" in opponent[:t] else "C"
        elif rule == "wsls":  # stay after R or T (the opponent cooperated), shift after S or P
            move = (
                "C"
                if t == 0
                else (own[t - 1] if opponent[t - 1] == "C" else ("D" if own[t - 1] == "C" else "C"))
            )
        else:
            raise AssertionError(rule)
        moves.append(move)
    return "".join(moves)


def _their_weights(matches, candidates) -> list[float]:
    """Per match: each candidate's best likelihood (beta = share of agreeing rounds, at least
    1/2), RANDOM's (1/2)^n; the match's vote to the best (shared on ties); then the share of
    matches each candidate wins."""
    totals = [0.0] * len(candidates)
    for match in matches:
        own, opponent = match["own"], match["opponent"]
        n = len(own)
        fits = []
        for name in candidates:
            if name == "random":
                fits.append(n * math.log(0.5))
                continue
            agree = sum(a == b for a, b in zip(own, _rule_moves(name, own, opponent), strict=True))
            beta = max(0.5, agree / n)
            fits.append(
                agree * math.log(beta) + ((n - agree) * math.log(1 - beta) if agree < n else 0)
            )
        best = max(fits)
        winners = [k for k, fit in enumerate(fits) if fit >= best - 1e-9]
        for k in winners:
            totals[k] += 1 / len(winners)
    return [total / len(matches) for total in totals]


def _their_retaliation(own: str, opponent: str) -> float:
    reactions = provocations = 0
    for t in range(len(own) - 1):
        if opponent[t] == "D" and (t == 0 or own[t - 1] == "C"):
            provocations += 1
            reactions += own[t + 1] == "D"
    return reactions / provocations if provocations else 0.0


def _batch(matches) -> MatchBatch:
    return MatchBatch.from_sequences(
        [[move == "C" for move in m["own"]] for m in matches],
        [[move == "C" for move in m["opponent"]] for m in matches],
    )


@pytest.fixture(scope="module")
def recorded():
    return json.loads(FIXTURE.read_text())


def test_the_recorded_weights_are_what_their_per_match_procedure_gives(recorded):
    weights = _their_weights(recorded["matches"], recorded["candidates"])
    assert weights == pytest.approx(list(recorded["weights"].values()), abs=1e-12)
    assert list(recorded["weights"]) == recorded["candidates"]


def test_pdbench_fontana_variant_reproduces_the_recorded_weights(recorded):
    rules = [name for name in recorded["candidates"] if name != "random"]
    result = estimate_per_match(_batch(recorded["matches"]), GAMES["pd"], rules)
    assert list(result.candidates) == recorded["candidates"]
    np.testing.assert_allclose(result.weights, list(recorded["weights"].values()), atol=1e-12)
    # The pooled estimator answers a different question on the same matches.
    pooled = estimate_strategies(_batch(recorded["matches"]), GAMES["pd"], rules, n_bootstrap=0)
    assert np.abs(pooled.weights - result.weights[:-1]).max() > 0.05


def test_fontana_profile_scores_undefined_dimensions_as_zero(recorded):
    matches = recorded["matches"]
    theirs = np.mean([_their_retaliation(m["own"], m["opponent"]) for m in matches])
    assert theirs == pytest.approx(recorded["retaliation_fontana"], abs=1e-12)
    batch = _batch(matches)
    fontana = behavioural_profile(batch, undefined_as_zero=True)
    assert fontana.summary["retaliation"]["mean"] == pytest.approx(theirs, abs=1e-12)
    assert fontana.summary["retaliation"]["n"] == len(matches)
    ours = behavioural_profile(batch)
    assert ours.summary["retaliation"]["n"] < len(matches)  # matches without an occasion left out
    assert ours.summary["retaliation"]["mean"] > fontana.summary["retaliation"]["mean"]
