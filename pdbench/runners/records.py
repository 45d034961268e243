"""From a played match to what is stored: rounds.jsonl lines, ledger entries, call counts, and
the columns aggregation reads. Both play paths (the match loop and the policy batch) end here.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import numpy as np
import orjson

from pdbench.analysis.aggregate import StoredMatches
from pdbench.config.schema import PolicyAgentSpec
from pdbench.core.actions import Action
from pdbench.runners.match import MatchResult
from pdbench.runners.plan import PlannedMatch
from pdbench.storage import manifest as manifest_facts
from pdbench.storage.schema import stored_attempts


def timestamp_utc(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="milliseconds")[:-6] + "Z"


def match_base(planned: PlannedMatch, run_id: str) -> dict[str, Any]:
    """The fields every round of a match shares, in the order they are written."""
    condition = planned.condition
    return {
        "run_id": run_id,
        "condition": condition.name,
        "replicate": planned.replicate,
        "game": planned.game.id,
        "agent_a": condition.agent_a.display_name,
        "agent_b": condition.agent_b.display_name,
        "horizon_type": planned.horizon.type,
        "fixed_n": planned.horizon.fixed_n,
        "stop_prob": planned.horizon.stop_prob,
    }


def round_lines(
    planned: PlannedMatch, result: MatchResult, *, run_id: str, store_prompts: bool | str
) -> list[bytes]:
    """The rounds.jsonl lines of one match (actions always C/D)."""
    base = match_base(planned, run_id)
    # Policies cannot produce invalid outputs, fallbacks or timeouts: their rounds carry no such
    # markers. LLM and arena agents carry them on every round, so nothing unusual can hide.
    marked_sides = [
        side
        for side in ("a", "b")
        if not isinstance(getattr(planned.condition, f"agent_{side}"), PolicyAgentSpec)
    ]
    lines = []
    for played_round in result.rounds:
        played = played_round.played
        record = {
            **base,
            "round_index": played.round_index,
            "agent_a_action": played.action_a.value,
            "agent_b_action": played.action_b.value,
            "agent_a_payoff": played.payoff_a,
            "agent_b_payoff": played.payoff_b,
            "agent_a_cum_payoff": played_round.cum_payoff_a,
            "agent_b_cum_payoff": played_round.cum_payoff_b,
            "timestamp_utc": timestamp_utc(played_round.finished_at),
        }
        for side in marked_sides:
            decision = played_round.decision_a if side == "a" else played_round.decision_b
            record[f"agent_{side}_invalid_outputs"] = decision.invalid_outputs
            record[f"agent_{side}_fallback"] = decision.fallback
            record[f"agent_{side}_timeout"] = decision.timeout
            record[f"agent_{side}_error"] = decision.error
            if decision.attempts:
                record[f"agent_{side}_attempts"] = stored_attempts(decision.attempts, store_prompts)
        lines.append(orjson.dumps(record) + b"\n")
    return lines


def call_counts(result: MatchResult) -> dict[str, Any]:
    """Provider calls of one match (see `manifest.no_calls` for the counters)."""
    counts = manifest_facts.no_calls()
    attempts = [
        attempt
        for played_round in result.rounds
        for decision in (played_round.decision_a, played_round.decision_b)
        for attempt in decision.attempts
    ]
    for attempt in [*attempts, *result.aborted_attempts]:
        cost = attempt.get("cost_usd")
        if attempt.get("cached"):
            counts["cached"] += 1
            counts["cost_usd_saved"] += cost or 0.0
            continue
        counts["live"] += 1
        counts["input_tokens"] += attempt.get("input_tokens") or 0
        counts["output_tokens"] += attempt.get("output_tokens") or 0
        if cost is None:
            counts["unknown_price"] += 1
        else:
            counts["cost_usd"] += cost
    return counts


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
                planned.game.id,
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
    calls: dict[str, Any],
    aborted_attempts: list[dict] | None = None,
) -> dict[str, Any]:
    entry = {
        "condition": planned.condition.name,
        "replicate": planned.replicate,
        "n_rounds": n_rounds,
        "planned_rounds": planned.n_rounds,
        "seeds": planned.seeds,
        "error": error,
        "calls": calls,
    }
    if aborted_attempts:  # the answers of the round that ended the match (see MatchResult)
        entry["aborted_round_attempts"] = aborted_attempts
    return entry
