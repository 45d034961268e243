"""Hidden information in the public goods game, over many seeded matches: an observation is
exactly the issue's round_state; no observation carries a contribution of the round before all
are in, nor anything of another group; a player's observations change only when something it
may see changes; under strangers nothing lets a player follow another from round to round."""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from pdbench.games.public_goods.policies import RandomPlayer
from pdbench.games.public_goods.rules import PublicGoods
from tests.public_goods_loop import play

KEYS = {
    "game",
    "phase",
    "round_number",
    "round_limit",
    "you",
    "players",
    "endowment",
    "multiplier",
    "your_score",
    "scores",
    "messages",
    "history",
}
PUNISH_KEYS = KEYS | {"contributions", "punish_cost", "punish_fine", "max_punish"}
HISTORY_KEYS = {"round_number", "you", "contributions", "earnings", "punished"}


def variants():
    """Seeded variants over every option that changes what a player is shown."""
    rng = np.random.default_rng(44)
    for index in range(24):
        matching = ["partners", "strangers", "perfect_strangers"][index % 3]
        players = int(rng.integers(2, 6))
        groups = 7 if matching == "perfect_strangers" else int(rng.integers(1, 4))
        yield PublicGoods(
            players=players,
            groups=groups,
            rounds=int(rng.integers(2, 6)),
            talk=bool(rng.integers(2)),
            punish=bool(rng.integers(2)) or index % 4 == 0,
            matching=matching,
            round_limit_disclosed=bool(rng.integers(2)),
            accounting="balance" if matching == "partners" and index % 2 else "per_round",
        )


def strings_outside_messages(value: Any) -> set[str]:
    """Every dict key and string in an observation, the talk's texts left out."""
    if isinstance(value, dict):
        found = set(value)
        for key, item in value.items():
            if key != "text":
                found |= strings_outside_messages(item)
        return found
    if isinstance(value, list):
        return set().union(*(strings_outside_messages(item) for item in value)) if value else set()
    return {value} if isinstance(value, str) else set()


@pytest.mark.parametrize(
    "game", list(variants()), ids=lambda g: f"{g.matching}-{g.players}x{g.groups}"
)
def test_every_observation_is_the_round_state_and_hides_the_rounds_contributions(game):
    records = []

    def seen(state, seat, observation):
        records.append((state.round_number, state.phase, seat, observation))

    players = dict.fromkeys(game.seats, RandomPlayer(punish_probability=0.6))
    for seed in range(3):
        records.clear()
        play(game, players, seed, seen=seen, check_json=True)
        for number, phase, _seat, observation in records:
            assert set(observation) == (PUNISH_KEYS if phase == "punish" else KEYS)
            assert observation["game"] == "public-goods" and observation["phase"] == phase
            assert [h["round_number"] for h in observation["history"]] == list(range(1, number))
            assert all(set(h) == HISTORY_KEYS for h in observation["history"])
            group = set(observation["players"])
            assert len(group) == game.players and observation["you"] in group
            if game.matching != "partners":
                assert set(observation["scores"]) == {observation["you"]}
            else:
                assert set(observation["scores"]) == group
            if phase == "punish":
                assert set(observation["contributions"]) == group
            # no seat id reaches a player (labels are P1..PN; seat ids are letters)
            assert not strings_outside_messages(observation) & set(game.seats)
            assert {m["author"] for m in observation["messages"]} <= group


@dataclass(frozen=True)
class Changed:
    """A random player that, in one round, contributes something else (its stream used
    exactly as without the change)."""

    inner: RandomPlayer
    round_number: int

    def act(self, round_state, rng):
        action = self.inner.act(round_state, rng)
        if (
            round_state["phase"] == "contribute"
            and round_state["round_number"] == self.round_number
        ):
            most = int(round_state["endowment"])
            action = {**action, "amount": (action["amount"] + 1 + most // 2) % (most + 1)}
        return action


def observations(game, players, seed):
    by_seat: dict[str, list] = {seat: [] for seat in game.seats}

    def seen(state, seat, observation):
        by_seat[seat].append(((state.round_number, state.phase), observation))

    _, final = play(game, players, seed, seen=seen)
    return by_seat, final


@pytest.mark.parametrize("matching", ["partners", "strangers", "perfect_strangers"])
def test_a_contribution_reaches_only_its_own_group_and_only_once_all_are_in(matching):
    """Change one player's contribution in one round: another player's observations stay the
    same unless that player was in its group that round, and then only from the round's punish
    phase (or the next round) on."""
    seen_by_group = 0
    for seed, (x, changed_round) in itertools.product(range(4), [(0, 2), (4, 3), (7, 1)]):
        game = PublicGoods(
            players=3, groups=5, rounds=4, talk=True, punish=seed % 2 == 0, matching=matching
        )
        plain = RandomPlayer(punish_probability=0.5)
        players = dict.fromkeys(game.seats, plain)
        before, final = observations(game, players, seed)
        changed = {**players, game.seats[x]: Changed(plain, changed_round)}
        after, _ = observations(game, changed, seed)
        record = final.finished[changed_round - 1]
        together = set(record.draw.groups[record.draw.group_of(x)])
        reveal = (changed_round, "punish") if game.punish else (changed_round + 1, "talk")
        for index, seat in enumerate(game.seats):
            if index == x:
                continue
            differing = [
                when for (when, a), (_, b) in zip(before[seat], after[seat], strict=True) if a != b
            ]
            if index not in together:
                assert not differing, (seat, differing[:1])
            elif differing:
                seen_by_group += 1
                order = {"talk": 0, "contribute": 1, "punish": 2}
                first = differing[0]
                assert (first[0], order[first[1]]) >= (reveal[0], order[reveal[1]]), (seat, first)
    assert seen_by_group > 12  # the change did reach the group: the check is not vacuous


def test_under_strangers_the_history_shows_each_round_as_it_was_seen_then():
    game = PublicGoods(players=4, groups=3, rounds=5, matching="strangers", punish=True)
    players = dict.fromkeys(game.seats, RandomPlayer(punish_probability=0.8))
    last: dict[str, Any] = {}
    _, final = play(game, players, 9, seen=lambda s, seat, o: last.__setitem__(seat, o))
    for index, seat in enumerate(game.seats):
        for entry, record in zip(last[seat]["history"], final.finished, strict=False):
            members = record.draw.groups[record.draw.group_of(index)]
            assert entry["you"] == record.draw.labels[index]
            assert entry["contributions"] == {
                record.draw.labels[i]: record.contributions[i] for i in members
            }
    # the same player's label moves from round to round (a label follows nobody)
    labels = {tuple(r.draw.labels) for r in final.finished}
    assert len(labels) == len(final.finished)
    json.dumps(last)
