"""Expected moves of STFT, TF2T, Gradual and Prober against scripted opponents (Axelrod style).

Where a case comes from Axelrod-Python's own tests (axelrod/tests/strategies/test_titfortat.py,
test_prober.py), it says so; Axelrod's MockPlayer repeats its script, written out here in full.
"""

import pytest
from helpers import versus_test

from pdbench.games.tables import GAMES
from pdbench.strategies import make_policy

PD = GAMES["pd"]

# --- STFT ------------------------------------------------------------------------------------


def test_stft_defects_first_then_copies():
    versus_test(make_policy("stft", PD), "CDDCCDCD", "DCDDCCDC")


def test_stft_and_tft_echo_each_others_defection_forever():
    # Axelrod's TestSuspiciousTitForTat: against TFT, (D, C), (C, D), ... for 16 rounds.
    versus_test(make_policy("stft", PD), "CD" * 8, "DC" * 8)


@pytest.mark.parametrize(("opponent", "expected"), [("CCC", "DCC"), ("DDD", "DDD")])
def test_stft_against_allc_and_alld(opponent, expected):
    versus_test(make_policy("stft", PD), opponent, expected)


# --- TF2T ------------------------------------------------------------------------------------


def test_tf2t_punishes_two_defections_and_forgives_one():
    # Axelrod's TestTitFor2Tats, MockPlayer([D, D, D, C, C]) over 6 rounds.
    versus_test(make_policy("tf2t", PD), "DDDCCD", "CCDDCC")


def test_tf2t_needs_the_two_defections_in_a_row():
    # Axelrod's TestTitFor2Tats, second case.
    versus_test(make_policy("tf2t", PD), "CCDDCDDCCDD", "CCCCDCCDCCC")


def test_tf2t_forgets_between_matches():
    tf2t = make_policy("tf2t", PD)
    versus_test(tf2t, "CDD", "CCC")  # the opponent's last two moves were D, D ...
    versus_test(tf2t, "DCC", "CCC")  # ... but a new match starts from nothing


# --- Gradual ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("opponent", "expected"),
    [
        # Axelrod's TestGradual.test_strategy, case by case.
        ("C", "C"),
        ("D", "C"),
        ("DC", "CD"),
        ("DCC", "CDC"),
        ("DCDC", "CDCC"),  # the D in round 3 falls in the calm rounds: ignored
        ("DCDCC", "CDCCC"),
        ("DCDCCC", "CDCCCC"),
        # Round 7's D is the opponent's third: three D, then two C.
        ("DCDCCCDC", "CDCCCCCD"),
        ("DCDCCDDD", "CDCCCCDD"),
    ],
)
def test_gradual_as_axelrod_tests_it(opponent, expected):
    versus_test(make_policy("gradual", PD), opponent, expected)


def test_gradual_against_alld_counts_every_defection_of_the_match():
    # Axelrod's TestGradual against Defector: 1 D after the 1st defection, 4 after the 4th
    # (the three during punishment and calm count too), 10 after the 10th, 22 after the 22nd.
    expected = "C" + "D" + "CC" + "D" * 4 + "CC" + "D" * 10 + "CC" + "D" * 22 + "CC" + "D" * 4
    versus_test(make_policy("gradual", PD), "D" * len(expected), expected)


def test_gradual_punishes_then_calms_whatever_the_opponent_plays():
    # D in round 1 -> one D (round 2) and two C (rounds 3-4) even though the opponent defects in
    # rounds 2-4; round 5 answers round 4's D, the opponent's 4th: four D, then two C.
    versus_test(make_policy("gradual", PD), "DDDDCCCCCC", "CDCCDDDDCC")


def test_gradual_cooperates_with_a_cooperator():
    versus_test(make_policy("gradual", PD), "C" * 12, "C" * 12)


# --- Prober ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("opponent", "expected"),
    [
        # Axelrod's TestProber: against Cooperator it defects from round 4 on ...
        ("CCCCCC", "DCCDDD"),
        # ... and against MockPlayer([D, C, C]) too: rounds 2 and 3 were C.
        ("DCCDCC", "DCCDDD"),
        # Otherwise it plays TFT: against Alternator and against Defector.
        ("CDCDC", "DCCCD"),
        ("DDDDD", "DCCDD"),
    ],
)
def test_prober_as_axelrod_tests_it(opponent, expected):
    versus_test(make_policy("prober", PD), opponent, expected)


def test_prober_only_looks_at_rounds_2_and_3():
    # A D in round 1 does not save the opponent; a D in round 3 does (TFT from round 4 on).
    versus_test(make_policy("prober", PD), "DCCCC", "DCCDD")
    versus_test(make_policy("prober", PD), "CCDCC", "DCCDC")


def test_prober_forgets_between_matches():
    prober = make_policy("prober", PD)
    versus_test(prober, "CCCC", "DCCD")
    versus_test(prober, "CDCC", "DCCC")
