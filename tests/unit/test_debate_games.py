"""Nuclear War and NIL Recruitment: the platform's round_state keys, five phases with the judge
after each, cut arguments, sides swapped on request, the judge shown sides and never seats, and
the scripted judges deciding by their documented rules."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pdbench.games.debate.policies import FixedDebater, PrioritiesDebater, ScriptedJudge
from pdbench.games.debate.rules import CUT_MARK, JUDGE
from pdbench.games.nil_recruitment.rules import NilRecruitment
from pdbench.games.nuclear_war.rules import NuclearWar

GAMES = [NuclearWar, NilRecruitment]
KEYS = {
    NuclearWar: {
        "round_number", "phase", "your_position", "scenario", "president",
        "debate_history", "your_score", "opponent_score",
    },
    NilRecruitment: {
        "round_number", "phase", "your_university", "opponent_university", "athlete",
        "conversation", "your_score", "opponent_score",
    },
}  # fmt: skip


def play(game, a, b, judge, seed):
    state, seen, rng = game.initial_state(seed), [], np.random.default_rng(seed)
    policies = {"a": a, "b": b, JUDGE: judge}
    while not game.match_over(state):
        (seat,) = game.to_move(state)
        observation = game.observe(state, seat)
        action = policies[seat].act(observation, rng)
        assert game.problem(state, seat, action) is None
        seen.append((seat, observation, action))
        before, state = state, game.apply(state, {seat: action})
        shown = game.revealed(before, state)
        if shown:
            seen.append(("revealed", shown, None))
    return seen, state


@pytest.mark.parametrize("rules", GAMES)
def test_round_state_has_the_platforms_keys_and_five_phases_with_the_judge_after_each(rules):
    game = rules(rounds=2)
    seen, state = play(game, FixedDebater(), PrioritiesDebater(), ScriptedJudge(), 4)
    players = [(s, o) for s, o, _ in seen if s in ("a", "b")]
    assert all(set(o) == KEYS[rules] | {"game"} for _, o in players)
    assert len(players) == 2 * 5 * 2  # 2 rounds, 5 phases, both speak
    requests = [o["request"] for s, o, _ in seen if s == JUDGE]
    assert requests == (["response"] * 4 + ["decision"]) * 2
    assert [o["phase"] for s, o, _ in seen if s == JUDGE][:5] == list(rules.phases)
    assert sum(game.scores(state).values()) == 200.0


@pytest.mark.parametrize("rules", GAMES)
def test_a_player_never_sees_the_judges_private_traits_and_the_judge_never_sees_seats(rules):
    game = rules(rounds=3)
    for seed in range(6):
        seen, _ = play(game, PrioritiesDebater(), FixedDebater(), ScriptedJudge(), seed)
        for seat, observation, _ in seen:
            if seat in ("a", "b"):
                text = json.dumps(observation)
                assert "decision_style" not in text and "choices" not in text
                persona = observation.get("president") or observation["athlete"]
                assert "concerns" not in persona or rules is NilRecruitment
            elif seat == JUDGE:
                speakers = {entry["speaker"] for entry in observation["transcript"]}
                assert not speakers & {"a", "b", "you", "opponent"}
                assert speakers <= {*observation["choices"], observation["persona"]["name"]}


@pytest.mark.parametrize("rules", GAMES)
def test_a_long_argument_is_cut_and_marked_and_an_empty_one_refused(rules):
    game = rules()
    state = game.initial_state(0)
    (seat,) = game.to_move(state)
    kind = rules.action_type
    assert game.problem(state, seat, {"type": kind, "text": " "}) is not None
    state = game.apply(state, {seat: {"type": kind, "text": "x" * 600}})
    (spoken,) = state.transcript
    assert spoken.text == "x" * 500 + CUT_MARK and spoken.cut


@pytest.mark.parametrize("rules", GAMES)
def test_swap_sides_replays_each_scenario_with_the_sides_swapped(rules):
    game = rules(rounds=2, swap_sides=True)
    seen, _ = play(game, FixedDebater(), FixedDebater(), ScriptedJudge("first_speaker"), 9)
    shown = [o for s, o, _ in seen if s == "revealed"]
    assert len(shown) == 4
    for first, second in (shown[0:2], shown[2:4]):
        assert first["scenario"] == second["scenario"]
        assert first["sides"] == {"a": second["sides"]["b"], "b": second["sides"]["a"]}
        assert first["first_speaker"] == second["first_speaker"]
        # the first-speaker judge follows the player, not the side
        assert first["decision"]["winner_seat"] == second["decision"]["winner_seat"]
        assert first["decision"]["winner_side"] != second["decision"]["winner_side"]


@pytest.mark.parametrize("rules", GAMES)
def test_the_priorities_judge_picks_the_side_naming_its_priorities(rules):
    game = rules(rounds=4)
    for seed in range(3):
        _, state = play(game, FixedDebater(), PrioritiesDebater(), ScriptedJudge(), seed)
        assert [v.winner_seat for v in state.verdicts] == ["b"] * 4
        _, state = play(game, FixedDebater(), FixedDebater(), ScriptedJudge("first_listed"), seed)
        assert {v.winner_side for v in state.verdicts} <= {"for"} or rules is NilRecruitment


@pytest.mark.parametrize("rules", GAMES)
def test_the_fallbacks_are_the_generic_text_for_the_side_and_a_legal_decision(rules):
    game = rules()
    state = game.initial_state(5)
    while not game.match_over(state):
        (seat,) = game.to_move(state)
        action = game.fallback(state, seat, "timeout")
        assert game.problem(state, seat, action) is None
        if seat != JUDGE:
            side = (
                game.observe(state, seat).get("your_position")
                or game.observe(state, seat)["your_university"]
            )
            assert action["text"] == game.generic_text(side)
        state = game.apply(state, {seat: action})
    assert sorted(game.scores(state).values()) == [0.0, 100.0]


def test_a_decision_must_name_one_of_the_choices():
    game = NuclearWar()
    state = game.initial_state(0)
    for _ in range(14):
        (seat,) = game.to_move(state)
        state = game.apply(state, {seat: game.fallback(state, seat, "timeout")})
    (seat,) = game.to_move(state)
    assert seat == JUDGE and game.observe(state, seat)["request"] == "decision"
    assert "for" in game.problem(state, seat, {"type": "decision", "winner": "a"})
