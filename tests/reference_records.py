"""The reference match loop's result (`reference_loop.MatchResult`) as record version 1 stored
it, for the equivalence tests: its round records and lines (`round_lines`), and its call counts
and call sources in stored order. The runner stores a 2x2 match from the turn loop's result
(`pdbench.games.matrix.records`); read back through the projection (`games.matrix.stored`),
its lines and ledger are these, byte for byte (tests/integration/test_matrix_equivalence.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from reference_loop import MatchResult

from pdbench.agents.base import Decision
from pdbench.analysis.metrics.columns import StoredMatches
from pdbench.analysis.metrics.talk import talk_flags
from pdbench.core.actions import Action
from pdbench.runners.plan import PlannedMatch
from pdbench.runners.records import match_columns, timestamp_utc
from pdbench.storage.ledger import call_sources
from pdbench.storage.schema import (
    MATCH_FIELDS,
    Attempt,
    CallCounts,
    ProviderAttempt,
    RoundRecord,
    SideDecision,
    StorePrompts,
    stored_attempts,
)


def match_fields(planned: PlannedMatch, run_id: str) -> dict[str, Any]:
    """The fields every round of a match shares (RoundRecord's MATCH_FIELDS), in line order."""
    condition = planned.condition
    values = {
        "run_id": run_id,
        "condition": condition.name,
        "replicate": planned.replicate,
        "game": planned.game_id,
        "agent_a": condition.agent_a.display_name,
        "agent_b": condition.agent_b.display_name,
        "horizon_type": planned.horizon.type,
        "fixed_n": planned.horizon.fixed_n,
        "stop_prob": planned.horizon.stop_prob,
    }
    return {name: values[name] for name in MATCH_FIELDS}


def _side(decision: Decision, marked: bool) -> SideDecision | None:
    if not marked:
        return None
    return SideDecision(
        invalid_outputs=decision.invalid_outputs,
        fallback=decision.fallback,
        timeout=decision.timeout,
        error=decision.error,
        attempts=decision.attempts,
        option_order=decision.option_order,
    )


def _action(action: Action | None) -> str | None:
    return None if action is None else action.value


def round_records(planned: PlannedMatch, result: MatchResult, *, run_id: str) -> list[RoundRecord]:
    """The RoundRecords of a match played by the loop (actions always C/D)."""
    shared = match_fields(planned, run_id)
    # LLM and arena agents carry their markers on every round, so nothing unusual can hide.
    marked_a = planned.condition.agent_a.can_fail_to_answer
    marked_b = planned.condition.agent_b.can_fail_to_answer
    return [
        RoundRecord(
            **shared,
            round_index=played_round.played.round_index,
            agent_a_action=played_round.played.action_a.value,
            agent_b_action=played_round.played.action_b.value,
            agent_a_payoff=played_round.played.payoff_a,
            agent_b_payoff=played_round.played.payoff_b,
            agent_a_cum_payoff=played_round.cum_payoff_a,
            agent_b_cum_payoff=played_round.cum_payoff_b,
            timestamp_utc=timestamp_utc(played_round.finished_at),
            agent_a_intended=_action(played_round.intended_a),
            agent_b_intended=_action(played_round.intended_b),
            conversation=played_round.conversation,
            decision_a=_side(played_round.decision_a, marked_a),
            decision_b=_side(played_round.decision_b, marked_b),
        )
        for played_round in result.rounds
    ]


def round_lines(
    planned: PlannedMatch, result: MatchResult, *, run_id: str, store_prompts: StorePrompts
) -> list[bytes]:
    """The rounds.jsonl lines of one match played by the loop."""
    return [
        record.to_json(store_prompts) for record in round_records(planned, result, run_id=run_id)
    ]


def stored_order_attempts(result: MatchResult) -> list[Attempt]:
    """A match's attempts in the order its stored lines hold them: per round its talk (message
    by message), then a's and b's decision; the aborted round's (the ledger's) last."""
    attempts: list[Attempt] = []
    for played_round in result.rounds:
        for message in played_round.conversation or ():
            attempts += message.attempts
        attempts += played_round.decision_a.attempts
        attempts += played_round.decision_b.attempts
    return [*attempts, *result.aborted_attempts]


def call_counts(result: MatchResult) -> CallCounts:
    """Provider calls of one match, the aborted round's included."""
    return CallCounts.total(attempt.calls() for attempt in stored_order_attempts(result))


def match_call_sources(result: MatchResult) -> str | None:
    """Which of the match's provider calls the cache answered (LedgerEntry.call_sources)."""
    return call_sources(
        attempt.cached
        for attempt in stored_order_attempts(result)
        if isinstance(attempt, ProviderAttempt)
    )


def result_columns(planned: PlannedMatch, result: MatchResult) -> StoredMatches | None:
    rounds = result.rounds
    flags = {}
    for side in ("a", "b"):
        decisions = [r.decision_a if side == "a" else r.decision_b for r in rounds]
        flags[f"invalid_outputs_{side}"] = np.array([d.invalid_outputs for d in decisions])
        flags[f"fallbacks_{side}"] = np.array([int(d.fallback) for d in decisions])
        flags[f"timeouts_{side}"] = np.array([int(d.timeout) for d in decisions])
        flags[f"errors_{side}"] = np.array([int(d.error is not None) for d in decisions])
    if any(r.conversation is not None for r in rounds):
        flags.update(
            talk_flags(
                [
                    [
                        {"speaker": m.speaker, "text": m.text, "promise": m.promise}
                        for m in r.conversation or ()
                    ]
                    for r in rounds
                ]
            )
        )
    return match_columns(
        planned,
        np.array([r.played.action_a is Action.C for r in rounds], dtype=bool),
        np.array([r.played.action_b is Action.C for r in rounds], dtype=bool),
        np.array([r.played.payoff_a for r in rounds], dtype=float),
        np.array([r.played.payoff_b for r in rounds], dtype=float),
        {k: v.astype(np.int64) for k, v in flags.items()},
    )


def stored_aborted_attempts(result: MatchResult, store_prompts: StorePrompts) -> list[dict]:
    return stored_attempts(result.aborted_attempts, store_prompts)
