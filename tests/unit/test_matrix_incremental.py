"""A 2x2 match on the turn loop does not remake what a seat is shown from every finished round
at every turn (issue 43 stage C's slowdown for LLM matches): the state keeps each seat's view of
the finished rounds as it grows, in its round_state's form (`MatrixState.history`), always what
was played from that seat's side, and a round_state copies it; a round_state is new at every
call all the same (changing one changes nothing else, nor the state); a seated agent's past
rounds are converted once each; and a turn whose seats answer at once (house players, the mock,
the cache) schedules nothing on the event loop."""

from __future__ import annotations

import asyncio
import itertools

import numpy as np
import pytest
from helpers import TEST_DEAL
from matrix_loops import Recording, play_on_loop, play_on_turns

from pdbench.agents.base import Decision, TableAgent
from pdbench.agents.policy import PolicyAgent
from pdbench.config.schema import ExperimentSpec
from pdbench.core.actions import Action
from pdbench.core.talk import Negotiation
from pdbench.core.transcript import Observation
from pdbench.games.matrix.rules import MatrixGame
from pdbench.games.tables import GAMES
from pdbench.runners.plan import plan_matches
from pdbench.strategies import POLICIES

TALK = Negotiation(exchanges=1, max_chars=40, timeout_message="(no answer)")


def _seen_from_finished(state, own: int) -> list[dict]:  # type: ignore[no-untyped-def]
    other = 1 - own
    return [
        {
            "round": r.round_number,
            "your_action": r.played[own].value,
            "opponent_action": r.played[other].value,
            "your_points": r.payoffs[own],
            "opponent_points": r.payoffs[other],
        }
        for r in state.finished
    ]


@pytest.mark.parametrize("talk", [None, TALK])
def test_each_seats_view_is_what_was_played_from_its_side_and_grows_by_appending(talk):
    rules = MatrixGame(game=GAMES["chicken"].with_changes(negotiation=talk), rounds=8, noise=0.3)
    rng = np.random.default_rng(5)
    state = rules.initial_state(11)
    while not rules.match_over(state):
        moving = rules.to_move(state)
        if state.phase == "talk":
            answers = {seat: {"type": "message", "text": "hello"} for seat in moving}
        else:
            answers = {s: {"type": "commit", "action": "CD"[rng.integers(2)]} for s in moving}
        after = rules.apply(state, answers)
        for own, seat in enumerate("ab"):
            assert list(after.history[own]) == _seen_from_finished(after, own)
            kept = after.history[own][: len(state.history[own])]
            assert all(new is old for new, old in zip(kept, state.history[own], strict=True))
            shown = rules.observe(after, seat)["history"]
            assert shown == list(after.history[own])  # the round_state copies the kept entries
            assert not any(
                entry is kept for entry, kept in zip(shown, after.history[own], strict=True)
            )
        state = after
    assert any(r.played != r.intended for r in state.finished)  # the trembling hand played


def test_a_round_state_is_new_at_every_call_so_changing_one_changes_nothing_else():
    rules = MatrixGame(game=GAMES["stag_hunt"], rounds=4)
    state = rules.initial_state(2)
    for move in "CD":
        state = rules.apply(state, {s: {"type": "commit", "action": move} for s in "ab"})
    before = rules.observe(state, "a")
    changed = rules.observe(state, "a")
    changed["actions"]["C"] = "?"
    changed["payoffs"]["CC"][0] = -1
    changed["history"][0]["your_action"] = "D"
    changed["history"].append({})
    assert rules.observe(state, "a") == before
    with pytest.raises(TypeError):  # and the entries the state keeps are read-only
        state.history[0][0]["your_action"] = "D"  # type: ignore[index]
    assert rules.observe(state, "b")["actions"] == before["actions"]


class Instant(TableAgent):
    """An agent that waits on a provider which answers at once (the mock, the cache) and is
    shown the whole match: tit for tat."""

    waits = True
    name = "INSTANT"
    history_window = None

    async def decide(self, obs: Observation) -> Decision:
        last = obs.last
        return Decision(Action.C if last is None else last.opponent_action)


