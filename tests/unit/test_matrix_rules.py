"""The 2x2 games on the turn contract (pdbench.games.matrix, issue 43 stage C): every preset,
with and without noise, with split or steal's talk, passes the library's contract checks
(pdbench.games.check: whole legal matches, determinism, replay, JSON observations naming the
game, refusals and fallbacks, and observations that do not change when what the seat may not see
is drawn again); a round's talk is cut, marked and ordered as tests/reference_talk.py does it; a
seat never sees the other's commit or intended move."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pdbench.core.actions import Action
from pdbench.core.game import Game
from pdbench.core.rng import make_rng
from pdbench.core.talk import Negotiation
from pdbench.games.check import check_rules
from pdbench.games.matrix.house import CLASSIC_PLAYERS
from pdbench.games.matrix.rules import MatrixGame
from pdbench.games.tables import GAMES

TALK = Negotiation(exchanges=2, max_chars=12, timeout_message="(no answer)")
SPLIT_OR_STEAL_TALKING = GAMES["split_or_steal"].with_changes(negotiation=TALK)
PRESETS: dict[str, Game] = {**GAMES, "split_or_steal_talking": SPLIT_OR_STEAL_TALKING}
HOUSE = {name: factory() for name, factory in CLASSIC_PLAYERS.items()}


@pytest.mark.parametrize("noise", [0.0, 0.2])
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_2x2_preset_passes_the_contract_checks(preset, noise):
    rules = MatrixGame(game=PRESETS[preset], rounds=6, noise=noise)
    results = check_rules(rules, HOUSE, {}, seats=("a", "b"), seeds=4)
    assert [r.problem for r in results] == [None] * len(results), results
    assert len(results) == 3  # matches, refusals and fallbacks, hidden information


class _ShowsIntended(MatrixGame):
    """A 2x2 game whose round_state tells a seat what the other meant to play."""

    def observe(self, state, seat):  # type: ignore[no-untyped-def]
        seen = super().observe(state, seat)
        other = 1 if seat == "a" else 0
        return {**seen, "their_intended": [r.intended[other].value for r in state.finished]}


class _ShowsFlips(MatrixGame):
    """A 2x2 game whose round_state tells whether the next commit will tremble."""

    def observe(self, state, seat):  # type: ignore[no-untyped-def]
        from pdbench.games.matrix.rules import flips

        seen = super().observe(state, seat)
        index = min(state.round_number, self.rounds) - 1
        return {**seen, "trembles": flips(state.noise_seeds[0], self.noise, self.rounds)[index]}


@pytest.mark.parametrize("leaky", [_ShowsIntended, _ShowsFlips])
def test_the_hidden_information_check_catches_a_seat_shown_what_it_may_not_see(leaky):
    results = check_rules(leaky(rounds=6, noise=0.3), HOUSE, {}, seats=("a", "b"), seeds=4)
    problems = [r.problem for r in results if r.problem]
    assert problems and "the observation changes with what the seat may not see" in problems[0]


def _play(rules: MatrixGame, state, moves: dict[str, list[dict]]):
    """Apply scripted answers seat by seat until the match ends; the observations on the way."""
    seen = []
    while not rules.match_over(state):
        seats = rules.to_move(state)
        seen.extend((seat, rules.observe(state, seat)) for seat in seats)
        state = rules.apply(state, {seat: moves[seat].pop(0) for seat in seats})
    return state, seen


def _commit(move: str) -> dict:
    return {"type": "commit", "action": move}


def _say(text: str) -> dict:
    return {"type": "message", "text": text}


def test_talk_is_ordered_cut_and_marked_as_the_negotiation_phase_does_it():
    rules = MatrixGame(game=SPLIT_OR_STEAL_TALKING, rounds=2)
    state = rules.initial_state(3)
    assert rules.phase(state) == "talk" and rules.to_move(state) == ("a",)
    round_1 = {"a": ["  I will split, promise  ", "", "C"], "b": ["ok", "I'll split", "D"]}
    round_2 = {"a": ["x", "y", "D"], "b": ["z", "w", "D"]}
    said = {  # two messages each, then the commit, in each round
        seat: [
            _say(t) if i % 3 < 2 else _commit(t)
            for i, t in enumerate(round_1[seat] + round_2[seat])
        ]
        for seat in "ab"
    }
    final, seen = _play(rules, state, said)
    first, second = final.finished
    # speakers alternate, a opens round 1 and b round 2 (Negotiation.speakers)
    assert [m.speaker for m in first.conversation] == ["a", "b", "a", "b"]
    assert [m.speaker for m in second.conversation] == ["b", "a", "b", "a"]
    opening = first.conversation[0]
    assert (opening.text, opening.cut, opening.promise) == ("I will split", True, True)
    assert first.conversation[3].promise and not first.conversation[1].promise
    # each seat is shown the talk so far from its own side, and the commit shows all of it
    b_first = next(s for seat, s in seen if seat == "b")
    assert b_first["messages"] == [{"turn": 1, "mine": False, "text": "I will split"}]
    assert b_first["turn"] == 2
    a_commit = next(s for seat, s in seen if seat == "a" and s["phase"] == "commit")
    assert [m["mine"] for m in a_commit["messages"]] == [True, False, True, False]
    assert a_commit["turn"] == 5
    assert rules.scores(final) == {"a": 0.0 + 0.0, "b": 100.0 + 0.0}


def test_fallbacks_are_the_timeout_message_silence_and_defection():
    rules = MatrixGame(game=SPLIT_OR_STEAL_TALKING, rounds=1)
    state = rules.initial_state(0)
    assert rules.fallback(state, "a", "timeout") == _say("(no answer)")
    assert rules.fallback(state, "a", "invalid") == _say("")
    assert MatrixGame().fallback(MatrixGame().initial_state(0), "b", "invalid") == _commit("D")
    split_or_steal = MatrixGame(game=GAMES["split_or_steal"])
    refused = split_or_steal.problem(split_or_steal.initial_state(0), "a", _commit("split"))
    assert refused == "\"action\" must be one of C (split), D (steal), got 'split'"


def test_noise_flips_the_rounds_the_runner_trembling_hand_flips_and_shows_only_the_played_move():
    rules = MatrixGame(rounds=40, noise=0.25)
    state = rules.dealt(5, noise_seeds=(101, 202))
    final, seen = _play(rules, state, {"a": [_commit("C")] * 40, "b": [_commit("C")] * 40})
    for side, noise_seed in zip((0, 1), (101, 202), strict=True):
        stream = make_rng(noise_seed)  # TremblingHand: one draw per round, in order
        expected = [Action.D if stream.random() < 0.25 else Action.C for _ in range(40)]
        assert [r.played[side] for r in final.finished] == expected
        assert all(r.intended[side] is Action.C for r in final.finished)
    assert any(r.played[0] is Action.D for r in final.finished)
    # what a seat is shown: played moves, never an intended one (every commit here was C)
    last_a = [s for seat, s in seen if seat == "a"][-1]
    shown = [(h["your_action"], h["opponent_action"]) for h in last_a["history"]]
    assert shown == [(r.played[0].value, r.played[1].value) for r in final.finished[:-1]]


def test_a_seat_is_never_shown_the_other_seats_commit_before_the_round_is_scored():
    rules = MatrixGame(rounds=3)
    state = rules.initial_state(1)
    before = rules.observe(state, "b")
    moved = rules.apply(state, {"a": _commit("D"), "b": _commit("C")})
    # the commit is simultaneous: both are asked from the same state, so neither sees the other
    assert rules.to_move(state) == ("a", "b")
    assert before == rules.observe(state, "b")
    assert rules.observe(moved, "b")["history"][0]["opponent_action"] == "D"
    assert json.loads(json.dumps(before)) == before  # JSON as stored and hashed


def test_scores_are_the_cumulative_payoffs_summed_in_order_as_floats():
    game = GAMES["battle_of_the_sexes"]
    rules = MatrixGame(game=game, rounds=3)
    moves = {"a": [_commit(m) for m in "CDC"], "b": [_commit(m) for m in "CDD"]}
    final, _ = _play(rules, rules.initial_state(0), moves)
    assert rules.scores(final) == {"a": 10.0 + 7.0 + 0.0, "b": 7.0 + 10.0 + 0.0}
    assert rules.fixed_length().turns == 3 and rules.fixed_length().turns_per_seat == 3
    talking = MatrixGame(game=SPLIT_OR_STEAL_TALKING, rounds=5).fixed_length()
    assert (talking.turns, talking.turns_per_seat) == (25, 15)


def test_bad_options_and_seeds_are_refused_naming_them():
    with pytest.raises(ValueError, match="rounds"):
        MatrixGame(rounds=0)
    with pytest.raises(ValueError, match="noise"):
        MatrixGame(noise=1.5)
    with pytest.raises(ValueError, match="seed"):
        MatrixGame().initial_state(-1)
    assert np.isclose(MatrixGame(noise=0.5).noise, 0.5)


def test_each_2x2_game_has_an_entry_built_from_its_table_and_checks_by_its_id():
    from pdbench.games.check import check_game
    from pdbench.games.registry import GAME_FAMILIES, MATRIX_GAMES, build_turn_game, game_entry

    assert set(MATRIX_GAMES) == set(GAMES)  # one entry per table of pdbench.games.tables
    assert {g for g, family in GAME_FAMILIES.items() if family == "matrix"} == set(GAMES)
    for game_id, table in GAMES.items():
        entry = game_entry(game_id)
        assert (entry.platform_name, entry.ranked_on) == (table.arena_id, table.ranked_on)
        rules = build_turn_game(game_id, rounds=4)
        assert (rules.id, rules.platform_name, rules.game) == (game_id, table.arena_id, table)
        results = check_game(game_id, seeds=3)
        assert [r.problem for r in results] == [None] * 4, results


def test_train_seats_a_2x2_file_against_the_entrys_training_opponent():
    from pdbench.cli.train_table import training_table

    table = training_table("stag_hunt", against=None, rounds=7, seats=None)
    assert table.opponents == {"agent_b": "tft"}
    assert table.overrides == ("horizon.rounds=7",)
