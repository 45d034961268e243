"""The public goods game's house players: expected moves from hand-made round_states, legal
answers in every phase of many seeded variants, talk that states the contribution made, and
contribution schedules the schedule estimate recovers from simulated play."""

from __future__ import annotations

import numpy as np
import pytest

from pdbench.games.public_goods.metrics import player_measures
from pdbench.games.public_goods.policies import (
    PUBLIC_GOODS_POLICIES,
    AntisocialPunisher,
    ConditionalCooperator,
    FreeRider,
    FreeRiderPunisher,
    FullContributor,
    HumpContributor,
    RandomPlayer,
    Seen,
)
from pdbench.games.public_goods.rules import PublicGoods
from pdbench.games.public_goods.stored import read_rounds
from pdbench.games.public_goods.talk import stated_amount
from tests.public_goods_loop import mixed, play, stored_options

RNG = np.random.default_rng(0)


def state(phase="contribute", last=None, contributions=None, max_punish=10, you="P1"):
    """A four-player round_state; `last`: the others' contributions last round (P2..P4)."""
    history = []
    if last is not None:
        history = [
            {
                "round_number": 1,
                "you": "P1",
                "contributions": {"P1": 7, "P2": last[0], "P3": last[1], "P4": last[2]},
                "earnings": {},
                "punished": {},
            }
        ]
    seen = {
        "phase": phase,
        "round_number": len(history) + 1,
        "you": you,
        "players": ["P1", "P2", "P3", "P4"],
        "endowment": 20,
        "multiplier": 1.6,
        "history": history,
        "messages": [],
    }
    if phase == "punish":
        seen |= {"contributions": contributions, "max_punish": max_punish}
    return seen


def amount(policy, seen):
    return policy.act(seen, RNG)["amount"]


def test_the_unconditional_players_give_everything_or_nothing():
    assert amount(FullContributor(), state()) == 20
    assert amount(FullContributor(), state(last=[0, 0, 0])) == 20
    assert amount(FreeRider(), state(last=[20, 20, 20])) == 0
    assert FreeRider(claim=20).act(state(phase="talk"), RNG)["text"] == "I will contribute 20."


def test_the_conditional_cooperator_opens_then_matches_the_others_last_mean():
    assert amount(ConditionalCooperator(), state()) == 10
    assert amount(ConditionalCooperator(opening=1.0), state()) == 20
    assert amount(ConditionalCooperator(), state(last=[4, 8, 15])) == 9
    assert amount(ConditionalCooperator(), state(last=[1, 2, 2])) == 2  # 1.67, rounded half up
    assert amount(ConditionalCooperator(), state(last=[0, 0, 1])) == 0


def test_the_hump_contributor_rises_with_the_others_to_half_the_endowment_then_falls():
    moves = [amount(HumpContributor(), state(last=[x, x, x])) for x in (0, 4, 10, 14, 20)]
    assert moves == [0, 4, 10, 6, 0]


def test_the_punisher_of_free_riders_punishes_the_lowest_contributor_below_it():
    punisher = FreeRiderPunisher()
    seen = state("punish", contributions={"P1": 20, "P2": 5, "P3": 0, "P4": 20})
    assert punisher.act(seen, RNG) == {"type": "punish", "points": {"P3": 3}}
    seen = state("punish", contributions={"P1": 20, "P2": 5, "P3": 0, "P4": 20}, max_punish=2)
    assert punisher.act(seen, RNG)["points"] == {"P3": 2}
    fair = state("punish", contributions={"P1": 20, "P2": 20, "P3": 20, "P4": 20})
    assert punisher.act(fair, RNG)["points"] == {}
    nothing_left = state(
        "punish", contributions={"P1": 20, "P2": 0, "P3": 0, "P4": 0}, max_punish=0
    )
    assert punisher.act(nothing_left, RNG)["points"] == {}


def test_the_antisocial_punisher_punishes_the_highest_who_gave_at_least_as_much():
    punisher = AntisocialPunisher()  # contributes 5 of 20
    assert amount(punisher, state()) == 5
    seen = state("punish", contributions={"P1": 5, "P2": 20, "P3": 5, "P4": 0})
    assert punisher.act(seen, RNG)["points"] == {"P2": 3}
    lower = state("punish", contributions={"P1": 5, "P2": 0, "P3": 4, "P4": 0})
    assert punisher.act(lower, RNG)["points"] == {}


def variants():
    """Seeded variants over every option that changes what is legal."""
    rng = np.random.default_rng(7)
    for index in range(30):
        balance = index % 5 == 0
        matching = "partners" if balance else ["partners", "strangers"][index % 2]
        capped = index % 3 == 0
        yield PublicGoods(
            players=int(rng.integers(2, 7)),
            groups=int(rng.integers(1, 3)),
            endowment=int(rng.choice([1, 10, 20])),
            multiplier=float(rng.choice([1.2, 1.6, 2.5])),
            rounds=int(rng.integers(2, 6)),
            talk=bool(rng.integers(2)),
            talk_max_chars=80,
            punish=index % 4 != 3,
            max_punish=int(rng.integers(0, 11)),
            punish_fine=float(rng.choice([1, 3, 2.5])),
            punish_one_target=capped,
            punish_cap_fraction=0.5 if capped else None,
            punish_cap_absolute=100 if capped else None,
            negative_earnings=bool(rng.integers(2)) and not balance,
            accounting="balance" if balance else "per_round",
            matching=matching,
        )


