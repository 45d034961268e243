"""CoopEval's reputation on a 2x2 game (issue 45, docs/mechanisms.md): a population re-matched
every round, one member of each seat group per group, each player shown the reputation tree of
itself and its new co-player. The tree every seat is shown is recomputed here from the revealed
records alone (an independent reader, not the package's), for Reputation- (order 1) and
Reputation+ (order 3): nothing of the current round, nothing outside the window; the matching is
a seeded draw that a redrawn seed changes only for the rounds to come; the house players read it
as documented; bad options are refused naming the field."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from reputation_records import expected_history, rounds_named

from pdbench.games.check import play
from pdbench.games.normal_form.matching import draw_groups
from pdbench.games.normal_form.metrics import encounters, state_row
from pdbench.games.normal_form.policies import NORMAL_FORM_POLICIES
from pdbench.games.normal_form.rules import NormalForm, rules_of
from pdbench.games.reputation_tree import pseudonyms

SEATS = ("mech_random", "mech_tft", "mech_reputation", "mech_alld", "mech_allc", "mech_random")


def reputation_rules(order: int, rounds: int = 7, depth: int = 3) -> NormalForm:
    return rules_of(
        {
            "base": "pd",
            "mechanism": "reputation",
            "rounds": rounds,
            "groups": 3,
            "lookup_depth": depth,
            "reputation_order": order,
        }
    )


@pytest.mark.parametrize("order", [1, 3])
def test_each_seat_is_shown_the_tree_the_records_give(order):
    rules = reputation_rules(order)
    seated = {s: NORMAL_FORM_POLICIES[p]() for s, p in zip(rules.seats, SEATS, strict=True)}
    for seed in (3, 11):
        names = dict(zip(rules.seats, pseudonyms(seed, 6), strict=True))
        revealed: dict[int, dict[str, Any]] = {}
        state = rules.initial_state(seed)
        rngs = {s: np.random.default_rng([seed, i]) for i, s in enumerate(rules.seats)}
        while not rules.match_over(state):
            now = state.round_number
            first = max(1, now - 3)
            for seat in rules.seats:
                seen = rules.observe(state, seat)
                shown = seen["reputation"]
                assert shown["rounds"] == ([first, now - 1] if now > 1 else [])
                (group,) = [g for g in state.groups if rules.seats.index(seat) in g]
                listed = [seat] + [rules.seats[i] for i in group if rules.seats[i] != seat]
                assert [p["agent"] for p in shown["players"]] == ["You"] + [
                    names[s] for s in listed[1:]
                ]
                me = {**names, seat: "You"}
                for player, who in zip(shown["players"], listed, strict=True):
                    assert player["history"] == expected_history(
                        revealed, me, who, now, first, 1, order
                    )
                assert all(first <= n < now for n in rounds_named(shown))
                assert seen["player"] == group.index(rules.seats.index(seat)) + 1
            actions = {s: seated[s].act(rules.observe(state, s), rngs[s]) for s in rules.seats}
            after = rules.apply(state, actions)
            revealed[now] = rules.revealed(state, after)
            state = after
        assert max(revealed) == 7


def test_order_one_nests_nothing_and_order_three_nests_three_levels():
    def depth(entries: list[dict[str, Any]]) -> int:
        """The levels of a shown history: its own rounds, then its co-players' nested ones."""
        levels = [
            1 + max((depth(co.get("history", [])) for co in entry["co_players"]), default=0)
            for entry in entries
        ]
        return max(levels, default=0)

    for order in (1, 3):
        rules = reputation_rules(order, rounds=6, depth=5)
        seated = {s: NORMAL_FORM_POLICIES["mech_random"]() for s in rules.seats}
        deepest = 0
        state = rules.initial_state(4)
        rng = np.random.default_rng(0)
        while not rules.match_over(state):
            for seat in rules.seats:
                for listed in rules.observe(state, seat)["reputation"]["players"]:
                    deepest = max(deepest, depth(listed["history"]))
            state = rules.apply(
                state, {s: seated[s].act(rules.observe(state, s), rng) for s in rules.seats}
            )
        assert deepest == order


