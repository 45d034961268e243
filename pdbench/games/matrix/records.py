"""A 2x2 match in the runner (the entries' `records`, a `runners.match_records.MatchRecords`):
how its two agents are seated in the one turn loop and what is stored of what they played.

Seating: each agent in a `seat.MatrixSeat` (shown the `Observation` the 2x2 agents read, told
the match's length when the horizon is fixed), asked once per turn (an LLM's retries and
fallback are its own, and abort by raising; only a talk turn's timeout reaches the rules'
fallback), for the turns the rules fix, from the state dealt with the match's noise streams.

Storing, made from the turn loop's result and the seats' answers:
- the lines are the finished rounds' turns as turn lines (record version 2,
  `runners.turn_records.turn_line`; their shape: `stored`), a talk turn's action the message as
  delivered, a commit's decisions with what the seat's own answer adds (the fallback the agent
  played itself, the order it was shown the options in);
- the ledger entry counts the finished rounds, and the calls of every stored turn, then of the
  aborted round: its talk when the abort came at the commit (the talk was over, its calls
  paid), none of it when the abort came during the talk, then the aborting answer's attempts;
- the columns aggregation reads (`analysis.metrics.columns.StoredMatches`): the rounds' moves and
  payoffs, each seat's markers from its answers, the talk's flags.
So the counts, the aggregates and every analysis equal those of the reference match loop
(tests/integration/test_matrix_equivalence.py, test_matrix_talk_equivalence.py). The numpy
path of policy-only conditions (`vectorised`) writes the same lines (`runners.batch`, asking
`shared_fields` and `outcome_options` here).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import orjson

from pdbench.agents.base import AgentBase, Decision, TableAgent
from pdbench.analysis.metrics.columns import StoredMatches
from pdbench.analysis.metrics.talk import talk_flags
from pdbench.core.actions import Action
from pdbench.games.matrix.rules import MatrixGame
from pdbench.games.matrix.seat import MatrixSeat
from pdbench.games.matrix.stored import FAMILY, match_options
from pdbench.runners.match_records import SeatedMatch
from pdbench.runners.records import match_columns
from pdbench.runners.turn_records import (
    ledger_entry,
    match_outcome,
    turn_line,
    turn_shared_fields,
)
from pdbench.runners.turns import PlayedTurn, SeatRule, TurnMatchResult
from pdbench.storage.run_store import FinishedMatch
from pdbench.storage.schema import Attempt, StorePrompts

if TYPE_CHECKING:
    from pdbench.runners.plan import PlannedMatch

SEATS = ("a", "b")
ASK_ONCE = SeatRule(on_invalid="fallback", retries=0)


def matrix_rules(planned: PlannedMatch) -> MatrixGame:
    """The rules of one planned 2x2 match (the plan built them: its game's entry's rules class
    with the condition's table, the match's length and its noise)."""
    rules = planned.rules
    assert isinstance(rules, MatrixGame), f"{planned.game_id} is no 2x2 game"
    return rules


def matrix_seats(seated: SeatedMatch) -> dict[str, MatrixSeat]:
    """The two seats of a seated 2x2 match, which kept their agents' answers."""
    seats = {seat: seated.agents[seat] for seat in SEATS}
    assert all(isinstance(seat, MatrixSeat) for seat in seats.values())
    return seats  # type: ignore[return-value]


def finished_round_turns(played: TurnMatchResult) -> list[PlayedTurn]:
    """The turns of the match's finished rounds (each ends with its commit)."""
    commits = [index for index, turn in enumerate(played.turns) if turn.phase == "commit"]
    return played.turns[: commits[-1] + 1] if commits else []


def stored_order_attempts(played: TurnMatchResult) -> tuple[list[Attempt], list[Attempt]]:
    """The match's attempts in the order its lines hold them (turn by turn, a commit's seat a
    then b), and those of the round it was aborted in (the ledger's: module docstring)."""
    kept = finished_round_turns(played)
    attempts = [a for turn in kept for seat in turn.seats.values() for a in seat.attempts]
    aborted: list[Attempt] = []
    if played.error is not None:
        if played.final_state.phase == "commit":  # the aborted round's talk was over: paid
            aborted = [
                a
                for turn in played.turns[len(kept) :]
                for seat in turn.seats.values()
                for a in seat.attempts
            ]
        aborted += played.aborted_attempts
    return attempts, aborted


def columns(
    planned: PlannedMatch, played: TurnMatchResult, seats: dict[str, MatrixSeat]
) -> StoredMatches | None:
    """The match in the form aggregation reads (None for a match with no finished round)."""
    rules = matrix_rules(planned)
    finished = played.final_state.finished
    flags: dict[str, np.ndarray] = {}
    for side in SEATS:
        decisions = seats[side].decisions[: len(finished)]  # an aborted round's answer aside
        flags[f"invalid_outputs_{side}"] = np.array([d.invalid_outputs for d in decisions])
        flags[f"fallbacks_{side}"] = np.array([int(d.fallback) for d in decisions])
        flags[f"timeouts_{side}"] = np.array([int(d.timeout) for d in decisions])
        flags[f"errors_{side}"] = np.array([int(d.error is not None) for d in decisions])
    if rules.game.negotiation is not None and finished:
        flags.update(
            talk_flags(
                [
                    [
                        {"speaker": m.speaker, "text": m.text, "promise": m.promise}
                        for m in round_.conversation
                    ]
                    for round_ in finished
                ]
            )
        )
    return match_columns(
        planned,
        np.array([r.played[0] is Action.C for r in finished], dtype=bool),
        np.array([r.played[1] is Action.C for r in finished], dtype=bool),
        np.array([r.payoffs[0] for r in finished], dtype=float),
        np.array([r.payoffs[1] for r in finished], dtype=float),
        {name: values.astype(np.int64) for name, values in flags.items()},
    )


