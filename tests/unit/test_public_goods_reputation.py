"""CoopEval's reputation in the public goods game (issue 45): what each player is shown before a
round is recomputed here, independently, from the stored turn lines alone (the groups, labels,
contributions and earnings each round revealed), first order and order 3, and compared with every
observation; nothing of the round in play and nothing outside the window is ever shown; the same
seed shows the same; the options are checked; a game without reputation observes and records
exactly what it did before."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pdbench.games.base import recorded_options
from pdbench.games.public_goods.metrics import match_row
from pdbench.games.public_goods.policies import PUBLIC_GOODS_POLICIES, RandomPlayer
from pdbench.games.public_goods.reputation import co_players_shown_share, pseudonyms
from pdbench.games.public_goods.reputation_measures import faced, shown_to
from pdbench.games.public_goods.rules import PublicGoods
from pdbench.games.public_goods.stored import read_rounds
from pdbench.runners.prepare import load
from tests.public_goods_loop import mixed, play, stored_options

Observed = list[tuple[int, str, str, dict[str, Any]]]  # (round, phase, seat, observation)


def _play(game: PublicGoods, seed: int) -> tuple[list[dict[str, Any]], Observed]:
    seen: Observed = []

    def keep(state: Any, seat: str, observation: dict[str, Any]) -> None:
        seen.append((state.round_number, state.phase, seat, observation))

    kinds = [factory() for factory in PUBLIC_GOODS_POLICIES.values()]
    players = mixed(game, kinds, np.random.default_rng(seed))
    lines, _ = play(game, players, seed, seen=keep, check_json=True)
    return lines, seen


def _stored_rounds(lines: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """Per round, from the stored lines: each seat's group (seats in label order), label,
    contribution and earnings."""
    found: dict[int, dict[str, Any]] = {}
    for line in lines:
        revealed = line["revealed"] or {}
        if "groups" in revealed:
            found[line["round"]] = {
                "group": {s: tuple(g) for g in revealed["groups"] for s in g},
                "label": revealed["labels"],
                "given": revealed["contributions"],
            }
        if "earnings" in revealed:
            found[line["round"]]["earned"] = revealed["earnings"]
    return found


def _expected(
    stored: dict[int, dict[str, Any]],
    seat: str,
    before: int,
    first: int,
    level: int,
    order: int,
    name: dict[str, str],
) -> list[dict[str, Any]]:
    """`seat`'s rounds from `first` up to (not with) `before`, each with its co-players, nested
    while the level is below `order`: CoopEval's tree, written from the stored lines."""
    out = []
    for number in range(first, before):
        here = stored[number]
        co = []
        for other in here["group"][seat]:
            if other == seat:
                continue
            entry = {
                "agent": name[other],
                "contribution": here["given"][other],
                "earnings": here["earned"][other],
            }
            if level < order:
                entry["history"] = _expected(stored, other, number, first, level + 1, order, name)
            co.append(entry)
        out.append(
            {
                "round_number": number,
                "contribution": here["given"][seat],
                "earnings": here["earned"][seat],
                "co_players": co,
            }
        )
    return out


@pytest.mark.parametrize("order", [1, 3])
@pytest.mark.parametrize("matching", ["strangers", "perfect_strangers", "seat_groups"])
def test_the_reputation_shown_is_recomputed_from_the_stored_rounds(order, matching):
    game = PublicGoods(
        players=3,
        groups=7 if matching == "perfect_strangers" else 3,
        rounds=7,
        endowment=4,
        talk=True,
        punish=True,
        matching=matching,
        reputation_depth=3,
        reputation_order=order,
    )
    lines, seen = _play(game, seed=11)
    stored = _stored_rounds(lines)
    names = dict(zip(game.seats, pseudonyms(11, game.population), strict=True))
    assert sorted(names.values(), key=lambda n: int(n[7:])) == [
        f"Agent #{k}" for k in range(1, game.population + 1)
    ]
    nested = 0
    for number, _, seat, observation in seen:
        shown = observation["reputation"]
        first = max(1, number - 3)
        assert shown["rounds"] == ([first, number - 1] if number > 1 else [])
        # the group of this round, from the record the contribute turn revealed
        group = stored[number]["group"][seat]
        label = stored[number]["label"]
        listed = [seat] + [s for s in group if s != seat]
        name = {**names, seat: "You"}
        assert shown["players"] == [
            {
                "label": label[s],
                "agent": name[s],
                "history": _expected(stored, s, number, first, 1, order, name),
            }
            for s in listed
        ]
        nested += any(
            co.get("history")
            for p in shown["players"]
            for e in p["history"]
            for co in e["co_players"]
        )
    assert (nested > 0) == (order > 1)  # order 3 did show co-players' earlier rounds


