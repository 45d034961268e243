"""From a played 2x2 match (the match loop's result, `runners.match.MatchResult`) to its ledger
entry, call counts and the columns aggregation reads, for both play paths (the turn loop's
matches through `runners.matrix_run`, the policy batch). `round_lines` writes the reference
loop's rounds as record version 1 stored them (the equivalence tests compare them with the
projection of the stored lines); a run writes turn lines (`runners.matrix_run`).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import numpy as np

from pdbench.agents.base import Decision
from pdbench.analysis.metrics.columns import StoredMatches
from pdbench.analysis.metrics.talk import talk_flags
from pdbench.core.actions import Action
from pdbench.runners.match import MatchResult
from pdbench.runners.plan import PlannedMatch
from pdbench.storage.ledger import LedgerEntry, call_sources
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


def timestamp_utc(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="milliseconds")[:-6] + "Z"


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


def match_columns(
    planned: PlannedMatch,
    coop_a: np.ndarray,
    coop_b: np.ndarray,
    payoff_a: np.ndarray,
    payoff_b: np.ndarray,
    flags: dict[str, np.ndarray] | None = None,
) -> StoredMatches | None:
    """One match in the form aggregation reads (None for a match with no rounds)."""
    if len(coop_a) == 0:
        return None
    condition = planned.condition
    return StoredMatches(
        keys=[(condition.name, planned.replicate)],
        labels=[
            (
                condition.agent_a.display_name,
                condition.agent_b.display_name,
                planned.game_id,
                planned.horizon.type,
            )
        ],
        starts=np.zeros(1, dtype=np.intp),
        coop_a=np.asarray(coop_a, dtype=bool),
        coop_b=np.asarray(coop_b, dtype=bool),
        payoff_a=np.asarray(payoff_a, dtype=float),
        payoff_b=np.asarray(payoff_b, dtype=float),
        flags=flags or {},  # absent flag columns count as zeros
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


def ledger_entry(
    planned: PlannedMatch,
    n_rounds: int,
    error: str | None,
    calls: CallCounts,
    aborted_attempts: list[dict[str, Any]] | None = None,
    *,
    sources: str | None = None,
) -> LedgerEntry:
    return LedgerEntry(
        condition=planned.condition.name,
        replicate=planned.replicate,
        n_rounds=n_rounds,
        planned_rounds=planned.n_rounds,
        seeds=planned.seeds,
        error=error,
        calls=calls,
        # the answers of the round that ended the match (see MatchResult)
        aborted_round_attempts=aborted_attempts or None,
        call_sources=sources,
    )


def stored_aborted_attempts(result: MatchResult, store_prompts: StorePrompts) -> list[dict]:
    return stored_attempts(result.aborted_attempts, store_prompts)