def matrix_lines(
    planned: PlannedMatch,
    played: TurnMatchResult,
    seats: dict[str, MatrixSeat],
    *,
    run_id: str,
    store_prompts: StorePrompts,
) -> list[bytes]:
    """The rounds.jsonl lines of a 2x2 match the turn loop played (module docstring)."""
    kept = finished_round_turns(played)
    if not kept:
        return []
    shared = RECORDS.shared_fields(planned, run_id)
    marked = {
        "a": planned.condition.agent_a.can_fail_to_answer,
        "b": planned.condition.agent_b.can_fail_to_answer,
    }
    decisions = {seat: iter(seats[seat].decisions) for seat in SEATS}
    outcome = match_outcome(
        played.scores, played.error, planned.game_seed, RECORDS.outcome_options(planned)
    )
    lines = []
    for index, turn in enumerate(kept):
        notes = None
        if turn.phase == "commit":
            notes = {seat: _notes(next(decisions[seat])) for seat in SEATS}
        line = turn_line(
            shared,
            turn,
            marked=marked,
            store_prompts=store_prompts,
            outcome=outcome if index == len(kept) - 1 else None,
            observations=False,  # a game of perfect information (`stores_observations`)
            notes=notes,
        )
        if turn.phase == "talk":
            line["actions"] = _delivered(turn)
        lines.append(orjson.dumps(line) + b"\n")
    return lines


def _delivered(turn: PlayedTurn) -> dict[str, Any]:
    """A talk turn's action as stored: the message as the rules delivered it (stripped, cut to
    the limit), not the seat's whole answer, which may be any length (its calls' raw answers are
    kept, hashed or dropped as the run's store_prompts says). The rules deliver a delivered
    message unchanged: applying the stored action again gives the same message."""
    assert turn.revealed is not None
    said = turn.revealed["message"]
    return {said["speaker"]: {"type": "message", "text": said["text"]}}


def _notes(decision: Decision) -> dict[str, Any]:
    """What a 2x2 agent's own record of its commit adds to the engine's: the fallback it played
    itself (the engine never plays one for a 2x2 commit) and the order it was shown the options
    in, when shuffled."""
    notes: dict[str, Any] = {"fallback": decision.fallback}
    if decision.option_order is not None:
        notes["option_order"] = decision.option_order
    return notes


def table_agent(agent: AgentBase) -> TableAgent:
    """`agent` as the 2x2 agent it must be: a condition seating another is refused before the
    run (the entry's `seat_fit`, `fit.seat_problem`), so one here is a caller's mistake."""
    if not isinstance(agent, TableAgent):
        raise TypeError(f"{agent.name} does not play 2x2 games (no TableAgent)")
    return agent


class MatrixRecords:
    """The 2x2 games' `MatchRecords` (module docstring)."""

    def seat(self, planned: PlannedMatch, agents: Sequence[AgentBase]) -> SeatedMatch:
        rules = matrix_rules(planned)
        told = rules.rounds if rules.rounds_shown else None
        agent_a, agent_b = (table_agent(agent) for agent in agents)  # two seats, no third role
        return SeatedMatch(
            agents={"a": MatrixSeat(agent_a, told), "b": MatrixSeat(agent_b, told)},
            agent_seeds={"a": planned.seed_a, "b": planned.seed_b},
            rules={"a": ASK_ONCE, "b": ASK_ONCE},
            max_turns=rules.fixed_length().turns,
            start=rules.dealt(planned.game_seed, noise_seeds=planned.noise_seeds),
        )

    def finished(
        self,
        planned: PlannedMatch,
        seated: SeatedMatch,
        played: TurnMatchResult,
        *,
        run_id: str,
        store_prompts: StorePrompts,
    ) -> FinishedMatch:
        seats = matrix_seats(seated)
        attempts, aborted = stored_order_attempts(played)
        return FinishedMatch(
            lines=matrix_lines(planned, played, seats, run_id=run_id, store_prompts=store_prompts),
            ledger=ledger_entry(
                planned,
                n_rounds=len(played.final_state.finished),
                planned_rounds=planned.n_rounds,
                error=played.error,
                attempts=attempts,
                aborted=aborted,
                store_prompts=store_prompts,
            ),
            columns=columns(planned, played, seats),
        )

    def shared_fields(self, planned: PlannedMatch, run_id: str) -> dict[str, Any]:
        """The turn lines' match fields (the family's name in its place) and the horizon (which
        the 2x2 analyses group by)."""
        return {
            **turn_shared_fields(planned, run_id),
            "family": FAMILY,
            "horizon_type": planned.horizon.type,
            "fixed_n": planned.horizon.fixed_n,
            "stop_prob": planned.horizon.stop_prob,
        }

    def outcome_options(self, planned: PlannedMatch) -> dict[str, Any]:
        return match_options(planned.n_rounds, planned.noise, planned.horizon.type == "fixed")


RECORDS = MatrixRecords()
