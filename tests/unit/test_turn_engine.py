"""The turn loop (pdbench.runners.turns) against scripted agents: the rules' check is the
engine's own (an agent is never trusted), refused answers are re-asked and counted, and what
follows (the game's fallback, or the match aborts) is recorded; an agent that does not play turn
games ends the match with a clear error. And the leak test: no observation, and no stored turn
line, carries the opponent's dice of a round still in play."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace

import numpy as np
import pytest

from pdbench.agents.base import AgentBase, TableAgent, TurnDecision, TurnRequest
from pdbench.agents.policy import TurnPolicyAgent
from pdbench.games.liars_dice.policies import Bluffer, ProbabilityLiar, RandomLiar
from pdbench.games.registry import build_turn_game
from pdbench.games.replay import replay
from pdbench.runners.turn_records import turn_line
from pdbench.runners.turns import PlayedTurn, SeatRule, SeatTurn, play_turn_match


class Scripted(AgentBase):
    """Answers the given actions in order, then the house player's (to finish the match)."""

    def __init__(self, name: str, answers: list[dict]) -> None:
        self.name = name
        self.answers = list(answers)
        self.seen: list[dict] = []
        self.rng = np.random.default_rng(0)

    async def take_turn(self, request: TurnRequest) -> TurnDecision:
        self.seen.append(request.round_state)
        if self.answers:
            return TurnDecision(action=self.answers.pop(0))
        return TurnDecision(action=RandomLiar().act(request.round_state, self.rng))


class NoTurns(AgentBase):
    name = "dilemma-only"


def play(game, a, b, *, seed=1, rules=None, max_turns=500):
    return asyncio.run(
        play_turn_match(
            game,
            {"a": a, "b": b},
            seed=seed,
            agent_seeds={"a": 1, "b": 2},
            rules=rules or {"a": SeatRule(), "b": SeatRule()},
            max_turns=max_turns,
        )
    )


def test_an_illegal_answer_is_reasked_counted_then_played_as_the_marked_fallback():
    game = build_turn_game("liars_dice")
    bad = {"type": "bid", "quantity": 99, "face": 3}  # more dice than are in play
    a = Scripted("liar", [bad, bad, bad])
    result = play(
        game, a, Scripted("other", []), rules={"a": SeatRule("fallback", 2), "b": SeatRule()}
    )
    first = result.turns[0].seats["a"]
    assert (first.asked, first.invalid_outputs, first.fallback) == (3, 3, True)
    assert "quantity 99" in first.refused
    assert first.action == game.fallback(game.initial_state(1), "a", "invalid")
    assert len(a.seen) >= 3 and a.seen[0] == a.seen[1]  # re-asked the same observation
    assert result.error is None


def test_a_reask_that_comes_back_legal_is_played_and_counted():
    game = build_turn_game("liars_dice")
    legal = {"type": "bid", "quantity": 1, "face": 2}
    result = play(
        game,
        Scripted("liar", [{"type": "challenge"}, legal]),  # no bid to challenge yet
        Scripted("other", []),
        rules={"a": SeatRule("abort", 1), "b": SeatRule()},
    )
    first = result.turns[0].seats["a"]
    assert (first.action, first.asked, first.invalid_outputs, first.fallback) == (
        legal,
        2,
        1,
        False,
    )


def test_on_invalid_abort_ends_the_match_saying_why():
    game = build_turn_game("liars_dice")
    result = play(
        game,
        Scripted("liar", [{"type": "raise"}]),
        Scripted("other", []),
        rules={"a": SeatRule("abort", 0), "b": SeatRule()},
    )
    assert result.turns == [] and not result.completed
    assert "liar (seat a) gave no legal action in liars_dice" in result.error
    assert "type must be" in result.error


def test_an_agent_that_does_not_play_turn_games_ends_the_match_with_a_clear_error():
    result = play(build_turn_game("liars_dice"), NoTurns(), Scripted("other", []))
    assert result.turns == []
    assert result.error == (
        "dilemma-only (seat a) cannot play liars_dice: NoTurns does not play turn-based games"
    )


