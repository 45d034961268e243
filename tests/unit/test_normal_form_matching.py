"""Populations with rotating partners (issue 45, docs/mechanisms.md "Reputation"): a 2x2 game's
(or a group game's) population under `matching: round_robin` meets every player of the other
seat groups once before meeting anyone again, read back from the stored rounds (who met whom is
in each round's revealed `groups`), seeded and hidden; `random` stays CoopEval's draw."""

from __future__ import annotations

import os
from collections import Counter
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pdbench.games.base import recorded_options
from pdbench.games.check import play
from pdbench.games.normal_form.matching import draw_groups
from pdbench.games.normal_form.policies import NORMAL_FORM_POLICIES
from pdbench.games.normal_form.rules import NormalForm, rules_of

ROOT = Path(__file__).resolve().parents[2]


def population(matching: str, groups: int, rounds: int, **more: Any) -> NormalForm:
    options = {"base": "pd", "mechanism": "reputation", "rounds": rounds, "groups": groups}
    return rules_of({**options, "matching": matching, **more})


def stored_groups(rules: NormalForm, seed: int) -> list[list[list[str]]]:
    """Each round's groups as the record stores them (the revealed play), house players seated."""
    seated = {s: NORMAL_FORM_POLICIES["mech_random"]() for s in rules.seats}
    state = rules.initial_state(seed)
    stored = []
    rng = np.random.default_rng(seed)
    while not rules.match_over(state):
        after = rules.apply(
            state, {s: seated[s].act(rules.observe(state, s), rng) for s in rules.seats}
        )
        stored.append(rules.revealed(state, after)["groups"])
        state = after
    return stored


def pairs_met(groups: list[list[str]]) -> list[frozenset[str]]:
    return [frozenset(pair) for members in groups for pair in combinations(members, 2)]


@pytest.mark.parametrize(("players", "groups"), [(2, 2), (2, 5), (2, 6), (3, 5), (4, 5)])
def test_round_robin_meets_every_other_seat_groups_player_once_a_cycle(players, groups):
    options: dict[str, Any] = {}
    if players > 2:
        options = {"base": "public_goods", "players": players}
    rules = population("round_robin", groups, 2 * groups + 1, **options)
    for seed in (0, 7):
        stored = stored_groups(rules, seed)
        assert len(stored) == 2 * groups + 1
        seat_group = {seat: i % players for i, seat in enumerate(rules.seats)}
        every_pair = {
            frozenset(pair)
            for pair in combinations(rules.seats, 2)
            if seat_group[pair[0]] != seat_group[pair[1]]
        }
        for cycle in (stored[:groups], stored[groups : 2 * groups]):
            met = Counter(pair for round_ in cycle for pair in pairs_met(round_))
            assert set(met) == every_pair and set(met.values()) == {1}
            for round_ in cycle:  # a group: one player of each seat group, in position order
                assert all([seat_group[s] for s in g] == list(range(players)) for g in round_)
        assert stored[2 * groups] == stored[0]  # the next cycle starts again


def test_round_robin_is_seeded_and_the_seed_is_never_shown():
    rules = population("round_robin", 5, 5)
    assert stored_groups(rules, 3) == stored_groups(rules, 3)
    firsts = {str(stored_groups(rules, seed)[0]) for seed in range(8)}
    assert len(firsts) > 1  # who meets whom first is the seed's
    seated = {s: NORMAL_FORM_POLICIES["mech_tft"]() for s in rules.seats}

    def look(state: Any, seat: str, seen: dict[str, Any], where: str) -> None:
        for k in range(2):
            other = rules.redraw_hidden(state, seat, np.random.default_rng([k, state.round_number]))
            assert rules.observe(other, seat) == seen, where

    play(rules, seated, 4, look=look)