def test_the_matching_is_seeded_one_per_seat_group_and_hidden():
    once, again = draw_groups(7, 4, 2, 5), draw_groups(7, 4, 2, 5)
    assert once == again
    assert {draw_groups(seed, 4, 2, 5) for seed in range(20)} != {once}  # the seed matters
    assert len({draw_groups(7, r, 2, 5) for r in range(1, 21)}) > 1  # re-matched every round
    for members in once:
        assert [p % 2 for p in members] == [0, 1]  # seats a, c, ... play Player 1
    assert sorted(p for g in once for p in g) == list(range(10))
    rules = reputation_rules(3)
    seated = {s: NORMAL_FORM_POLICIES[p]() for s, p in zip(rules.seats, SEATS, strict=True)}
    changed = 0

    def look(state: Any, seat: str, seen: dict[str, Any], where: str) -> None:
        nonlocal changed
        for k in range(3):
            other = rules.redraw_hidden(state, seat, np.random.default_rng([k, state.round_number]))
            changed += other.seed != state.seed
            assert rules.observe(other, seat) == seen, where  # the seed is never shown
            assert "seed" not in str(seen)

    play(rules, seated, 5, look=look)
    assert changed


def test_the_house_players_read_the_partners_newest_shown_round():
    rules = reputation_rules(1)
    state = rules.initial_state(1)
    seen = rules.observe(state, "a")
    rng = np.random.default_rng(0)
    assert NORMAL_FORM_POLICIES["mech_tft"]().act(seen, rng)["action"] == "A0"  # benefit of doubt
    assert NORMAL_FORM_POLICIES["mech_reputation"]().act(seen, rng)["action"] == "A1"
    # round 2: every seat but "a"'s partner of round 1 ... let every seat defect but one
    cooperator = "c"
    state = rules.apply(
        state,
        {s: {"type": "play", "action": "A0" if s == cooperator else "A1"} for s in rules.seats},
    )
    for seat in rules.seats:
        seen = rules.observe(state, seat)
        (partner,) = [p for p in seen["reputation"]["players"] if p["agent"] != "You"]
        partner_cooperated = partner["history"][-1]["action"] == "A0"
        for name in ("mech_tft", "mech_reputation"):
            move = NORMAL_FORM_POLICIES[name]().act(seen, rng)["action"]
            assert move == ("A0" if partner_cooperated else "A1")
    assert (
        sum(
            p["history"][-1]["action"] == "A0"
            for seat in rules.seats
            for p in rules.observe(state, seat)["reputation"]["players"]
            if p["agent"] != "You"
        )
        == 1
    )


def test_the_measures_and_encounters_follow_the_groups():
    rules = reputation_rules(1, rounds=10)
    seated = {s: NORMAL_FORM_POLICIES[p]() for s, p in zip(rules.seats, SEATS, strict=True)}
    played = play(rules, seated, 9)
    rows = state_row(rules, played.final)
    assert rows["c"]["reputation_gap"] == 1.0  # the discriminator (mech_reputation)
    assert rows["e"]["reputation_gap"] in (0.0, None)  # mech_allc ignores it
    lines = [{"actions": turn} for turn in played.turns]
    lines[-1]["outcome"] = {"seed": 9}
    met = encounters(lines, {"base": "pd", "mechanism": "reputation", "rounds": 10, "groups": 3})
    assert len(met) == 10 * 3
    for seat in rules.seats:
        got = sum(e.payoff_first for e in met if e.first == seat)
        got += sum(e.payoff_second for e in met if e.second == seat)
        assert got == rows[seat]["score"]


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"mechanism": "reputation", "groups": 1}, "groups"),
        ({"mechanism": "mediation", "groups": 2}, "groups"),
        ({"mechanism": "repetition", "reputation_order": 3}, "reputation_order"),
        ({"mechanism": "reputation", "groups": 2, "reputation_order": 0}, "reputation_order"),
        ({"mechanism": "reputation", "groups": 2, "decide": "every_round"}, "decide"),
    ],
)
def test_bad_options_name_the_field(options, named):
    with pytest.raises(ValueError, match=rf"^{named}"):
        rules_of({"base": "pd", **options})


