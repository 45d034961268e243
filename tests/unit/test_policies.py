"""Expected-move tests for the six classic policies against scripted opponents (Axelrod style),
and what every registered policy shares. The newer policies have their own test_strategies_*.py."""

import numpy as np
import pytest
from helpers import ScriptedAgent, as_actions, play, versus_test

from pdbench.agents.base import Agent
from pdbench.core.actions import Action, C, D
from pdbench.core.errors import ConfigError
from pdbench.core.payoff import PayoffMatrix
from pdbench.core.rng import make_rng
from pdbench.games.tables import GAMES
from pdbench.strategies import POLICIES, make_policy
from pdbench.strategies.classic import GenerousTitForTat, WinStayLoseShift, default_generosity

PD = GAMES["pd"]
MIXED = "CDDCCDCDDDCC"  # a bit of everything: CC, CD, DC and DD against any policy


def test_the_registry():
    classic = {"allc", "alld", "tft", "grim", "gtft", "wsls"}
    literature = {"random", "alternator", "stft", "tf2t", "gradual", "prober"}
    assert set(POLICIES) == classic | literature | {"defect_at", "scripted", "memory_one"}
    for name in POLICIES:
        policy = make_policy(name, PD)
        assert isinstance(policy, Agent)
        assert policy.name == name.upper()
        assert policy.history_window == 1 and policy.include_totals is False


def test_unknown_policy_suggests_the_closest():
    with pytest.raises(ConfigError, match='unknown policy "tf4t" \\(did you mean "tft"\\?\\)'):
        make_policy("tf4t", PD)


# --- ALLC, ALLD ----------------------------------------------------------------------------------


def test_allc_always_cooperates():
    versus_test(make_policy("allc", PD), MIXED, "C" * len(MIXED))


def test_alld_always_defects():
    versus_test(make_policy("alld", PD), MIXED, "D" * len(MIXED))


# --- TFT -------------------------------------------------------------------------------------


def test_tft_cooperates_first_then_copies():
    versus_test(make_policy("tft", PD), "CDDCCDCD", "CCDDCCDC")


@pytest.mark.parametrize("first", ["C", "D"])
def test_tft_opens_with_c_whatever_the_opponent_does(first):
    versus_test(make_policy("tft", PD), first, "C")


# --- GRIM ------------------------------------------------------------------------------------


def test_grim_cooperates_while_the_opponent_does():
    versus_test(make_policy("grim", PD), "CCCCC", "CCCCC")


def test_grim_never_forgives_a_single_defection():
    versus_test(make_policy("grim", PD), "CD" + "C" * 10, "CC" + "D" * 10)


def test_grim_forgets_between_matches():
    grim = make_policy("grim", PD)
    versus_test(grim, "DCC", "CDD")
    versus_test(grim, "CCC", "CCC")  # the match runner resets it


# --- WSLS ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("outcome", "opponent", "expected"),
    [
        # Own move in round 2 is set up by round 1; round 2's outcome decides round 3.
        ("CC", "CCC", "CCC"),  # won R=3 >= 3: stay C
        ("CD", "CDC", "CCD"),  # lost S=0: switch to D
        ("DC", "DCC", "CDD"),  # won T=5: stay D
        ("DD", "DDC", "CDC"),  # lost P=1: switch to C
    ],
)
def test_wsls_after_each_outcome(outcome, opponent, expected):
    result = versus_test(make_policy("wsls", PD), opponent, expected)
    second = result.rounds[1].played
    assert f"{second.action_a}{second.action_b}" == outcome


def test_wsls_default_rule_is_axelrods_outcome_rule():
    assert WinStayLoseShift(PD).params.rule == "outcome"


def test_wsls_payoff_rule_default_threshold_is_the_reward():
    assert make_policy("wsls", PD, {"rule": "payoff"}).win_threshold == PD.payoffs.R == 3.0


def test_wsls_custom_threshold():
    # With a threshold of 5 only the temptation counts as a win: after CC (3) it switches to D,
    # after DC (5) it stays.
    wsls = make_policy("wsls", PD, {"rule": "payoff", "win_threshold": 5})
    versus_test(wsls, "CCCC", "CDDD")


