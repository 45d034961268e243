"""What an agent sees: a window of past rounds from its own side, the round number, maybe totals."""

import pytest

from pdbench.core.actions import C, D
from pdbench.core.transcript import PastRound, PlayedRound, observe

# Four rounds of a PD: a plays C C D D, b plays C D C D.
ROUNDS = [
    PlayedRound(1, C, C, 3.0, 3.0),
    PlayedRound(2, C, D, 0.0, 5.0),
    PlayedRound(3, D, C, 5.0, 0.0),
    PlayedRound(4, D, D, 1.0, 1.0),
]
A_VIEW = (
    PastRound(1, C, C, 3.0, 3.0),
    PastRound(2, C, D, 0.0, 5.0),
    PastRound(3, D, C, 5.0, 0.0),
    PastRound(4, D, D, 1.0, 1.0),
)
B_VIEW = (
    PastRound(1, C, C, 3.0, 3.0),
    PastRound(2, D, C, 5.0, 0.0),
    PastRound(3, C, D, 0.0, 5.0),
    PastRound(4, D, D, 1.0, 1.0),
)


@pytest.mark.parametrize(
    ("window", "shown"), [(None, 4), (0, 0), (1, 1), (2, 2), (4, 4), (5, 4), (100, 4)]
)
@pytest.mark.parametrize(("side", "view"), [("a", A_VIEW), ("b", B_VIEW)])
def test_window_shows_the_last_rounds_oldest_first(window, shown, side, view):
    obs = observe(ROUNDS, side=side, history_window=window, include_totals=False)
    assert obs.history == view[len(view) - shown :]
    assert obs.round_index == 5


def test_window_one_is_the_last_round_from_each_side():
    obs_a = observe(ROUNDS[:2], side="a", history_window=1, include_totals=False)
    obs_b = observe(ROUNDS[:2], side="b", history_window=1, include_totals=False)
    assert obs_a.last == PastRound(
        2, own_action=C, opponent_action=D, own_payoff=0.0, opponent_payoff=5.0
    )
    assert obs_b.last == PastRound(
        2, own_action=D, opponent_action=C, own_payoff=5.0, opponent_payoff=0.0
    )


@pytest.mark.parametrize("window", [None, 0, 1, 10])
def test_before_round_one_there_is_nothing(window):
    obs = observe([], side="a", history_window=window, include_totals=True)
    assert obs.round_index == 1
    assert obs.history == ()
    assert obs.last is None
    assert (obs.own_total, obs.opponent_total) == (0, 0)


def test_round_index_counts_from_one():
    for played in range(len(ROUNDS) + 1):
        obs = observe(ROUNDS[:played], side="b", history_window=0, include_totals=False)
        assert obs.round_index == played + 1


def test_window_zero_hides_the_past_but_not_the_round_number():
    obs = observe(ROUNDS, side="a", history_window=0, include_totals=False)
    assert obs.history == () and obs.last is None and obs.round_index == 5


def test_totals_only_when_asked():
    obs = observe(ROUNDS, side="a", history_window=None, include_totals=False)
    assert (obs.own_total, obs.opponent_total) == (None, None)


@pytest.mark.parametrize("window", [None, 0, 1])
def test_totals_cover_the_whole_match_whatever_the_window(window):
    obs_a = observe(ROUNDS, side="a", history_window=window, include_totals=True)
    obs_b = observe(ROUNDS, side="b", history_window=window, include_totals=True)
    assert (obs_a.own_total, obs_a.opponent_total) == (9.0, 9.0)
    assert (obs_b.own_total, obs_b.opponent_total) == (9.0, 9.0)
    asymmetric = ROUNDS[:2]  # a: 3 + 0, b: 3 + 5
    obs_a = observe(asymmetric, side="a", history_window=window, include_totals=True)
    obs_b = observe(asymmetric, side="b", history_window=window, include_totals=True)
    assert (obs_a.own_total, obs_a.opponent_total) == (3.0, 8.0)
    assert (obs_b.own_total, obs_b.opponent_total) == (8.0, 3.0)