def _planned(rounds: int, replicates: int = 1):  # type: ignore[no-untyped-def]
    spec = ExperimentSpec.model_validate(
        {
            "run": {"seed": 3, "replicates": replicates},
            "conditions": [
                {
                    "name": "one",
                    "game": {"id": "pd", "noise": 0.2},
                    "horizon": {"type": "fixed", "rounds": rounds},
                    "agent_a": {"type": "policy", "policy": "tft"},
                    "agent_b": {"type": "policy", "policy": "tft"},
                }
            ],
        }
    )
    return plan_matches(spec, TEST_DEAL)


def test_a_seated_agent_is_shown_each_past_round_once_converted_not_rebuilt_every_turn():
    (planned,) = _planned(rounds=6)
    seated = Recording(Instant())
    agents: dict[str, TableAgent] = {"a": seated, "b": PolicyAgent(POLICIES["tft"](GAMES["pd"]))}
    asyncio.run(play_on_turns(planned, agents))
    shown = [obs.history for _, obs in seated.seen]
    assert [len(h) for h in shown] == [0, 1, 2, 3, 4, 5]
    for earlier, later in itertools.pairwise(shown):
        assert all(again is first for again, first in zip(later, earlier, strict=False))
    # and what it was shown is what the match loop shows it
    on_loop = Recording(Instant())
    asyncio.run(play_on_loop(planned, {"a": on_loop, "b": agents["b"]}))
    assert seated.seen == on_loop.seen


class CountingLoop(asyncio.SelectorEventLoop):
    """An event loop that counts the callbacks scheduled on it (a task's steps, a done future's
    callbacks, a yield)."""

    scheduled = 0

    def call_soon(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        CountingLoop.scheduled += 1
        return super().call_soon(*args, **kwargs)


def test_a_turn_whose_seats_answer_at_once_schedules_nothing_on_the_event_loop():
    (planned,) = _planned(rounds=20)
    agents: dict[str, TableAgent] = {"a": Instant(), "b": PolicyAgent(POLICIES["tft"](GAMES["pd"]))}
    with asyncio.Runner(loop_factory=CountingLoop) as runner:
        runner.run(asyncio.sleep(0))  # the runner's own start
        CountingLoop.scheduled = 0
        played, _ = runner.run(play_on_turns(planned, agents))
    assert len(played.turns) == 20
    # Before: two tasks a turn, each scheduled to start and to report (over 80 callbacks).
    # Now: the match's own task, and a yield at most every YIELD_EVERY_S.
    assert CountingLoop.scheduled < 10


class OnePass(Instant):
    """An agent whose provider answers after one pass of the event loop (a future set by a
    callback), as a real call's answer arrives."""

    async def decide(self, obs: Observation) -> Decision:
        answered = asyncio.get_running_loop().create_future()
        asyncio.get_running_loop().call_soon(answered.set_result, None)
        await answered
        return await super().decide(obs)


def test_a_turn_with_one_waiting_seat_resumes_the_match_as_soon_as_it_answers():
    """Against house players the one seat that waits is awaited in the match's own task: its
    answer resumes the match in the pass it arrives, as the 2x2 match loop did. Each extra pass
    is a wait behind every other match's ready work (at 32 concurrent LLM matches, a third of
    a round's 0.05 s wait before)."""
    (planned,) = _planned(rounds=20)
    agents: dict[str, TableAgent] = {"a": OnePass(), "b": PolicyAgent(POLICIES["tft"](GAMES["pd"]))}
    with asyncio.Runner(loop_factory=CountingLoop) as runner:
        runner.run(asyncio.sleep(0))
        CountingLoop.scheduled = 0
        played, _ = runner.run(play_on_turns(planned, agents))
        CountingLoop.scheduled_by_turns = CountingLoop.scheduled
        CountingLoop.scheduled = 0
        runner.run(play_on_loop(planned, {"a": OnePass(), "b": agents["b"]}))
    assert len(played.turns) == 20
    # Per round the provider's own answer and the match resuming: as many as the match loop.
    assert CountingLoop.scheduled_by_turns <= CountingLoop.scheduled + 2
