"""The Moran report's + / - flags follow the exact fixation probability, not the simulation's
Wilson interval (which excludes 1/N by chance in about 5 % of neutral pairs)."""

from __future__ import annotations

import numpy as np
import pytest
from rich.console import Console

from pdbench.analysis.per_run.tournament_table import TournamentOptions, dynamics_rows
from pdbench.analysis.tournaments.dynamics import (
    moran_fixation_probability,
    selection_against_neutral,
)
from pdbench.cli.tournament_report import moran_table


def _rendered(table) -> str:
    console = Console(width=200, record=True)
    console.print(table)
    return console.export_text()


def test_equal_payoffs_are_neutral_and_defection_invading_cooperation_is_favoured():
    # TFT against GRIM: both cooperate throughout, so every payoff is R = 3; ALLD against ALLC.
    players = ("tft", "grim", "alld", "allc")
    payoffs = np.array(
        [
            [3.0, 3.0, 0.995, 3.0],
            [3.0, 3.0, 0.995, 3.0],
            [1.02, 1.02, 1.0, 5.0],
            [3.0, 3.0, 0.0, 3.0],
        ]
    )
    rows = dynamics_rows(payoffs, players, TournamentOptions(population_size=60, n_runs=50))
    moran = {(row["mutant"], row["resident"]): row for row in rows if row["table"] == "moran"}
    assert moran[("tft", "grim")]["exact"] == pytest.approx(1 / 60, rel=1e-12)
    assert moran[("tft", "grim")]["selection"] == "neutral"
    assert moran[("grim", "tft")]["selection"] == "neutral"
    assert moran[("alld", "allc")]["selection"] == "favoured"
    assert moran[("allc", "alld")]["selection"] == "disfavoured"


def test_the_report_flags_from_the_exact_value_and_shows_both():
    # The audit's case: the simulation said 0.025 with a Wilson interval above 1/60, exact is 1/60.
    exact = moran_fixation_probability(np.full((2, 2), 3.0), 60)
    base = {"population_size": 60, "neutral": 1 / 60, "selection_intensity": 1.0, "n_runs": 1000}
    rows = [
        {
            **base,
            "mutant": "tft",
            "resident": "grim",
            "fixation_probability": 0.025,
            "ci_low": 0.0170,
            "ci_high": 0.0367,
            "exact": exact,
            "selection": selection_against_neutral(exact, 60),
        },
        {
            **base,
            "mutant": "grim",
            "resident": "tft",
            "fixation_probability": 0.007,
            "ci_low": 0.0034,
            "ci_high": 0.0144,
            "exact": exact,
            "selection": selection_against_neutral(exact, 60),
        },
    ]
    text = _rendered(moran_table(rows, ("tft", "grim")))
    assert "0.025/0.017 " in text and "0.025/0.017+" not in text
    assert "0.007/0.017 " in text and "0.007/0.017-" not in text
    favoured = [{**rows[0], "exact": 0.05, "selection": selection_against_neutral(0.05, 60)}]
    assert "0.025/0.050+" in _rendered(moran_table(favoured, ("tft", "grim")))
