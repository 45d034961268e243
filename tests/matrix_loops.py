"""The two loops of a 2x2 match side by side, for the equivalence tests (issue 43 stage C):
the turn loop with games/matrix's rules as the runner plays it (seated and stored by
`games.matrix.records`) and the reference match loop (`reference_loop`); an agent wrapper that
keeps what it is shown; and the rows and stored lines the tests compare: the turn loop's lines
(record version 2) read back through the projection the readers use (`games.matrix.stored`) are
the reference loop's version-1 lines, byte for byte, and the ledger and the columns aggregation
reads are the reference's too."""

from __future__ import annotations

from dataclasses import dataclass

import orjson
from reference_loop import MatchResult, play_match
from reference_records import call_counts, result_columns, round_lines, stored_aborted_attempts

from pdbench.agents.base import Decision, TableAgent, Utterance
from pdbench.analysis.metrics.columns import StoredMatches
from pdbench.core.actions import Action
from pdbench.core.transcript import Observation
from pdbench.games.matrix.records import RECORDS
from pdbench.games.matrix.stored import as_rounds
from pdbench.runners.match_records import SeatedMatch
from pdbench.runners.plan import PlannedMatch
from pdbench.runners.turn_run import play_seated
from pdbench.runners.turns import TurnMatchResult
from pdbench.storage.run_store import FinishedMatch

# One row per round: intended a, b; played a, b; payoffs a, b; running totals a, b.
Row = tuple[str, str, str, str, float, float, float, float]


class Recording(TableAgent):
    """Passes every call to `agent` and keeps every observation it is shown, in order."""

    def __init__(self, agent: TableAgent) -> None:
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


@dataclass(frozen=True)
class TurnLoopMatch:
    """A 2x2 match the turn loop played as the runner plays it (`turn_run.play_planned`): the
    seats, the turns, and what the runner stores of them."""

    seated: SeatedMatch
    played: TurnMatchResult
    stored: FinishedMatch


async def play_on_turns(
    planned: PlannedMatch, agents: dict[str, TableAgent]
) -> tuple[TurnMatchResult, TurnLoopMatch]:
    """The match on the turn loop: its turns, and all the runner stores of it."""
    seated = RECORDS.seat(planned, [agents["a"], agents["b"]])
    played = await play_seated(planned, seated)
    stored = RECORDS.finished(planned, seated, played, run_id="r", store_prompts=True)
    return played, TurnLoopMatch(seated, played, stored)


def _without_times(lines: list[bytes]) -> list[bytes]:
    return [line.split(b',"timestamp_utc"')[0] for line in lines]


def _columns(columns: StoredMatches | None) -> list[bytes]:
    """The columns aggregation reads of one match, as bytes to compare."""
    if columns is None:
        return [b"no columns"]
    arrays = [columns.coop_a, columns.coop_b, columns.payoff_a, columns.payoff_b]
    flags = [name.encode() + values.tobytes() for name, values in sorted(columns.flags.items())]
    return [repr((columns.keys, columns.labels)).encode(), *(a.tobytes() for a in arrays), *flags]


def stored_lines(planned: PlannedMatch, result: MatchResult) -> list[bytes]:
    """The reference loop's version-1 lines, without their write times, its ledger's counts
    (rounds, error, calls, the aborted round's attempts) and its columns."""
    lines = round_lines(planned, result, run_id="r", store_prompts=True)
    ledger = (
        len(result.rounds),
        result.error,
        call_counts(result),
        stored_aborted_attempts(result, True) or None,
    )
    return [
        *_without_times(lines),
        repr(ledger).encode(),
        *_columns(result_columns(planned, result)),
    ]


def turn_stored_lines(planned: PlannedMatch, match: TurnLoopMatch) -> list[bytes]:
    """What the runner stores of a turn-loop match (version-2 lines), read back as version-1
    lines through the readers' projection, without write times, and its ledger's counts and
    columns."""
    rounds = as_rounds(orjson.loads(line) for line in match.stored.lines)
    ledger = match.stored.ledger
    counts = (ledger.n_rounds, ledger.error, ledger.calls, ledger.aborted_round_attempts)
    return [
        *_without_times([orjson.dumps(record) + b"\n" for record in rounds]),
        repr(counts).encode(),
        *_columns(match.stored.columns),
    ]


async def play_on_loop(planned: PlannedMatch, agents: dict[str, TableAgent]) -> MatchResult:
    return await play_match(
        planned.rules.game,
        planned.n_rounds,
        agents["a"],
        agents["b"],
        seed_a=planned.seed_a,
        seed_b=planned.seed_b,
        disclose_rounds=planned.horizon.type == "fixed",
        noise=planned.noise,
        noise_seeds=planned.noise_seeds,
    )


def loop_rows(result: MatchResult) -> list[Row]:
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


def turn_rows(result: TurnMatchResult) -> list[Row]:
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
