"""The 2x2 games on the turn contract play exactly the rounds of today's two paths (issue 43
stage C, step 2): `pdbench.games.matrix` through the turn loop (`runners.turns`, each agent
seated by `games.matrix.seat.MatrixSeat`) gives, round by round, the actions intended and played,
the payoffs and the running totals that the match loop (`runners.match`) and the numpy fast
path (`runners.batch`) give for the same planned match: every 2x2 preset, classic policies
without and with a trembling hand, and scripted talkers in split or steal's conversation. Each
agent is also shown the same observations, call for call, on both loops."""

from __future__ import annotations

import asyncio
import itertools

import numpy as np
import pytest
from helpers import TEST_DEAL

from pdbench.agents.base import AgentBase, Decision, Utterance
from pdbench.agents.policy import make_policy_agent
from pdbench.config.schema import ExperimentSpec
from pdbench.core.actions import Action
from pdbench.core.errors import MatchAborted
from pdbench.core.game import GAMES
from pdbench.core.talk import Negotiation
from pdbench.core.transcript import Observation
from pdbench.runners.batch import play_batch
from pdbench.runners.match import MatchResult, play_match
from pdbench.runners.matrix_run import match_result, matrix_rules, play_matrix_turns
from pdbench.runners.plan import PlannedMatch, plan_matches
from pdbench.runners.records import call_counts, round_lines
from pdbench.runners.turns import TurnMatchResult
from pdbench.storage.schema import HookAttempt
from pdbench.strategies import POLICIES

NAMES = sorted(POLICIES)
# One row per round: intended a, b; played a, b; payoffs a, b; running totals a, b.
Row = tuple[str, str, str, str, float, float, float, float]


class Recording(AgentBase):
    """Passes every call to `agent` and keeps every observation it is shown, in order."""

    def __init__(self, agent: AgentBase) -> None:
        self.agent = agent
        self.name = agent.name
        self.waits = agent.waits
        self.history_window = agent.history_window
        self.include_totals = agent.include_totals
        self.seen: list[tuple[str, Observation]] = []

    def reset(self, seed: int | None = None) -> None:
        self.agent.reset(seed)

    def act(self, obs: Observation) -> Action:
        self.seen.append(("act", obs))
        return self.agent.act(obs)

    async def decide(self, obs: Observation) -> Decision:
        self.seen.append(("decide", obs))
        return await self.agent.decide(obs)

    async def negotiate(self, obs: Observation) -> Utterance:
        self.seen.append(("negotiate", obs))
        return await self.agent.negotiate(obs)


def _spec(game: str, noise: float, pairs: list[tuple[str, str]], horizon: dict) -> ExperimentSpec:
    return ExperimentSpec.model_validate(
        {
            "run": {"seed": 29, "replicates": 2},
            "conditions": [
                {
                    "name": f"{a}_vs_{b}",
                    "game": {"id": game, "noise": noise},
                    "horizon": horizon,
                    "agent_a": {"type": "policy", "policy": a},
                    "agent_b": {"type": "policy", "policy": b},
                }
                for a, b in pairs
            ],
        }
    )


async def _play_turns(
    planned: PlannedMatch, agents: dict[str, AgentBase]
) -> tuple[TurnMatchResult, MatchResult]:
    """The match on the turn loop: its turns, and the match loop's result the writer makes of
    them (`runners.matrix_run`, what the runner stores)."""
    rules = matrix_rules(planned)
    played, seats = await play_matrix_turns(rules, planned, agents["a"], agents["b"])
    return played, match_result(rules, played, seats)


def _lines(planned: PlannedMatch, result: MatchResult) -> list[bytes]:
    """The rounds.jsonl lines stored, without their write times, and the ledger's counts."""
    lines = round_lines(planned, result, run_id="r", store_prompts=True)
    return [
        *(line.split(b',"timestamp_utc"')[0] for line in lines),
        repr(call_counts(result)).encode(),
    ]


async def _loop(planned: PlannedMatch, agents: dict[str, AgentBase]) -> MatchResult:
    return await play_match(
        planned.matrix_game,
        planned.n_rounds,
        agents["a"],
        agents["b"],
        seed_a=planned.seed_a,
        seed_b=planned.seed_b,
        disclose_rounds=planned.horizon.type == "fixed",
        noise=planned.noise,
        noise_seeds=planned.noise_seeds,
    )


def _loop_rows(result: MatchResult) -> list[Row]:
    return [
        (
            (r.intended_a or r.played.action_a).value,
            (r.intended_b or r.played.action_b).value,
            r.played.action_a.value,
            r.played.action_b.value,
            r.played.payoff_a,
            r.played.payoff_b,
            r.cum_payoff_a,
            r.cum_payoff_b,
        )
        for r in result.rounds
    ]


def _turn_rows(result: TurnMatchResult) -> list[Row]:
    rows = []
    totals = [0.0, 0.0]
    commits = [t for t in result.turns if t.phase == "commit"]
    for finished, turn in zip(result.final_state.finished, commits, strict=True):
        totals = [totals[0] + finished.payoffs[0], totals[1] + finished.payoffs[1]]
        # the engine's record of the turn agrees with the state: the seats' commits are the
        # intended moves, what the turn revealed the played ones
        assert [turn.seats[s].action["action"] for s in "ab"] == [
            m.value for m in finished.intended
        ]
        assert turn.revealed is not None
        assert turn.revealed["actions"] == {
            s: m.value for s, m in zip("ab", finished.played, strict=True)
        }
        rows.append(
            (
                *(m.value for m in finished.intended),
                *(m.value for m in finished.played),
                *finished.payoffs,
                *totals,
            )
        )
    assert result.scores == {"a": totals[0], "b": totals[1]}
    return rows


