"""A 2x2 match played on the turn loop (`runners.turns`) with the rules of `pdbench.games.matrix`,
and what is stored of it: its rounds.jsonl lines are turn lines (record version 2, written by
`runners.turn_records.turn_line`; their shape: `pdbench.games.matrix.stored`), its ledger entry
and the columns aggregation reads are the match loop's (`runners.records`, from the result
given back as `runners.match.MatchResult`), so the counts, the aggregates and every analysis
equal those of the same match stored as version 1 (tests/integration/test_matrix_equivalence.py
reads the lines back through the projection and compares them with the reference loop's). The
numpy path of policy-only conditions (the entries' `vectorised`, `games.matrix.vectorised`) is
their fast path, and `runners.batch` writes the same lines for it.

Each seat's agent is seated by `games.matrix.seat.MatrixSeat`, which keeps its answers as the
agent gave them; what the turn contract has no field for (a fallback the agent played itself,
the order an LLM was shown the options in) is added to the commit line's decisions from them.
A match's lines are its finished rounds' turns: the talk of a round the match was aborted in is
in the ledger's aborted_round_attempts, as the match loop kept it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import orjson

from pdbench.agents.base import AgentBase, Decision, Utterance
from pdbench.core.transcript import PlayedRound
from pdbench.games.matrix.rules import MatrixGame
from pdbench.games.matrix.seat import MatrixSeat
from pdbench.games.matrix.state import MatrixState, Message
from pdbench.games.matrix.stored import FAMILY, match_options
from pdbench.runners.match import MatchResult, RoundResult
from pdbench.runners.plan import PlannedMatch
from pdbench.runners.records import (
    call_counts,
    ledger_entry,
    match_call_sources,
    result_columns,
    stored_aborted_attempts,
)
from pdbench.runners.turn_records import match_outcome, stores_observations, turn_line
from pdbench.runners.turns import PlayedTurn, SeatRule, TurnMatchResult, play_turn_match
from pdbench.storage.run_store import FinishedMatch
from pdbench.storage.schema import Attempt, ConversationMessage, StorePrompts

SEATS = ("a", "b")
# A 2x2 agent answers every turn itself (an LLM's retries and fallback are its own, and abort by
# raising): the engine asks once, and only a talk turn's timeout reaches the rules' fallback.
ASK_ONCE = SeatRule(on_invalid="fallback", retries=0)


def matrix_rules(planned: PlannedMatch) -> MatrixGame:
    """The rules of one planned 2x2 match (the plan built them: its game's entry's rules class
    with the condition's table, the match's length and its noise)."""
    rules = planned.rules
    assert isinstance(rules, MatrixGame), f"{planned.game_id} is no 2x2 game"
    return rules


async def play_matrix_turns(
    rules: MatrixGame, planned: PlannedMatch, agent_a: AgentBase, agent_b: AgentBase
) -> tuple[TurnMatchResult, dict[str, MatrixSeat]]:
    """The turns of `planned` under `rules`, and the seats that played them (their answers)."""
    told = rules.rounds if rules.rounds_shown else None
    seats = {"a": MatrixSeat(agent_a, told), "b": MatrixSeat(agent_b, told)}
    played = await play_turn_match(
        rules,
        dict(seats),
        seed=planned.game_seed,
        agent_seeds={"a": planned.seed_a, "b": planned.seed_b},
        rules={"a": ASK_ONCE, "b": ASK_ONCE},
        max_turns=rules.fixed_length().turns,
        start=rules.dealt(planned.game_seed, noise_seeds=planned.noise_seeds),
        record_digests=stores_observations(rules),  # none: a game of perfect information
    )
    return played, seats


def match_result(
    rules: MatrixGame, played: TurnMatchResult, seats: dict[str, MatrixSeat]
) -> MatchResult:
    """The match loop's result of a 2x2 match the turn loop played."""
    state: MatrixState = played.final_state
    commits = [turn for turn in played.turns if turn.phase == "commit"]
    talk_turns = iter([turn for turn in played.turns if turn.phase == "talk"])
    utterances = {seat: iter(seats[seat].utterances) for seat in SEATS}
    decisions = {seat: iter(seats[seat].decisions) for seat in SEATS}
    trembles = rules.noise > 0
    rounds: list[RoundResult] = []
    total_a = total_b = 0.0  # summed in order, as the match loop sums them
    for finished, commit in zip(state.finished, commits, strict=True):
        talk = tuple(_message(m, next(talk_turns), utterances) for m in finished.conversation)
        decision_a, decision_b = next(decisions["a"]), next(decisions["b"])
        total_a += finished.payoffs[0]
        total_b += finished.payoffs[1]
        rounds.append(
            RoundResult(
                PlayedRound(finished.round_number, *finished.played, *finished.payoffs),
                total_a,
                total_b,
                decision_a,
                decision_b,
                commit.finished_at,
                intended_a=decision_a.action if trembles else None,
                intended_b=decision_b.action if trembles else None,
                conversation=talk if rules.game.negotiation is not None else None,
            )
        )
    aborted: tuple[Attempt, ...] = ()
    if played.error is not None:
        # The match loop keeps the aborted round's talk when the abort came at the commit (the
        # talk was over, and its calls were paid), none of it when it came during the talk.
        talk_over = state.phase == "commit"
        said = [
            attempt
            for m in (state.conversation if talk_over else ())
            for attempt in _message(m, next(talk_turns), utterances).attempts
        ]
        aborted = (*said, *played.aborted_attempts)
    return MatchResult(
        rounds=rounds, planned_rounds=rules.rounds, error=played.error, aborted_attempts=aborted
    )