def test_random_matching_is_unchanged_and_not_recorded():
    default = population("random", 3, 6)
    assert default == population("random", 3, 6) and "matching" not in recorded_options(default)
    assert recorded_options(population("round_robin", 3, 6))["matching"] == "round_robin"
    stored = stored_groups(default, 5)
    for number, groups in enumerate(stored, start=1):
        drawn = draw_groups(5, number, 2, 3)
        assert groups == [[default.seats[i] for i in g] for g in drawn]


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        ({"mechanism": "repetition", "matching": "round_robin"}, "matching is for mechanism"),
        ({"mechanism": "reputation", "groups": 2, "matching": "cyclic"}, "matching must be"),
        (  # 3 positions, 4 groups: positions 1 and 3 apart would meet twice a cycle
            {
                "base": "public_goods",
                "players": 3,
                "mechanism": "reputation",
                "groups": 4,
                "matching": "round_robin",
            },
            "matching: round_robin",
        ),
    ],
)
def test_a_bad_matching_is_refused_by_its_name(options, reason):
    with pytest.raises(ValueError, match=rf"^{reason}"):
        rules_of({"base": "pd", **options})


def test_the_mechanisms_matching_reaches_the_2x2_game_and_public_goods_refuses_round_robin():
    from pdbench.games.normal_form.compose import MechanismProblem, under_mechanism

    mechanism = {"type": "reputation", "rounds": 4, "matching": "round_robin"}
    node = under_mechanism({"id": "pd"}, mechanism, {"type": "fixed"}, seats=6)
    assert node is not None and node["options"]["matching"] == "round_robin"
    with pytest.raises(MechanismProblem) as refused:
        under_mechanism({"id": "public_goods"}, mechanism, {"type": "fixed"}, seats=8)
    assert refused.value.field == "mechanism.matching"


@pytest.mark.parametrize("mechanism", ["repetition", "reputation"])
def test_an_agent_file_is_told_no_more_rounds_than_the_prompt(mechanism):
    """Under a discount below 1 an LLM's prompt tells the continuation chance, never the number
    of rounds: round_state, what an agent file reads, must not tell it either."""
    from pdbench.agents.judged_prompts import render_prompt

    groups = {"groups": 2} if mechanism == "reputation" else {}
    told = rules_of({"base": "pd", "mechanism": mechanism, "rounds": 7, "discount": 0.8, **groups})
    state = told.initial_state(1)
    for seat in told.seats:
        seen = told.observe(state, seat)
        assert seen["round_limit"] is None and seen["discount"] == 0.8
        prompt = render_prompt(ROOT, seen, "")
        assert "80% chance" in prompt and "7 rounds" not in prompt
    plain = rules_of({"base": "pd", "mechanism": mechanism, "rounds": 7, **groups})
    assert plain.observe(plain.initial_state(1), "a")["round_limit"] == 7


def continuing(mechanism: str, p: float, rounds: int, **more: Any) -> NormalForm:
    groups = {"groups": 2} if mechanism == "reputation" else {}
    options = {"base": "pd", "mechanism": mechanism, "rounds": rounds, "continuation": p}
    return rules_of({**options, **groups, **more})


def played_rounds(rules: NormalForm, seed: int) -> int:
    state = rules.initial_state(seed)
    while not rules.match_over(state):
        state = rules.apply(state, {s: {"type": "play", "action": "A0"} for s in rules.seats})
    return len(state.finished)


def test_a_continuation_chance_stops_the_match_at_a_seeded_geometric_length_capped():
    """After each round another follows with chance p, the length drawn once from the match's
    seed and capped by `rounds`: over many seeds the mean is (1 - p^cap) / (1 - p) and the
    length exceeds k with chance p^k; a played match lasts its drawn length."""
    p, cap, seeds = 0.8, 15, 4000
    rules = continuing("repetition", p, cap)
    lengths = [rules.match_length(seed) for seed in range(seeds)]
    assert min(lengths) == 1 and max(lengths) == cap
    mean = sum(lengths) / seeds
    assert abs(mean - (1 - p**cap) / (1 - p)) < 0.25  # 4.82; its standard error ~0.06
    for k in (1, 2, 3):
        assert abs(sum(n > k for n in lengths) / seeds - p**k) < 0.03
    for seed in range(6):
        assert played_rounds(rules, seed) == rules.match_length(seed)
        assert played_rounds(rules, seed) == rules.match_length(seed)  # the same seed, again
    assert continuing("reputation", p, cap).match_length(3) == rules.match_length(3)
    assert played_rounds(continuing("reputation", p, cap), 3) == rules.match_length(3)
    assert rules_of({"base": "pd", "mechanism": "repetition", "rounds": 9}).match_length(5) == 9