def test_wsls_threshold_needs_the_payoff_rule():
    with pytest.raises(ConfigError, match="applies only with rule: payoff") as raised:
        make_policy("wsls", PD, {"win_threshold": 5})
    assert raised.value.field == "win_threshold"


STAG_HUNT = GAMES["stag_hunt"]


def test_wsls_outcome_rule_in_the_stag_hunt_is_axelrods():
    # Axelrod's WinStayLoseShift against a scripted C, D, C, D, D: after CD and DC it defects,
    # after DD and CC it cooperates, whatever the payoffs (as Axelrod 4.14 plays it).
    versus_test(make_policy("wsls", STAG_HUNT), "CDCDD", "CCDDC", game=STAG_HUNT)


def test_wsls_payoff_rule_in_the_stag_hunt_switches_after_dc():
    # DC pays T=3 < R=4: a loss under the payoff rule, so round 4 switches back to C where the
    # outcome rule stays at D.
    wsls = make_policy("wsls", STAG_HUNT, {"rule": "payoff"})
    versus_test(wsls, "CDCDD", "CCDCD", game=STAG_HUNT)


@pytest.mark.parametrize("game_id", ["pd", "chicken", "split_or_steal"])
def test_wsls_rules_agree_where_t_is_at_least_r(game_id):
    game = GAMES[game_id]
    opponent = "CCDDCDCCDDDCDC"
    moves = [
        play(make_policy("wsls", game, {"rule": rule}), ScriptedAgent(opponent), 14, game=game)
        for rule in ("outcome", "payoff")
    ]
    assert [r.played for r in moves[0].rounds] == [r.played for r in moves[1].rounds]


def test_wsls_alternates_against_alld():
    versus_test(make_policy("wsls", PD), "DDDDDD", "CDCDCD")


# --- GTFT ------------------------------------------------------------------------------------


def test_gtft_default_generosity_is_one_third_in_the_default_game():
    R, S, T, P = 3, 0, 5, 1
    assert min(1 - (T - R) / (R - S), (R - P) / (T - P)) == pytest.approx(1 / 3)
    assert default_generosity(PD) == pytest.approx(1 / 3)
    assert GenerousTitForTat(PD).generous_prob == pytest.approx(1 / 3)


@pytest.mark.parametrize(
    ("game_id", "expected"),
    [
        # chicken (R=3, S=1, T=5, P=0): min(1 - 2/2, 3/5) = 0
        ("chicken", 0.0),
        # split_or_steal (R=50, S=0, T=100, P=0): min(1 - 50/50, 50/100) = 0
        ("split_or_steal", 0.0),
    ],
)
def test_gtft_default_generosity_in_other_games(game_id, expected):
    assert default_generosity(GAMES[game_id]) == pytest.approx(expected)


def test_gtft_default_generosity_needs_r_ne_s_and_t_ne_p():
    game = PD.with_changes(
        payoffs=PayoffMatrix(reward=3, sucker=3, temptation=5, punishment=1),
        is_prisoners_dilemma=False,
    )
    with pytest.raises(ConfigError, match="set generous_prob explicitly"):
        make_policy("gtft", game)
    assert make_policy("gtft", game, {"generous_prob": 0.2}).generous_prob == 0.2


def test_gtft_default_generosity_is_clamped_outside_the_pd():
    # stag_hunt (R=4, S=0, T=3, P=2): min(1 - (-1)/4, 2/1) = 1.25, clamped to 1.
    assert default_generosity(GAMES["stag_hunt"]) == 1.0
    assert make_policy("gtft", GAMES["stag_hunt"]).generous_prob == 1.0


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_gtft_default_generosity_is_a_probability_in_every_game(game_id):
    assert 0 <= make_policy("gtft", GAMES[game_id]).generous_prob <= 1