def test_nothing_of_the_round_in_play_nor_outside_the_window_is_shown():
    for depth, order, seed in [(1, 1, 1), (2, 2, 2), (3, 3, 3), (5, 4, 4)]:
        game = PublicGoods(
            players=3, groups=3, rounds=8, punish=True, matching="strangers",
            reputation_depth=depth, reputation_order=order,
        )  # fmt: skip
        _, seen = _play(game, seed)
        for number, _, _, observation in seen:
            for listed in observation["reputation"]["players"]:
                shown = _all_rounds(listed["history"])
                assert all(max(1, number - depth) <= r < number for r in shown), (number, shown)
                # a nested round comes before the encounter it hangs under
                assert _nested_in_order(listed["history"])


def _all_rounds(entries: list[dict[str, Any]]) -> list[int]:
    out = []
    for entry in entries:
        out.append(entry["round_number"])
        for co in entry["co_players"]:
            out += _all_rounds(co.get("history", []))
    return out


def _nested_in_order(entries: list[dict[str, Any]]) -> bool:
    return all(
        all(inner < entry["round_number"] for inner in _all_rounds(co.get("history", [])))
        and _nested_in_order(co.get("history", []))
        for entry in entries
        for co in entry["co_players"]
    )


def test_every_phase_of_a_round_shows_the_same_reputation_and_a_seed_the_same_again():
    """Every phase of a round shows the same reputation (drawn from finished rounds only), and
    the same seed shows the same, round for round."""
    game = PublicGoods(
        players=3, groups=3, rounds=5, talk=True, punish=True, matching="strangers",
        reputation_depth=3, reputation_order=3,
    )  # fmt: skip
    _, seen = _play(game, seed=5)
    _, again = _play(game, seed=5)
    assert seen == again
    by_round: dict[tuple[int, str], list[Any]] = {}
    for number, _, seat, observation in seen:
        by_round.setdefault((number, seat), []).append(observation["reputation"])
    assert all(all(r == shown[0] for r in shown) for shown in by_round.values())
    _, other = _play(game, seed=6)
    assert [o["reputation"] for *_, o in other] != [o["reputation"] for *_, o in seen]


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"reputation_depth": 3}, "reputation_depth"),  # partners: no re-drawn groups
        ({"reputation_depth": -1, "matching": "strangers"}, "reputation_depth"),
        ({"reputation_depth": 1.5, "matching": "strangers"}, "reputation_depth"),
        (
            {"reputation_depth": 3, "reputation_order": 0, "matching": "strangers"},
            "reputation_order",
        ),
        ({"reputation_order": 3, "matching": "strangers"}, "reputation_order"),
    ],
)
def test_bad_reputation_options_are_refused_naming_the_option(options, named):
    with pytest.raises(ValueError, match=f"^{named} "):
        PublicGoods(players=3, groups=3, **options)


def test_without_reputation_nothing_changes_in_the_observation_nor_the_record():
    game = PublicGoods(players=3, groups=3, rounds=3, matching="strangers")
    _, seen = _play(game, seed=3)
    assert not any("reputation" in observation for *_, observation in seen)
    assert "reputation_depth" not in recorded_options(game)
    assert "reputation_order" not in recorded_options(game)
    shown = PublicGoods(players=3, groups=3, matching="strangers", reputation_depth=2)
    assert recorded_options(shown)["reputation_depth"] == 2