def test_what_the_runner_plays_has_no_2x2_hook_to_call():
    """The once-a-round hooks are the 2x2 seat's contract (`TableAgent`, adapted by
    `games.matrix.seat.MatrixSeat`): the agent the runner plays (`AgentBase`) has none of them."""
    table_hooks = {"act", "decide", "negotiate", "history_window", "include_totals"}
    assert not table_hooks & set(dir(AgentBase))
    assert table_hooks <= set(dir(TableAgent))


def test_the_turn_cap_aborts_a_match_that_has_not_ended():
    result = play(build_turn_game("liars_dice"), Scripted("a", []), Scripted("b", []), max_turns=3)
    assert len(result.turns) == 3
    assert result.error == "the match reached game.max_turns (3) before it ended"


def test_a_match_replays_from_its_seed_and_stored_actions_to_the_same_state():
    game = build_turn_game("liars_dice", wild_ones=True)
    a, b = TurnPolicyAgent(Bluffer(), "bluffer"), TurnPolicyAgent(ProbabilityLiar(), "prob")
    result = play(game, a, b, seed=7)
    again = play(game, a, b, seed=7)
    assert [t.seats for t in again.turns] == [t.seats for t in result.turns]
    stored = [{s: t.action for s, t in turn.seats.items()} for turn in result.turns]
    assert replay(game, 7, stored) == result.final_state


def _hidden_dice(state, seat: str) -> list[int]:
    return list(state.dice[1 if seat == "a" else 0])


@pytest.mark.parametrize("options", [{}, {"wild_ones": True, "dice_per_player": 3, "faces": 4}])
def test_no_observation_or_stored_turn_shows_the_opponents_dice_of_a_round_in_play(options):
    """Walks every observation of 60 seeded matches (every seat that moves, and both seats at
    every turn) and every stored turn line before its showdown."""
    game = build_turn_game("liars_dice", **options)
    players = [RandomLiar(), ProbabilityLiar(0.3), Bluffer(2)]
    checked = 0
    for seed in range(60):
        rngs = [np.random.default_rng([seed, 0]), np.random.default_rng([seed, 1])]
        pair = (players[seed % 3], players[(seed + 1) % 3])
        state = game.initial_state(seed)
        while not game.match_over(state):
            for seat in ("a", "b"):
                seen = game.observe(state, seat)
                hidden = _hidden_dice(state, seat)
                text = json.dumps(seen)
                # the round in play: only its own dice, counts and bids; the opponent's hand
                # appears only in finished rounds' records
                live = {k: v for k, v in seen.items() if k != "rounds_history"}
                assert 'opponent_dice"' not in json.dumps(live)
                assert seen["your_dice"] == list(state.dice[0 if seat == "a" else 1])
                for past in seen["rounds_history"]:
                    assert past["round"] < state.round_number
                # the strongest form: other opponent dice would show the seat the same thing
                other = tuple(sorted(d % game.faces + 1 for d in hidden))
                dice = (state.dice[0], other) if seat == "a" else (other, state.dice[1])
                assert game.observe(replace(state, dice=dice), seat) == seen, text
                checked += 1
            (mover,) = game.to_move(state)
            seen = game.observe(state, mover)
            action = pair[0 if mover == "a" else 1].act(seen, rngs[0 if mover == "a" else 1])
            before = state
            state = game.apply(state, {mover: action})
            revealed = game.revealed(before, state)
            line = turn_line(
                {"condition": "c"},
                PlayedTurn(
                    before.round_number,
                    1,
                    "bid",
                    {mover: "x"},
                    {mover: SeatTurn(action, 1, 0)},
                    revealed,
                    0.0,
                ),
                marked={},
                store_prompts=True,
            )
            if revealed is None:  # no showdown: the round's dice stay hidden from the line
                assert "dice" not in json.dumps(line)
            else:  # a showdown shows exactly the hands of the round it ended
                assert line["revealed"]["showdown"]["dice"] == {
                    "a": list(before.dice[0]),
                    "b": list(before.dice[1]),
                }
    assert checked > 1000
