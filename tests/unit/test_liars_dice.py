"""Liar's Dice as a rules module: the rules, seeded dice, what each player may see, the exact bid
probabilities, the house players and the per-player metrics."""

from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np
import pytest

from pdbench.games.liars_dice.metrics import calibration, player_metrics, showdown_is_consistent
from pdbench.games.liars_dice.odds import bid_probability
from pdbench.games.liars_dice.policies import (
    LIARS_DICE_POLICIES,
    Bluffer,
    ProbabilityLiar,
    RandomLiar,
)
from pdbench.games.liars_dice.rules import (
    CHALLENGE,
    Bid,
    LiarsDiceRules,
    LiarsDiceState,
    apply,
    initial_state,
    is_raise,
    legal_moves,
    observe,
    parse_action,
    problem,
    roll,
    scores,
)

PLAIN = LiarsDiceRules()
WILD = LiarsDiceRules(wild_ones=True)


def state_with(dice, *, rules=PLAIN, bids=(), to_move=0) -> LiarsDiceState:
    start = initial_state(rules, seed=7)
    return replace(start, dice=tuple(tuple(sorted(d)) for d in dice), bids=bids, to_move=to_move)


def play(policy_a, policy_b, *, rules=PLAIN, seed=0, limit=10_000):
    """A whole match between two policies, each answering from its own observation; returns the
    final state and every (state, player) a move was asked in."""
    state = initial_state(rules, seed)
    rngs = (np.random.default_rng([seed, 0]), np.random.default_rng([seed, 1]))
    asked = []
    for _ in range(limit):
        if state.winner is not None:
            return state, asked
        player = state.to_move
        asked.append((state, player))
        policy = (policy_a, policy_b)[player]
        move = parse_action(policy.act(observe(state, player), rngs[player]))
        assert problem(state, player, move) is None, (move, observe(state, player))
        state = apply(state, move)
    raise AssertionError("the match did not end")


# --- the rules ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("new", "current", "legal"),
    [
        (Bid(1, 1), None, True),  # any first bid
        (Bid(3, 4), Bid(2, 6), True),  # more dice, any face
        (Bid(2, 5), Bid(2, 4), True),  # as many of a higher face
        (Bid(2, 4), Bid(2, 4), False),  # the same bid
        (Bid(2, 3), Bid(2, 4), False),  # a lower face
        (Bid(1, 6), Bid(2, 1), False),  # fewer dice
        (Bid(11, 2), None, False),  # more dice than in play
        (Bid(2, 7), None, False),  # no such face
        (Bid(0, 3), None, False),
    ],
)
def test_a_bid_must_raise_the_current_one(new, current, legal):
    assert (is_raise(PLAIN, new, current, total_dice=10) is None) is legal


@pytest.mark.parametrize(
    ("new", "current", "legal"),
    [
        (Bid(2, 1), Bid(4, 5), True),  # to 1s: half the quantity, rounded up
        (Bid(2, 1), Bid(3, 5), True),
        (Bid(1, 1), Bid(3, 5), False),
        (Bid(7, 2), Bid(3, 1), True),  # from 1s: more than twice the quantity
        (Bid(6, 6), Bid(3, 1), False),
        (Bid(4, 1), Bid(3, 1), True),  # among 1s: more of them
        (Bid(3, 6), Bid(3, 5), True),
    ],
)
def test_wild_ones_have_their_own_raises(new, current, legal):
    assert (is_raise(WILD, new, current, total_dice=10) is None) is legal


def test_a_challenge_of_a_met_bid_costs_the_challenger_a_die_and_the_loser_opens():
    state = state_with([(2, 2, 3, 5, 6), (2, 4, 4, 4, 1)], bids=((0, Bid(4, 2)),), to_move=1)
    assert problem(state, 1, Bid(4, 1)) is not None  # a lower face at the same quantity
    after = apply(state, Bid(4, 4))  # b raises: four 4s (b holds three, a none)
    after = apply(after, CHALLENGE)  # a challenges: only three 4s, the bidder b loses a die
    assert after.dice_counts == (5, 4)
    assert (after.to_move, after.opener, after.round_number) == (1, 1, 2)
    showdown = after.finished[-1]
    assert (showdown.challenger, showdown.loser, showdown.matching) == (0, 1, 3)
    assert showdown_is_consistent(PLAIN, showdown)


