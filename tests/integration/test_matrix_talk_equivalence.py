"""Split or steal's conversation and aborted matches on the turn loop (games/matrix's rules, as
the runner plays them) give what the reference match loop gives (issue 43 stage C, step 2):
scripted talkers' messages cut, marked and ordered alike, each agent shown the same
observations call for call, the same stored lines and call counts; an abort at a commit or in
the talk keeps the same rounds, error and paid attempts."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest
from helpers import TEST_DEAL
from matrix_loops import (
    Recording,
    loop_rows,
    play_on_loop,
    play_on_turns,
    stored_lines,
    turn_rows,
    turn_stored_lines,
)
from reference_loop import MatchResult

from pdbench.agents.base import Decision, TableAgent, Utterance
from pdbench.config.schema import ExperimentSpec
from pdbench.core.actions import Action
from pdbench.core.errors import MatchAborted
from pdbench.core.talk import Negotiation
from pdbench.core.transcript import Observation
from pdbench.games.tables import GAMES
from pdbench.providers.base import TransportFailure
from pdbench.runners.plan import PlannedMatch, plan_matches
from pdbench.runners.turns import TurnMatchResult
from pdbench.storage.schema import HookAttempt, stored_attempts


class Talker(TableAgent):
    """A scripted split-or-steal player: its utterances in order, then silence, and its moves."""

    def __init__(
        self, name: str, utterances: list[Utterance], moves: str, *, sees_all: bool
    ) -> None:
        # the whole match and the totals, or as a classic policy: the last round alone
        self.history_window, self.include_totals = (None, True) if sees_all else (1, False)
        self.name = name
        self.utterances = utterances
        self.moves = moves
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        self.said = 0
        self.played = 0

    async def negotiate(self, obs: Observation) -> Utterance:
        self.said += 1
        return (
            self.utterances[self.said - 1] if self.said <= len(self.utterances) else Utterance("")
        )

    def act(self, obs: Observation) -> Action:
        self.played += 1
        return Action(self.moves[self.played - 1])


def _talkers() -> dict[str, Talker]:
    return {
        "a": Talker(
            "TALKER_A",
            [
                Utterance("x" * 400),  # cut to the limit and marked
                Utterance("I will split."),  # a promise
                Utterance("late", timeout=True, error="too slow"),  # the timeout message
                Utterance("???", invalid=True),  # kept, marked invalid
            ],
            "CCDCD",
            sees_all=True,
        ),
        "b": Talker(
            "TALKER_B",
            [Utterance("  let's split  "), Utterance(""), Utterance("I'll split", timeout=True)],
            "CDCCD",
            sees_all=False,
        ),
    }


def _message_rows(result: MatchResult) -> list[tuple]:
    return [
        (m.speaker, m.turn, m.text, m.cut, m.empty, m.timeout, m.invalid, m.promise, m.error)
        for r in result.rounds
        for m in r.conversation or ()
    ]


def _turn_message_rows(result: TurnMatchResult) -> list[tuple]:
    talk = [t for t in result.turns if t.phase == "talk"]
    messages = [m for r in result.final_state.finished for m in r.conversation]
    rows = []
    for turn, m in zip(talk, messages, strict=True):
        seat = turn.seats[m.speaker]
        invalid = seat.invalid_outputs > 0
        row = (m.speaker, m.turn, m.text, m.cut, not m.text, seat.timeout, invalid, m.promise)
        rows.append((*row, seat.error))
    return rows


@pytest.mark.parametrize("noise", [0.0, 0.3])
def test_scripted_talkers_say_and_see_the_same_conversation_on_both_loops(noise):
    talk = Negotiation(exchanges=2, max_chars=280, timeout_message="(timed out)")
    game = GAMES["split_or_steal"].with_changes(negotiation=talk)
    spec = ExperimentSpec.model_validate(
        {
            "run": {"seed": 4, "replicates": 3},
            "conditions": [
                {
                    "name": "talkers",
                    "game": {"id": "split_or_steal", "noise": noise},
                    "horizon": {"type": "fixed", "rounds": 5},
                    "agent_a": {"type": "policy", "policy": "allc"},
                    "agent_b": {"type": "policy", "policy": "allc"},
                }
            ],
        }
    )
    for planned in plan_matches(spec, TEST_DEAL):
        planned = PlannedMatch(**{**vars(planned), "rules": replace(planned.rules, game=game)})
        on_loop = {s: Recording(t) for s, t in _talkers().items()}
        on_turns = {s: Recording(t) for s, t in _talkers().items()}
        loop = asyncio.run(play_on_loop(planned, on_loop))  # type: ignore[arg-type]
        turns, stored = asyncio.run(play_on_turns(planned, on_turns))  # type: ignore[arg-type]
        assert turn_rows(turns) == loop_rows(loop)
        assert _turn_message_rows(turns) == _message_rows(loop)
        assert turn_stored_lines(planned, stored) == stored_lines(planned, loop)
        assert len(_message_rows(loop)) == 20
        for side in "ab":
            assert on_turns[side].seen == on_loop[side].seen


def _hook(said: str) -> HookAttempt:
    return HookAttempt(hook="on_turn", elapsed_s=0.5, response=said)


class Aborting(Talker):
    """A talker whose `at`-th negotiate or act call aborts the match, with an attempt of its
    own; every message it says before carries one too (what the ledger must keep)."""

    def __init__(self, at: tuple[str, int]) -> None:
        said = [Utterance(f"m{i}", attempts=(_hook(f"m{i}"),)) for i in range(1, 9)]
        super().__init__("ABORTING", said, "CDCD", sees_all=True)
        self.at = at

    async def negotiate(self, obs: Observation) -> Utterance:
        if self.at == ("negotiate", self.said + 1):
            raise MatchAborted("no message", attempts=(_hook("last words"),))
        return await super().negotiate(obs)

    def act(self, obs: Observation) -> Action:
        if self.at == ("act", self.played + 1):
            raise MatchAborted("no move", attempts=(_hook("no move"),))
        return super().act(obs)


@pytest.mark.parametrize("at", [("negotiate", 3), ("act", 2)])
def test_an_abort_keeps_the_same_rounds_error_and_paid_attempts_on_both_loops(at):
    """The match loop keeps the aborted round's talk (its calls were paid) when the abort
    came at the commit, none of it when it came during the talk: so does the turn loop."""
    talk = Negotiation(exchanges=2, max_chars=280)
    spec = ExperimentSpec.model_validate(
        {
            "run": {"seed": 8, "replicates": 1},
            "conditions": [
                {
                    "name": "aborting",
                    "game": {"id": "split_or_steal"},
                    "horizon": {"type": "fixed", "rounds": 4},
                    "agent_a": {"type": "policy", "policy": "allc"},
                    "agent_b": {"type": "policy", "policy": "allc"},
                }
            ],
        }
    )
    (planned,) = plan_matches(spec, TEST_DEAL)
    talking = GAMES["split_or_steal"].with_changes(negotiation=talk)
    planned = PlannedMatch(**{**vars(planned), "rules": replace(planned.rules, game=talking)})

    def agents() -> dict[str, TableAgent]:
        said = [Utterance(f"b{i}", attempts=(_hook(f"b{i}"),)) for i in range(1, 9)]
        return {"a": Aborting(at), "b": Talker("TALKER_B", said, "CCCC", sees_all=False)}

    loop = asyncio.run(play_on_loop(planned, agents()))
    _, match = asyncio.run(play_on_turns(planned, agents()))
    stored = match.stored.ledger
    assert loop.error is not None and stored.error == loop.error
    assert stored.n_rounds == len(loop.rounds) == 1
    assert stored.aborted_round_attempts == stored_attempts(loop.aborted_attempts, True)
    assert len(loop.aborted_attempts) == (5 if at[0] == "act" else 1)
    assert turn_stored_lines(planned, match) == stored_lines(planned, loop)


def _one_condition(game: str, rounds: int) -> ExperimentSpec:
    return ExperimentSpec.model_validate(
        {
            "run": {"seed": 8, "replicates": 1},
            "conditions": [
                {
                    "name": "one",
                    "game": {"id": game},
                    "horizon": {"type": "fixed", "rounds": rounds},
                    "agent_a": {"type": "policy", "policy": "allc"},
                    "agent_b": {"type": "policy", "policy": "allc"},
                }
            ],
        }
    )


class Waiting(TableAgent):
    """An agent that waits on something outside (a provider) for each move: it cooperates after
    `delay` seconds, or fails with `failure` at once."""

    waits = True
    history_window = 1

    def __init__(self, name: str, *, delay: float = 0.0, failure: Exception | None = None):
        self.name = name
        self.delay = delay
        self.failure = failure
        self.finished = 0

    async def decide(self, obs: Observation) -> Decision:
        if self.failure is not None:
            raise self.failure
        await asyncio.sleep(self.delay)
        self.finished += 1
        return Decision(Action.C)


@pytest.mark.parametrize("failure", [MatchAborted("gave up"), TransportFailure("down")])
def test_a_seats_failure_is_raised_once_the_other_seats_call_is_over(failure):
    """As the match loop does: when both seats wait on providers, both finish before either's
    failure is raised, so no call is left running (and none is lost to the ledger)."""
    (planned,) = plan_matches(_one_condition("pd", rounds=3), TEST_DEAL)
    slow = Waiting("SLOW", delay=0.05)

    async def play() -> str:
        try:
            result = await play_on_turns(
                planned, {"a": Waiting("FAILS", failure=failure), "b": slow}
            )
        except TransportFailure as raised:
            return f"raised {raised}"
        return f"aborted: {result[0].error}"

    outcome = asyncio.run(play())
    assert outcome in ("aborted: gave up", "raised down")
    assert slow.finished == 1  # b's call of round 1 was waited for, not left running