def _message(
    message: Message, turn: PlayedTurn, utterances: dict[str, Iterator[Utterance]]
) -> ConversationMessage:
    """One message as the match loop records it: the rules' delivery (cut, promise) and the
    speaker's answer (its calls, a timeout, an answer that was no message, an error)."""
    said = next(utterances[message.speaker])
    assert turn.seats.keys() == {message.speaker}, "the talk turns and the messages agree"
    return ConversationMessage(
        speaker=message.speaker,
        turn=message.turn,
        text=message.text,
        cut=message.cut,
        empty=not message.text,
        timeout=said.timeout,
        invalid=said.invalid,
        promise=message.promise,
        error=said.error,
        attempts=said.attempts,
    )


@dataclass(frozen=True)
class PlayedMatrixMatch:
    """A 2x2 match the turn loop played: its rules, the turns, the seats (their answers), and
    the match loop's result made of them (`match_result`)."""

    rules: MatrixGame
    played: TurnMatchResult
    seats: dict[str, MatrixSeat]
    result: MatchResult


async def play_matrix(
    planned: PlannedMatch, agent_a: AgentBase, agent_b: AgentBase
) -> PlayedMatrixMatch:
    """`planned` between the two agents on the turn loop, as `runners.match.play_match` would
    have played it (the same seeds, noise streams and observations)."""
    rules = matrix_rules(planned)
    played, seats = await play_matrix_turns(rules, planned, agent_a, agent_b)
    return PlayedMatrixMatch(rules, played, seats, match_result(rules, played, seats))


def shared_fields(planned: PlannedMatch, run_id: str) -> dict[str, Any]:
    """The fields every line of a 2x2 match holds, in line order: the turn lines' match fields
    and the horizon (which the 2x2 analyses group by)."""
    condition = planned.condition
    return {
        "run_id": run_id,
        "condition": condition.name,
        "replicate": planned.replicate,
        "game": planned.game_id,
        "family": FAMILY,
        "agent_a": condition.agent_a.display_name,
        "agent_b": condition.agent_b.display_name,
        "horizon_type": planned.horizon.type,
        "fixed_n": planned.horizon.fixed_n,
        "stop_prob": planned.horizon.stop_prob,
    }


def stored_options(planned: PlannedMatch) -> dict[str, Any]:
    """The options of a planned 2x2 match's rules, as its outcome stores them."""
    return match_options(planned.n_rounds, planned.noise, planned.horizon.type == "fixed")


def matrix_lines(
    planned: PlannedMatch, match: PlayedMatrixMatch, *, run_id: str, store_prompts: StorePrompts
) -> list[bytes]:
    """The rounds.jsonl lines of a 2x2 match the turn loop played (module docstring)."""
    played = match.played
    commits = [index for index, turn in enumerate(played.turns) if turn.phase == "commit"]
    if not commits:
        return []
    kept = played.turns[: commits[-1] + 1]  # the finished rounds' turns
    shared = shared_fields(planned, run_id)
    marked = {
        "a": planned.condition.agent_a.can_fail_to_answer,
        "b": planned.condition.agent_b.can_fail_to_answer,
    }
    decisions = {seat: iter(match.seats[seat].decisions) for seat in SEATS}
    outcome = match_outcome(played.scores, played.error, planned.game_seed, stored_options(planned))
    observations = stores_observations(match.rules)
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
            observations=observations,
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


def finished_matrix_match(
    planned: PlannedMatch, match: PlayedMatrixMatch, *, run_id: str, store_prompts: StorePrompts
) -> FinishedMatch:
    """What the store writes for one 2x2 match the turn loop played."""
    result = match.result
    return FinishedMatch(
        lines=matrix_lines(planned, match, run_id=run_id, store_prompts=store_prompts),
        ledger=ledger_entry(
            planned,
            len(result.rounds),
            result.error,
            call_counts(result),
            stored_aborted_attempts(result, store_prompts),
            sources=match_call_sources(result),
        ),
        columns=result_columns(planned, result),
    )