def test_wild_ones_count_for_other_faces_but_not_for_bids_on_ones():
    dice = [(1, 1, 3, 5, 6), (1, 4, 4, 2, 2)]
    bid_on_fours = apply(state_with(dice, rules=WILD, bids=((1, Bid(5, 4)),)), CHALLENGE)
    assert bid_on_fours.finished[-1].matching == 5  # 4, 4 and three 1s: met, a loses
    assert bid_on_fours.finished[-1].loser == 0
    bid_on_ones = apply(state_with(dice, rules=WILD, bids=((1, Bid(4, 1)),)), CHALLENGE)
    assert bid_on_ones.finished[-1].matching == 3
    assert bid_on_ones.finished[-1].loser == 1


def test_the_last_player_with_dice_wins():
    state = state_with([(3,), (5,)], bids=((0, Bid(2, 3)),), to_move=1)
    over = apply(state, CHALLENGE)  # one 3 among two dice: a bluffed and loses its last die
    assert over.winner == 1 and scores(over) == (0.0, 1.0)
    assert problem(over, over.to_move, Bid(1, 1)) == "the match is over"


def test_no_challenge_before_a_bid_and_no_move_out_of_turn():
    state = initial_state(PLAIN, seed=3)
    assert "no bid" in str(problem(state, 0, CHALLENGE))
    assert problem(state, 1, Bid(1, 2)) == "it is not this player's turn"
    with pytest.raises(ValueError, match="no bid"):
        apply(state, CHALLENGE)


def test_legal_moves_are_exactly_the_moves_without_a_problem():
    state = state_with([(2, 2, 3), (4, 5)], bids=((1, Bid(2, 5)),))
    candidates = [CHALLENGE] + [Bid(q, f) for q in range(0, 7) for f in range(0, 8)]
    allowed = [m for m in candidates if problem(state, 0, m) is None]
    assert legal_moves(state) == allowed


@pytest.mark.parametrize(
    ("action", "reason"),
    [
        ({"type": "bid", "quantity": "3", "face": 4}, "quantity is a whole number"),
        ({"type": "bid", "quantity": True, "face": 4}, "quantity is a whole number"),
        ({"type": "raise"}, 'type must be "bid" or "challenge"'),
        (["bid", 3, 4], "JSON object"),
    ],
)
def test_an_action_that_is_not_a_move_says_why(action, reason):
    with pytest.raises(ValueError, match=reason):
        parse_action(action)


# --- seeded dice -------------------------------------------------------------------------------


def test_dice_are_a_pure_function_of_the_match_seed_and_the_round():
    assert roll(11, 3, (5, 4), 6) == roll(11, 3, (5, 4), 6)
    assert roll(11, 3, (5, 4), 6) != roll(11, 4, (5, 4), 6)
    assert roll(11, 3, (5, 4), 6) != roll(12, 3, (5, 4), 6)
    first, _ = play(ProbabilityLiar(), Bluffer(), seed=5)
    again, _ = play(ProbabilityLiar(), Bluffer(), seed=5)
    assert first == again  # the same match, move for move


# --- hidden information --------------------------------------------------------------------------


@pytest.mark.parametrize("rules", [PLAIN, WILD, LiarsDiceRules(dice_per_player=2, faces=4)])
def test_no_observation_shows_the_opponents_dice_of_the_round_in_play(rules):
    """Every observation of many seeded matches: replacing the opponent's dice of the round in
    play by any other dice changes nothing the player is shown, and the dice of a round appear
    only once its showdown revealed them."""
    other_hands = np.random.default_rng(99)
    walked = 0
    for seed in range(40):
        policies = [RandomLiar(), ProbabilityLiar(), Bluffer()]
        final, asked = play(policies[seed % 3], policies[(seed + 1) % 3], rules=rules, seed=seed)
        for state, _ in [*asked, (final, final.to_move)]:
            for viewer in (0, 1):
                opponent = 1 - viewer
                seen = observe(state, viewer)
                hand = tuple(
                    sorted(other_hands.integers(1, rules.faces + 1, len(state.dice[opponent])))
                )
                dice = list(state.dice)
                dice[opponent] = tuple(int(d) for d in hand)
                assert observe(replace(state, dice=(dice[0], dice[1])), viewer) == seen
                revealed = [r["round"] for r in seen["rounds_history"]]
                assert revealed == list(range(1, state.round_number))
                walked += 1
    assert walked > 400  # every turn of 40 matches, from both sides