def test_a_random_group_is_shown_its_reputation_as_json():
    game = PublicGoods(
        players=4, groups=2, rounds=4, matching="strangers", reputation_depth=2,
        reputation_order=2,
    )  # fmt: skip
    lines, _ = play(game, dict.fromkeys(game.seats, RandomPlayer()), 9, check_json=True)
    assert lines[-1]["outcome"]["options"]["reputation_order"] == 2


def test_the_measures_read_the_reputation_each_player_was_shown():
    """`reputation_measures.faced` rebuilds, from the stored rounds, the group reputation every
    contribute observation showed; the reciprocator's slope is about 1 and its gap large, a full
    contributor's gap 0, and a game without reputation measures nothing."""
    game = PublicGoods(
        players=3, groups=3, rounds=30, endowment=20, matching="strangers", reputation_depth=3,
    )  # fmt: skip
    kinds = [PUBLIC_GOODS_POLICIES[n]() for n in ("pgg_reputation_reciprocator", "pgg_random")]
    players = {s: kinds[i % 2] for i, s in enumerate(game.seats)}
    players["c"] = PUBLIC_GOODS_POLICIES["pgg_full_contributor"]()
    shown: dict[str, list[float]] = {}

    def keep(state: Any, seat: str, observation: dict[str, Any]) -> None:
        share = co_players_shown_share(observation)
        if share is not None:
            shown.setdefault(seat, []).append(share)

    lines, _ = play(game, players, 8, seen=keep)
    options = stored_options(game)
    rounds = read_rounds(lines, options)
    for seat in game.seats:
        assert [x for x, _ in faced(rounds, options, seat)] == shown[seat]
    rows = match_row(lines, options)
    assert rows["a"]["reputation_slope"] == pytest.approx(1, abs=0.05)
    assert rows["a"]["reputation_gap"] > 0.3
    assert rows["c"]["reputation_gap"] == 0 and rows["c"]["reputation_slope"] == 0
    plain = PublicGoods(players=3, groups=3, rounds=3, matching="strangers")
    lines, _ = play(plain, dict.fromkeys(plain.seats, RandomPlayer()), 1)
    row = match_row(lines, stored_options(plain))["a"]
    assert row["reputation_gap"] is None and row["reputation_slope"] is None


HYDRA_GROUP = [
    "game=public_goods",
    "agent_a=llm_default",
    "agent_b=pgg_random",
    "agent_c=pgg_hump",
    "agent_d=pgg_punisher",
    "game.options.matching=strangers",
]


def test_a_config_without_reputation_keeps_the_config_hash_it_had_before_the_options():
    """conf/game/public_goods.yaml lists both options at their defaults; a config that does not
    use them hashes as it did before they existed (these are main's hashes before issue 45)."""
    root = Path(__file__).resolve().parents[2]
    plain = load("conf/config.yaml", HYDRA_GROUP, project_root=root).config_hash
    assert plain == "979f1eece6866b6f3f68369e97d1d399b5a995d687e60fc3aac7f637592de18e"
    preset = load("conf/experiment/coopeval_public_goods.yaml", [], project_root=root)
    assert preset.config_hash == "b6a9e1672a392817b650ac8732f01e803aa7b671aa04c1e6bbb21072bfbfe7ad"
    used = load(
        "conf/config.yaml", [*HYDRA_GROUP, "game.options.reputation_depth=3"], project_root=root
    )
    assert used.config_hash != plain


def test_the_viewer_shows_the_reputation_each_player_was_shown():
    """`reputation_measures.shown_to` (the viewer's round detail) rebuilds from the stored rounds
    and the match's seed exactly the `reputation` of every observation, order 3."""
    game = PublicGoods(
        players=3, groups=3, rounds=5, punish=True, matching="strangers", reputation_depth=2,
        reputation_order=3,
    )  # fmt: skip
    lines, seen = _play(game, seed=7)
    options = stored_options(game)
    rounds = read_rounds(lines, options)
    seed = lines[-1]["outcome"]["seed"]
    names = dict(zip(game.seats, pseudonyms(seed, game.population), strict=True))
    for number, _, seat, observation in seen:
        assert shown_to(rounds, options, seat, number - 1, names) == observation["reputation"]
