"""A 2x2 match on the turn loop costs what the match loop cost (issue 43 stage C's slowdown for
LLM matches): a turn whose seats answer at once (house players, the mock, the cache) schedules
nothing on the event loop."""

from __future__ import annotations

import asyncio

from helpers import TEST_DEAL
from matrix_loops import play_on_turns

from pdbench.agents.base import AgentBase, Decision
from pdbench.agents.policy import PolicyAgent
from pdbench.config.schema import ExperimentSpec
from pdbench.core.actions import Action
from pdbench.core.game import GAMES
from pdbench.core.transcript import Observation
from pdbench.runners.plan import plan_matches
from pdbench.strategies import POLICIES


class Instant(AgentBase):
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


class CountingLoop(asyncio.SelectorEventLoop):
    """An event loop that counts the callbacks scheduled on it (a task's steps, a done future's
    callbacks, a yield)."""

    scheduled = 0

    def call_soon(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        CountingLoop.scheduled += 1
        return super().call_soon(*args, **kwargs)


def test_a_turn_whose_seats_answer_at_once_schedules_nothing_on_the_event_loop():
    (planned,) = _planned(rounds=20)
    agents: dict[str, AgentBase] = {"a": Instant(), "b": PolicyAgent(POLICIES["tft"](GAMES["pd"]))}
    with asyncio.Runner(loop_factory=CountingLoop) as runner:
        runner.run(asyncio.sleep(0))  # the runner's own start
        CountingLoop.scheduled = 0
        played, _ = runner.run(play_on_turns(planned, agents))
    assert len(played.turns) == 20
    # Before: two tasks a turn, each scheduled to start and to report (over 80 callbacks).
    # Now: the match's own task, and a yield at most every YIELD_EVERY_S.
    assert CountingLoop.scheduled < 10