@pytest.mark.parametrize("game", list(variants()), ids=lambda g: f"{g.players}x{g.groups}")
def test_every_house_player_answers_legally_in_every_phase(game):
    kinds = [factory() for factory in PUBLIC_GOODS_POLICIES.values()]
    rng = np.random.default_rng(game.players * 100 + game.rounds)
    for seed in range(3):
        play(game, mixed(game, kinds, rng), seed, check_json=True)  # asserts every answer legal


@pytest.mark.parametrize("name", sorted(set(PUBLIC_GOODS_POLICIES) - {"pgg_random"}))
def test_each_house_player_says_the_contribution_it_then_makes(name):
    game = PublicGoods(players=4, rounds=6, talk=True, punish=True)
    players = {seat: RandomPlayer() for seat in game.seats} | {"a": PUBLIC_GOODS_POLICIES[name]()}
    for seed in range(3):
        lines, _ = play(game, players, seed)
        for played in read_rounds(lines, stored_options(game)):
            (text,) = [text for seat, text in played.messages if seat == "a"]
            if name != "pgg_free_rider":
                assert stated_amount(text, 20) == played.contributions["a"], text


def schedule_of(policy, seed, rounds=80):
    """The schedule estimate of `policy` (seat a) in a group with three random contributors."""
    game = PublicGoods(players=4, rounds=rounds)
    players = dict.fromkeys(game.seats, RandomPlayer()) | {"a": policy}
    lines, _ = play(game, players, seed)
    options = stored_options(game)
    return player_measures(read_rounds(lines, options), options, "a").schedule


@pytest.mark.parametrize("seed", range(3))
def test_the_schedule_estimate_recovers_each_house_type(seed):
    conditional = schedule_of(ConditionalCooperator(), seed)
    assert conditional.type == "conditional_cooperator"
    assert conditional.ci_low < 1 < conditional.ci_high and abs(conditional.slope - 1) < 0.1
    free_rider = schedule_of(FreeRider(), seed)
    assert free_rider.type == "free_rider" and free_rider.slope == 0
    hump = schedule_of(HumpContributor(), seed)
    assert hump.type == "hump"
    assert abs(hump.below_half.slope - 1) < 0.15 and abs(hump.above_half.slope + 1) < 0.15
    unconditional = schedule_of(FullContributor(), seed)
    assert unconditional.type == "other" and unconditional.slope == 0
    assert schedule_of(RandomPlayer(), seed).type == "other"


@pytest.mark.parametrize("name", sorted(PUBLIC_GOODS_POLICIES))
def test_each_house_players_act_batch_answers_as_act_does_match_by_match(name):
    """`act_batch` (many matches at once, the vectorised path's) gives, in every match, the
    answer `act` gives that match's round_state, drawing from each match's stream in act's
    order: talk, contribute, punish; ten players, so labels sort "P1", "P10", "P2", ..."""
    size, count = 10, 60
    draws = np.random.default_rng(len(name))
    labels = [f"P{k}" for k in range(1, size + 1)]
    last = draws.integers(0, 21, (count, size))  # last round's contributions, P1..P10
    now = draws.integers(0, 21, (count, size))
    now[:10] = 7  # ties everywhere: the first label as strings sort wins
    you = draws.integers(0, size, count)
    top = draws.integers(0, 12, count)
    mean = (last.sum(axis=1) - last[np.arange(count), you]) / (size - 1)
    player = PUBLIC_GOODS_POLICIES[name]()
    for opening in (True, False):
        seen = Seen(
            20,
            None if opening else mean,
            [np.random.default_rng([m, 1]) for m in range(count)],
            position=you,
            contributions=now,
            max_punish=top,
        )
        batch = [player.act_batch(phase, seen) for phase in ("talk", "contribute", "punish")]
        rngs = [np.random.default_rng([m, 1]) for m in range(count)]
        for m in range(count):
            history = [
                {
                    "round_number": 1,
                    "you": labels[you[m]],
                    "contributions": dict(zip(labels, last[m].tolist(), strict=True)),
                    "earnings": {},
                    "punished": {},
                }
            ]
            base = {
                "round_number": 1 if opening else 2,
                "you": labels[you[m]],
                "players": labels,
                "endowment": 20,
                "multiplier": 1.6,
                "history": [] if opening else history,
                "messages": [],
            }
            said = player.act({**base, "phase": "talk"}, rngs[m])
            given = player.act({**base, "phase": "contribute"}, rngs[m])
            punish = {
                **base,
                "phase": "punish",
                "contributions": dict(zip(labels, now[m].tolist(), strict=True)),
                "max_punish": int(top[m]),
            }
            points = player.act(punish, rngs[m])["points"]
            assert said["text"] == batch[0][m], (name, m)
            assert given["amount"] == batch[1][m], (name, m)
            expected = {labels[k]: n for k, n in enumerate(batch[2][m].tolist()) if n > 0}
            assert points == expected, (name, m)