@pytest.mark.parametrize("prob", [-0.1, 1.1])
def test_gtft_prob_must_be_a_probability(prob):
    with pytest.raises(ConfigError, match="between 0 and 1") as raised:
        make_policy("gtft", PD, {"generous_prob": prob})
    assert raised.value.field == "generous_prob"


def test_gtft_round_n_uses_the_nth_draw_of_its_stream():
    seed, prob = 1234, 0.5
    opponent = as_actions("CDDDCDDDDDDDDCDD")
    draws = make_rng(seed).random(len(opponent))
    expected = [C] + [
        C if opponent[t - 1] is C or draws[t] < prob else D for t in range(1, len(opponent))
    ]
    assert C in expected[1:] and D in expected  # the script exercises both branches
    versus_test(make_policy("gtft", PD, {"generous_prob": prob}), opponent, expected, seed=seed)


def test_gtft_always_cooperates_with_a_cooperator():
    versus_test(make_policy("gtft", PD, {"generous_prob": 0}), "C" * 20, "C" * 20, seed=5)


def test_gtft_with_prob_0_is_tft_against_alld():
    versus_test(make_policy("gtft", PD, {"generous_prob": 0}), "D" * 30, "C" + "D" * 29, seed=5)


def test_gtft_with_prob_1_is_allc_against_alld():
    versus_test(make_policy("gtft", PD, {"generous_prob": 1}), "D" * 30, "C" * 30, seed=5)


def gtft_moves_against_alld(n_rounds: int, seed: int, **params) -> list:
    result = play(make_policy("gtft", PD, params), make_policy("alld", PD), n_rounds, seed=seed)
    return [r.played.action_a for r in result.rounds]


@pytest.mark.parametrize(
    ("prob", "n_rounds"),
    # The default gets the full 20000 rounds (standard error 0.003); a configured value needs
    # fewer to show it is used (5000 rounds: standard error 0.006 against the 0.02 tolerance).
    [(None, 20_000), (0.7, 5_000)],
)
def test_gtft_forgives_as_often_as_its_probability(prob, n_rounds):
    moves = gtft_moves_against_alld(n_rounds, seed=99, generous_prob=prob)
    expected = 1 / 3 if prob is None else prob
    forgiven = np.mean([move is C for move in moves[1:]])  # every later round follows a D
    assert forgiven == pytest.approx(expected, abs=0.02)


def test_gtft_same_seed_same_moves_other_seed_other_moves():
    first = gtft_moves_against_alld(60, seed=3)
    assert gtft_moves_against_alld(60, seed=3) == first
    assert gtft_moves_against_alld(60, seed=4) != first


def test_gtft_reset_restarts_its_stream():
    gtft = make_policy("gtft", PD)
    alld = make_policy("alld", PD)
    first = [r.played.action_a for r in play(gtft, alld, 40, seed=8).rounds]
    again = [r.played.action_a for r in play(gtft, alld, 40, seed=8).rounds]
    assert first == again


# --- every policy, every game ----------------------------------------------------------------


@pytest.mark.parametrize("game_id", sorted(GAMES))
@pytest.mark.parametrize("policy", sorted(POLICIES))
def test_every_policy_plays_every_game_and_ignores_labels(policy, game_id):
    game = GAMES[game_id]
    relabelled = game.with_changes(cooperate_label="yes", defect_label="no")
    moves = []
    for variant in (game, relabelled):
        result = play(
            make_policy(policy, variant), ScriptedAgent(MIXED), len(MIXED), game=variant, seed=21
        )
        moves.append([r.played.action_a for r in result.rounds])
    assert all(isinstance(move, Action) for move in moves[0])
    assert moves[0] == moves[1]


@pytest.mark.parametrize("policy", ["allc", "alld", "tft", "grim"])
def test_payoff_blind_policies_play_the_same_in_every_game(policy):
    expected = [
        r.played.action_a
        for r in play(make_policy(policy, PD), ScriptedAgent(MIXED), len(MIXED)).rounds
    ]
    for game in GAMES.values():
        result = play(make_policy(policy, game), ScriptedAgent(MIXED), len(MIXED), game=game)
        assert [r.played.action_a for r in result.rounds] == expected, game.id
