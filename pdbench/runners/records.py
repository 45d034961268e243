"""What a 2x2 match's storing shares, whichever path played it (the turn loop's matches
through `games.matrix.records`, the array path's through `runners.batch`): the columns
aggregation reads of one match; and every line's write time.
"""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np

from pdbench.analysis.metrics.columns import StoredMatches
from pdbench.runners.plan import PlannedMatch


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
