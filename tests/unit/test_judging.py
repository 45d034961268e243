"""The judge measurements on scripted judges with a known bias: a judge that always picks the
first speaker is 100 % order-biased and follows the player in every swap; a side-biased judge
follows the side; a fair coin is near 50 % with an interval covering it; identical judges agree
with kappa 1; the truthful Keeper is 100 % truthful and a lying one is caught."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pdbench.analysis.judging.bias import length_bias, order_bias
from pdbench.analysis.judging.panel import cohen_kappa, fleiss_kappa, panel_agreement
from pdbench.analysis.judging.proportions import share
from pdbench.analysis.judging.swap import position_swap
from pdbench.games.debate.measures import verdict_table
from pdbench.games.debate.policies import FixedDebater, PrioritiesDebater, ScriptedJudge
from pdbench.games.debate.rules import JUDGE
from pdbench.games.nil_recruitment.rules import NilRecruitment
from pdbench.games.nuclear_war.rules import NuclearWar
from pdbench.games.passcode.measures import audit_disagreement, keeper_truthfulness
from pdbench.games.passcode.policies import HalvingQuestioner, LengthGuesser, TruthfulKeeper
from pdbench.games.passcode.rules import KEEPER_SEATS, Passcode


class CoinJudge:
    """Responds politely; decides by a fair coin from its own stream."""

    def act(self, seen, rng):
        if seen["request"] == "response":
            return {"type": "response", "text": "Go on."}
        return {"type": "decision", "winner": seen["choices"][int(rng.integers(2))]}


def decisions(rules, judge, matches, rounds, a=None, b=None):
    """Play `matches` matches with swapped sides; the (match, revealed decision) records."""
    game = rules(rounds=rounds, swap_sides=True)
    players = {"a": a or FixedDebater(), "b": b or PrioritiesDebater(), JUDGE: judge}
    found = []
    for seed in range(matches):
        state, rng = game.initial_state(seed), np.random.default_rng([seed, 99])
        while not game.match_over(state):
            (seat,) = game.to_move(state)
            action = players[seat].act(game.observe(state, seat), rng)
            before, state = state, game.apply(state, {seat: action})
            if shown := game.revealed(before, state):
                found.append((seed, shown))
    return verdict_table(found)


@pytest.mark.parametrize("rules", [NuclearWar, NilRecruitment])
def test_a_first_speaker_judge_is_100_percent_order_biased_and_follows_the_player(rules):
    table = decisions(rules, ScriptedJudge("first_speaker"), matches=3, rounds=4)
    bias = order_bias(table)
    assert bias.rate == 1.0 and bias.trials == 24 and bias.high == 1.0 and bias.low > 0.85
    swap = position_swap(table)
    assert swap.pairs == 12 and swap.follows_player.rate == 1.0 and swap.follows_side.rate == 0.0
    assert str(bias).startswith("100.0 % (24/24; 95 % CI")


def test_a_side_biased_judge_follows_the_side_and_a_length_biased_one_the_longer_argument():
    swap = position_swap(decisions(NuclearWar, ScriptedJudge("first_listed"), 2, 4))
    assert swap.follows_side.rate == 1.0 and swap.follows_player.rate == 0.0
    table = decisions(NuclearWar, ScriptedJudge("longer"), 2, 4)
    assert length_bias(table).longer_wins.rate == 1.0 and length_bias(table).ties == 0
    # the priorities judge also rewards the longer (priority-naming) argument: length is
    # confounded with content here, which is what the measure is there to show
    assert length_bias(decisions(NuclearWar, ScriptedJudge(), 2, 4)).longer_wins.rate == 1.0


def test_a_fair_coin_judge_is_near_50_percent_with_an_interval_covering_it():
    table = decisions(NuclearWar, CoinJudge(), matches=20, rounds=5, b=FixedDebater())
    bias, swap = order_bias(table), position_swap(table)
    assert bias.trials == 200 and abs(bias.rate - 0.5) < 0.1 and bias.low < 0.5 < bias.high
    assert swap.follows_player.low < 0.5 < swap.follows_player.high


def test_identical_judges_agree_with_kappa_1_and_opposite_judges_with_minus_1():
    rng = np.random.default_rng(1)
    verdicts = rng.choice(["for", "against"], 40)
    rows = [{"item": i, "rater": j, "verdict": v} for i, v in enumerate(verdicts) for j in "xy"]
    report = panel_agreement(rows)
    assert report.fleiss.value == 1.0 and report.cohen[("x", "y")].value == 1.0
    # 40 items all agreed on cannot show how often the judges would disagree: the interval
    # reaches down to what a mean agreement of 1 over 40 items allows (Wilson's 40 / (40 + z^2)),
    # chance-corrected, not [1, 1] (issue 42).
    share = np.mean(verdicts == "for")
    chance = share**2 + (1 - share) ** 2
    least = (40 / (40 + 1.959963984540054**2) - chance) / (1 - chance)
    for kappa in (report.fleiss, report.cohen[("x", "y")]):
        assert (kappa.low, kappa.high) == pytest.approx((least, 1.0))
    assert all(report.majority[i] == v for i, v in enumerate(verdicts))
    flip = {"for": "against", "against": "for"}
    rows = [{"item": i, "rater": "x", "verdict": v} for i, v in enumerate(verdicts)]
    rows += [{"item": i, "rater": "y", "verdict": flip[v]} for i, v in enumerate(verdicts)]
    report = panel_agreement(rows)
    assert report.cohen[("x", "y")].value == pytest.approx(-1.0, abs=0.06)
    assert set(report.majority.values()) == {None}  # one each: no majority


def test_the_kappas_match_hand_computed_values_and_independent_judges_are_near_0():
    # Fleiss: 3 items, 3 judges: (3,0), (2,1), (0,3): P = (1, 1/3, 1), p = (5/9, 4/9)
    expected = ((1 + 1 / 3 + 1) / 3 - (25 + 16) / 81) / (1 - 41 / 81)
    assert fleiss_kappa(np.array([[3, 0], [2, 1], [0, 3]])) == pytest.approx(expected)
    # Cohen: 10 items agree on 8; both say yes 5 / 10 -> chance 0.5 -> kappa 0.6
    first = np.array([1, 1, 1, 1, 1, 0, 0, 0, 0, 0])
    second = np.array([1, 1, 1, 1, 0, 1, 0, 0, 0, 0])
    assert cohen_kappa(first, second) == pytest.approx(0.6)
    assert math.isnan(cohen_kappa(np.zeros(5), np.zeros(5)))
    rng = np.random.default_rng(3)
    rows = [
        {"item": i, "rater": j, "verdict": str(rng.integers(2))} for i in range(300) for j in "xyz"
    ]
    report = panel_agreement(rows)
    assert report.fleiss.low < 0 < report.fleiss.high and abs(report.fleiss.value) < 0.1
    assert len(report.cohen) == 3


def test_the_truthful_keeper_is_100_percent_truthful_and_a_lying_one_is_caught():
    game = Passcode(words_per_match=2)
    rows = []
    for seed in range(4):
        state, rng = game.initial_state(seed), np.random.default_rng(seed)
        players = {"a": HalvingQuestioner(), "b": LengthGuesser()}
        while not game.match_over(state):
            actions = {}
            for seat in game.to_move(state):
                seen = game.observe(state, seat)
                if seat in KEEPER_SEATS:
                    actions[seat] = TruthfulKeeper().act(seen, rng)
                    rows.append({"word": seen["secret_word"], "question": seen["question"]})
                    rows[-1]["answer"] = actions[seat]["text"]
                else:
                    actions[seat] = players[seat].act(seen, rng)
            state = game.apply(state, actions)
    report = keeper_truthfulness(rows)
    assert report.truthful.rate == 1.0 and report.truthful.trials == len(rows) > 20
    lies = {"Yes.": "No.", "No.": "Yes."}
    lying = [{**row, "answer": lies.get(row["answer"], row["answer"])} for row in rows]
    lied = sum(row["answer"] in lies for row in rows)
    assert len(keeper_truthfulness(lying).wrong) == lied > 0
    outside = keeper_truthfulness([{"word": "x", "question": "Is it an animal?", "answer": "Yes"}])
    assert outside.outside_grammar == 1 and outside.truthful.trials == 0


def test_audit_disagreement_compares_what_the_answers_say():
    pairs = [
        {"keeper_answer": "Yes, it does.", "audit_answer": "yes"},
        {"keeper_answer": "The word has 6 letters.", "audit_answer": "It has 6 letters"},
        {"keeper_answer": "No.", "audit_answer": "Yes."},
        {"keeper_answer": "It has 5 letters.", "audit_answer": "6"},
    ]
    assert audit_disagreement(pairs).successes == 2 and audit_disagreement(pairs).trials == 4


def test_share_intervals_behave_at_the_edges():
    assert share(0, 10).low == 0.0 and share(10, 10).high == 1.0
    assert math.isnan(share(0, 0).rate)
    low, high = share(50, 100).low, share(50, 100).high
    assert low == pytest.approx(0.4038, abs=1e-3) and high == pytest.approx(0.5962, abs=1e-3)
