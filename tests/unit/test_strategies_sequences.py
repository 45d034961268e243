"""Expected moves of the policies that follow a plan: ALTERNATOR, defect_at and scripted."""

import pytest
from helpers import versus_test

from pdbench.games.tables import GAMES
from pdbench.strategies import make_policy

PD = GAMES["pd"]
MIXED = "CDDCCDCDDDCC"

# --- Alternator ------------------------------------------------------------------------------


def test_alternator_alternates_whatever_the_opponent_does():
    versus_test(make_policy("alternator", PD), MIXED, "CD" * 6)


def test_alternator_starts_with_c():
    versus_test(make_policy("alternator", PD), "D", "C")


# --- defect_at -------------------------------------------------------------------------------


def test_defect_at_defaults_to_akatas_defect_once():
    # Akata et al. 2025: F in round 1, then J forever.
    versus_test(make_policy("defect_at", PD), "C" * 10, "D" + "C" * 9)


def test_defect_at_the_given_rounds_whatever_the_opponent_does():
    versus_test(make_policy("defect_at", PD, {"rounds": [2, 5, 6]}), MIXED, "CDCCDDCCCCCC")


def test_defect_at_rounds_past_the_match_never_come():
    versus_test(make_policy("defect_at", PD, {"rounds": [50]}), "DDD", "CCC")


def test_defect_at_no_rounds_is_allc():
    versus_test(make_policy("defect_at", PD, {"rounds": []}), MIXED, "C" * len(MIXED))


# --- scripted --------------------------------------------------------------------------------


def test_scripted_plays_its_moves_then_repeats_them():
    # Axelrod's Cycler default: C, C, D, C, C, D, ...
    versus_test(make_policy("scripted", PD), MIXED, "CCD" * 4)


@pytest.mark.parametrize(
    ("moves", "expected"), [("D", "DDDDD"), ("DCCDC", "DCCDC"), ("CD", "CDCDC")]
)
def test_scripted_any_sequence(moves, expected):
    versus_test(make_policy("scripted", PD, {"moves": moves}), "CCCCC", expected)


def test_scripted_longer_than_the_match_is_cut():
    versus_test(make_policy("scripted", PD, {"moves": "DDCCDDCC"}), "CCC", "DDC")


def test_scripted_moves_may_be_a_list_and_defect_at_a_single_round():
    assert make_policy("scripted", PD, {"moves": ["C", "D"]}).params.moves == "CD"
    assert make_policy("defect_at", PD, {"rounds": 3}).params.rounds == (3,)
