"""Who meets whom in the public goods game: strangers re-grouped every round from the seed and
replayable, partners' groups and labels stable, perfect strangers never meeting twice in a block,
labels that say nothing about last round."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from pdbench.games.public_goods.matching import draw_round, perfect_stranger_problem
from pdbench.games.public_goods.policies import RandomPlayer
from pdbench.games.public_goods.rules import PublicGoods
from pdbench.games.replay import replay
from tests.public_goods_loop import play


@pytest.mark.parametrize("matching", ["partners", "strangers", "perfect_strangers", "seat_groups"])
def test_every_round_partitions_the_population_with_labels_p1_to_pn(matching):
    for seed in range(5):
        for number in range(1, 8):
            draw = draw_round(seed, number, 4, 7, matching, block=7)
            assert sorted(itertools.chain(*draw.groups)) == list(range(28))
            for group in draw.groups:
                assert [draw.labels[i] for i in group] == ["P1", "P2", "P3", "P4"]


def test_strangers_are_regrouped_every_round_from_the_seed_alone():
    rounds = [draw_round(11, number, 4, 5, "strangers", 1) for number in range(1, 6)]
    assert rounds == [draw_round(11, number, 4, 5, "strangers", 1) for number in range(1, 6)]
    assert len({r.groups for r in rounds}) == 5  # a new grouping each round
    assert rounds != [draw_round(12, number, 4, 5, "strangers", 1) for number in range(1, 6)]


def test_partners_keep_their_groups_and_labels_all_match():
    draws = {draw_round(4, number, 3, 4, "partners", 1) for number in range(1, 10)}
    assert len(draws) == 1
    game = PublicGoods(players=3, groups=4, rounds=4, matching="partners")
    lines, _ = play(game, dict.fromkeys(game.seats, RandomPlayer()), seed=4)
    firsts = [line["revealed"]["labels"] for line in lines]
    assert all(labels == firsts[0] for labels in firsts)


def test_perfect_strangers_never_meet_twice_within_a_block():
    for seed in range(4):
        met: set[tuple[int, int]] = set()
        for number in range(1, 7):  # one block of 6 rounds: 7 groups of 4 (FG 2002's 4 x 6)
            for group in draw_round(seed, number, 4, 7, "perfect_strangers", 6).groups:
                pairs = set(itertools.combinations(sorted(group), 2))
                assert not pairs & met, (seed, number)
                met |= pairs
        assert len(met) == 28 * 3 * 6 // 2  # each player met 18 others, all different
        # the next block starts again, with a fresh seeded assignment
        again = draw_round(seed, 7, 4, 7, "perfect_strangers", 6).groups
        assert again != draw_round(seed, 1, 4, 7, "perfect_strangers", 6).groups


def test_the_design_check_finds_every_grid_that_would_repeat_a_meeting():
    """For small cases, the arithmetic test agrees with drawing the rounds and looking."""
    for size, groups, block in itertools.product(range(2, 5), range(2, 9), range(2, 6)):
        met, repeated = set(), False
        for number in range(1, block + 1):
            for group in draw_round(0, number, size, groups, "perfect_strangers", block).groups:
                pairs = set(itertools.combinations(sorted(group), 2))
                repeated |= bool(pairs & met)
                met |= pairs
        assert (perfect_stranger_problem(size, groups, block) is not None) == repeated


def test_under_strangers_a_label_says_nothing_about_last_round():
    """The chance that a player keeps its label from one round to the next is 1/N, not 1."""
    same = total = 0
    for seed in range(40):
        previous = draw_round(seed, 1, 4, 3, "strangers", 1)
        for number in range(2, 11):
            draw = draw_round(seed, number, 4, 3, "strangers", 1)
            same += sum(a == b for a, b in zip(draw.labels, previous.labels, strict=True))
            total += len(draw.labels)
            previous = draw
    assert abs(same / total - 1 / 4) < 0.04


@pytest.mark.parametrize("matching", ["partners", "strangers", "perfect_strangers", "seat_groups"])
def test_a_match_replays_from_its_seed_and_stored_actions(matching):
    game = PublicGoods(
        players=3,
        groups=5,
        rounds=5,
        talk=True,
        punish=True,
        matching=matching,
        talk_order="shuffle",
    )
    players = dict.fromkeys(game.seats, RandomPlayer(punish_probability=0.5))
    lines, final = play(game, players, seed=21)
    again, _ = play(game, players, seed=21)
    assert again == lines
    assert replay(game, 21, [line["actions"] for line in lines]) == final
    other, _ = play(game, players, seed=22)
    assert other != lines


def test_the_talk_order_is_shuffled_from_the_seed_when_asked():
    game = PublicGoods(players=4, rounds=30, talk=True, talk_order="shuffle")
    state, openers = game.initial_state(8), []
    rng = np.random.default_rng(0)
    while not game.match_over(state):
        seats = game.to_move(state)
        if state.phase == "talk" and state.turn_in_talk == 0:
            openers.append(game.observe(state, seats[0])["you"])
        state = game.apply(
            state, {s: RandomPlayer().act(game.observe(state, s), rng) for s in seats}
        )
    assert set(openers) == {"P1", "P2", "P3", "P4"} and openers[:4] != ["P1", "P2", "P3", "P4"]