@pytest.mark.parametrize("mechanism", ["repetition", "reputation"])
def test_the_drawn_length_is_never_shown_only_the_chance(mechanism):
    from pdbench.agents.judged_prompts import render_prompt

    rules = continuing(mechanism, 0.9, 12)
    seated = {s: NORMAL_FORM_POLICIES["mech_tft"]() for s in rules.seats}
    redrawn = 0

    def look(state: Any, seat: str, seen: dict[str, Any], where: str) -> None:
        nonlocal redrawn
        assert seen["round_limit"] is None and seen["continuation"] == 0.9, where
        prompt = render_prompt(ROOT, seen, "")
        assert "90% chance" in prompt and "12 rounds" not in prompt, where
        for k in range(3):  # another seed: another length, the same observation
            other = rules.redraw_hidden(state, seat, np.random.default_rng([k, state.round_number]))
            redrawn += rules.match_length(other.seed) != rules.match_length(state.seed)
            assert rules.observe(other, seat) == seen, where

    for seed in (1, 2, 4):
        play(rules, seated, seed, look=look)
    assert redrawn


def test_continuation_is_recorded_only_when_set_and_validate_keeps_rounds_as_the_cap():
    plain = rules_of({"base": "pd", "mechanism": "repetition", "rounds": 15})
    assert "continuation" not in recorded_options(plain)
    rules = continuing("repetition", 0.9, 15)
    assert recorded_options(rules)["continuation"] == 0.9
    bound, length = plain.fixed_length(), rules.fixed_length()
    assert (length.rounds, length.turns) == (bound.rounds, bound.turns)  # 15 at most: a cap
    assert rules.fixed_length().stops_early and not plain.fixed_length().stops_early


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        ({"mechanism": "repetition", "continuation": 1}, "continuation must be"),
        ({"mechanism": "repetition", "continuation": 0}, "continuation must be"),
        ({"mechanism": "repetition", "continuation": "0.9"}, "continuation must be"),
        ({"mechanism": "mediation", "continuation": 0.9}, "continuation is for"),
        ({"mechanism": "repetition", "continuation": 0.9, "discount": 0.8}, "continuation"),
    ],
)
def test_a_bad_continuation_is_refused_by_its_name(options, reason):
    with pytest.raises(ValueError, match=rf"^{reason}"):
        rules_of({"base": "pd", "rounds": 5, **options})


@pytest.mark.parametrize(
    ("overrides", "field", "reason"),
    [
        (
            ["mechanism=repetition", "mechanism.continuation=0.9", "mechanism.discount=0.8"],
            "mechanism.continuation",
            "two readings of one sentence",
        ),
        (
            [
                "game=public_goods",
                "mechanism=reputation",
                "mechanism.continuation=0.9",
                "population={mech_tft:4,mech_alld:4}",
            ],
            "mechanism.continuation",
            "public goods' own reputation game",
        ),
        (
            ["mechanism=reputation", "mechanism.matching=round_robin", "agent_a=tft"],
            "population",
            "bind a multiple of 2",
        ),
    ],
)
def test_a_bad_mechanism_option_on_the_command_line_exits_2_naming_it(
    tmp_path, overrides, field, reason
):
    from tests.in_process import run_front_door

    env = {**os.environ, "PDBENCH_CACHE_DIR": str(tmp_path / "cache")}
    args = ["validate", str(ROOT / "conf" / "config.yaml"), "mechanism.rounds=15", *overrides]
    ran = run_front_door("cli", args, cwd=tmp_path, env=env)
    assert ran.code == 2, ran.stderr
    assert field in ran.stderr and reason in ran.stderr and "Traceback" not in ran.stderr
    assert len(ran.stderr.strip().splitlines()) == 1