def test_the_viewer_says_whom_each_seat_met():
    from pdbench.games.normal_form.view import phase_rows

    rules = reputation_rules(1, rounds=2)
    state = rules.initial_state(2)
    turns = []
    while not rules.match_over(state):
        actions = {s: {"type": "play", "action": "A0"} for s in rules.seats}
        after = rules.apply(state, actions)
        turns.append(
            {
                "round": state.round_number,
                "phase": "play",
                "actions": actions,
                "revealed": rules.revealed(state, after),
            }
        )
        state = after
    rows = phase_rows(turns, {s: s.upper() for s in rules.seats})
    for row, (seat, turn) in zip(rows, [(s, t) for t in turns for s in rules.seats], strict=True):
        (group,) = [g for g in turn["revealed"]["groups"] if seat in g]
        (partner,) = [s for s in group if s != seat]
        assert row["outcome"].endswith(f"; met {partner.upper()}")


def test_the_cooperative_mock_reciprocates_the_partners_newest_shown_round_from_its_prompt():
    from pathlib import Path
    from types import SimpleNamespace

    from pdbench.agents.judged_prompts import render_prompt
    from pdbench.games.normal_form import mock
    from pdbench.games.normal_form.prompts import PROMPTS

    root = Path(__file__).resolve().parents[2]
    behaviour = SimpleNamespace(strategy="reciprocate", invalid_rate=0.0, policy=None, params={})
    rules = reputation_rules(3, rounds=2)
    state = rules.initial_state(6)
    defectors = {"a", "d", "e"}
    state = rules.apply(
        state,
        {s: {"type": "play", "action": "A1" if s in defectors else "A0"} for s in rules.seats},
    )
    moves = []
    for seat in rules.seats:
        shown = rules.observe(state, seat)
        prompt = render_prompt(root, shown, "You believe in cooperation.")
        assert "You are playing with 1 other agent(s): Agent #" in prompt
        answer = mock.play(prompt, behaviour, seat, lean="cooperative", allowed=None)
        (partner,) = [p for p in shown["reputation"]["players"] if p["agent"] != "You"]
        partner_defected = partner["history"][-1]["action"] == "A1"
        moves.append(PROMPTS.action(shown, answer)["action"])
        assert moves[-1] == ("A1" if partner_defected else "A0")
    assert set(moves) == {"A0", "A1"}  # it met partners shown on both sides


def test_mixed_answers_are_drawn_from_the_seed_in_every_group():
    rules = rules_of(
        {"base": "pd", "mechanism": "reputation", "rounds": 3, "groups": 4, "strategies": "mixed"}
    )
    half = {"type": "play", "distribution": {"A0": 50, "A1": 50}}

    def finished(seed: int) -> tuple[Any, ...]:
        state = rules.initial_state(seed)
        while not rules.match_over(state):
            state = rules.apply(state, dict.fromkeys(rules.seats, half))
        return state.finished

    once = finished(8)
    assert once == finished(8)  # the same seed, the same draws and groups
    assert once != finished(9)
    drawn = [a for played in once for a in played.realised]
    assert set(drawn) == {0, 1} and all(p.distributions[0] == (50, 50) for p in once)
    for played in once:  # each pair's payoffs are pd's for the pair's drawn actions
        for i, j in played.groups:
            points = rules.game.payoffs((played.realised[i], played.realised[j]))
            assert (played.payoffs[i], played.payoffs[j]) == tuple(points)