def _batch_rows(arrays) -> list[Row]:  # type: ignore[no-untyped-def]
    def moves(cooperated: np.ndarray) -> list[str]:
        return ["C" if c else "D" for c in cooperated.tolist()]

    intended_a = arrays.coop_a if arrays.intended_a is None else arrays.intended_a
    intended_b = arrays.coop_b if arrays.intended_b is None else arrays.intended_b
    return list(
        zip(
            moves(intended_a),
            moves(intended_b),
            moves(arrays.coop_a),
            moves(arrays.coop_b),
            arrays.payoff_a.tolist(),
            arrays.payoff_b.tolist(),
            np.cumsum(arrays.payoff_a).tolist(),
            np.cumsum(arrays.payoff_b).tolist(),
            strict=True,
        )
    )


def _pairs(offset: int) -> list[tuple[str, str]]:
    """A third of all ordered pairs (every policy meets five opponents in each seat), a
    different third for each game, so the five games together cover every pair."""
    return [
        (a, b)
        for (i, a), (j, b) in itertools.product(enumerate(NAMES), repeat=2)
        if (i + 2 * j + offset) % 3 == 0
    ]


CASES = [
    ("pd", {"type": "fixed", "rounds": 12}),
    ("stag_hunt", {"type": "geometric", "stop_prob": 0.15, "max_rounds": 20}),
    ("chicken", {"type": "fixed", "rounds": 9}),
    ("battle_of_the_sexes", {"type": "geometric", "stop_prob": 0.1, "max_rounds": 15}),
    ("split_or_steal", {"type": "fixed", "rounds": 8}),
]


@pytest.mark.parametrize("noise", [0.0, 0.15])
@pytest.mark.parametrize(("game", "horizon"), CASES, ids=[c[0] for c in CASES])
def test_policies_play_the_same_rounds_on_the_turn_loop_the_match_loop_and_the_batch(
    game, horizon, noise
):
    offset = [c[0] for c in CASES].index(game)
    plan = plan_matches(_spec(game, noise, _pairs(offset), horizon), TEST_DEAL)
    by_condition: dict[str, list[PlannedMatch]] = {}
    for planned in plan:
        by_condition.setdefault(planned.condition.name, []).append(planned)

    def agents(planned: PlannedMatch) -> dict[str, Recording]:
        return {
            side: Recording(
                make_policy_agent(
                    planned.condition.players[f"agent_{side}"],
                    game=planned.matrix_game.seen_by(side),
                )
            )
            for side in "ab"
        }

    async def compare_all() -> int:
        compared = 0
        for matches in by_condition.values():
            for planned, arrays in zip(matches, play_batch(matches), strict=True):
                on_loop, on_turns = agents(planned), agents(planned)
                loop = await _loop(planned, on_loop)  # type: ignore[arg-type]
                turns, stored = await _play_turns(planned, on_turns)  # type: ignore[arg-type]
                where = f"{planned.condition.name} replicate {planned.replicate}"
                assert loop.completed and turns.completed, where
                rows = _loop_rows(loop)
                assert _turn_rows(turns) == rows, where
                assert _batch_rows(arrays) == rows, where
                assert _lines(planned, stored) == _lines(planned, loop), where
                for side in "ab":
                    assert on_turns[side].seen == on_loop[side].seen, f"{where}, seat {side}"
                compared += 1
        return compared

    compared = asyncio.run(compare_all())
    assert compared == 2 * len(by_condition) and compared >= 2 * 75


class Talker(AgentBase):
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
        planned = PlannedMatch(**{**vars(planned), "game": game})
        on_loop = {s: Recording(t) for s, t in _talkers().items()}
        on_turns = {s: Recording(t) for s, t in _talkers().items()}
        loop = asyncio.run(_loop(planned, on_loop))  # type: ignore[arg-type]
        turns, stored = asyncio.run(_play_turns(planned, on_turns))  # type: ignore[arg-type]
        assert _turn_rows(turns) == _loop_rows(loop)
        assert _turn_message_rows(turns) == _message_rows(loop)
        assert _lines(planned, stored) == _lines(planned, loop)
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
    planned = PlannedMatch(
        **{**vars(planned), "game": GAMES["split_or_steal"].with_changes(negotiation=talk)}
    )

    def agents() -> dict[str, AgentBase]:
        said = [Utterance(f"b{i}", attempts=(_hook(f"b{i}"),)) for i in range(1, 9)]
        return {"a": Aborting(at), "b": Talker("TALKER_B", said, "CCCC", sees_all=False)}

    loop = asyncio.run(_loop(planned, agents()))
    _, stored = asyncio.run(_play_turns(planned, agents()))
    assert loop.error is not None and stored.error == loop.error
    assert len(stored.rounds) == len(loop.rounds) == 1
    assert stored.aborted_attempts == loop.aborted_attempts
    assert len(loop.aborted_attempts) == (5 if at[0] == "act" else 1)
    assert _lines(planned, stored) == _lines(planned, loop)
