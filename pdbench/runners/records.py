"""What every 2x2 match's storing shares, whichever path played it (the turn loop's matches
through `games.matrix.records`, the array path's through `runners.batch`): its ledger entry, the
columns aggregation reads, and the lines' write time.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import numpy as np

from pdbench.analysis.metrics.columns import StoredMatches
from pdbench.runners.plan import PlannedMatch
from pdbench.storage.ledger import LedgerEntry
from pdbench.storage.schema import CallCounts


def timestamp_utc(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="milliseconds")[:-6] + "Z"


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
        # the answers of the round that ended the match
        aborted_round_attempts=aborted_attempts or None,
        call_sources=sources,
    )