# --- probabilities -----------------------------------------------------------------------------


@pytest.mark.parametrize("rules", [PLAIN, WILD])
def test_bid_probability_is_the_exact_share_of_opponent_hands_that_meet_it(rules):
    own = (1, 3, 3)
    for face, quantity in itertools.product(range(1, 7), range(1, 7)):
        hands = list(itertools.product(range(1, 7), repeat=3))
        met = sum(
            sum(d == face or (rules.wild_ones and d == 1 and face != 1) for d in own + hand)
            >= quantity
            for hand in hands
        )
        exact = met / len(hands)
        assert bid_probability(rules, Bid(quantity, face), own, 3) == pytest.approx(exact)


def _facing(bid, own, opponent_dice):
    return {
        "your_dice": list(own),
        "your_dice_count": len(own),
        "opponent_dice_count": opponent_dice,
        "current_bid": bid.as_dict(),
        "faces": 6,
        "wild_ones": False,
    }


def test_the_probability_player_challenges_exactly_below_its_threshold():
    own = (2, 2, 5, 5, 6)
    bid = Bid(4, 2)  # needs two 2s among 5 unseen dice
    p = bid_probability(PLAIN, bid, own, 5)
    assert 0.19 < p < 0.2
    rng = np.random.default_rng(0)
    assert ProbabilityLiar(threshold=p + 1e-9).act(_facing(bid, own, 5), rng) == {
        "type": "challenge"
    }
    raised = ProbabilityLiar(threshold=p).act(_facing(bid, own, 5), rng)
    # not below the threshold: it raises on its most likely face (5, tied with 2: the higher)
    assert raised == {"type": "bid", "quantity": 4, "face": 5}


def test_the_bluffer_overbids_by_its_margin():
    own = (3, 3, 4, 5, 6)
    state = _facing(Bid(1, 2), own, 5)
    rng = np.random.default_rng(0)
    # expected 3s on the table: 2 + 5/6; rounded up 3, plus the margin
    assert Bluffer(margin=2).act(state, rng) == {"type": "bid", "quantity": 5, "face": 3}
    assert Bluffer(margin=0).act(state, rng) == {"type": "bid", "quantity": 3, "face": 3}


@pytest.mark.parametrize("name", sorted(LIARS_DICE_POLICIES))
def test_every_house_player_plays_whole_legal_matches(name):
    policy = LIARS_DICE_POLICIES[name]()
    for seed in range(15):
        final, _ = play(policy, RandomLiar(), rules=WILD if seed % 2 else PLAIN, seed=seed)
        assert final.winner in (0, 1)


def test_the_probability_player_beats_the_random_player():
    wins = sum(play(ProbabilityLiar(), RandomLiar(), seed=s)[0].winner == 0 for s in range(60))
    assert wins >= 50


# --- metrics -----------------------------------------------------------------------------------


def test_metrics_of_a_scripted_round():
    # a bids four 2s holding one: a bluff (P = 0.0355 given its dice); b challenges and is right
    state = state_with([(2, 3, 4, 5, 6), (1, 1, 3, 3, 6)], bids=((0, Bid(4, 2)),), to_move=1)
    after = apply(state, CHALLENGE)
    a, b = player_metrics(after, 0), player_metrics(after, 1)
    assert (a.bids, a.bluffs, a.bluff_rate) == (1, 1, 1.0)
    assert (a.challenges, a.challenge_accuracy, a.dice_lost_per_challenge) == (0, None, 1.0)
    assert (b.challenges, b.challenges_right, b.challenge_accuracy) == (1, 1, 1.0)
    assert b.dice_lost_per_challenge == 0.0 and b.bluff_rate is None
    (faced,) = b.faced
    assert faced.challenged and faced.probability == pytest.approx(
        bid_probability(PLAIN, Bid(4, 2), (1, 1, 3, 3, 6), 5)
    )
    assert a.won is None  # the match goes on
    rows = calibration(b.faced, bins=5)
    assert rows[0] == (0.0, 0.2, 1, 1.0) and all(row[2] == 0 for row in rows[1:])
