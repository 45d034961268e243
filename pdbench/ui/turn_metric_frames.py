"""The frames of a turn game's Metrics tab: per condition and player, each of the game's measures
(`pdbench.ui.game_views.Measure`) as the mean over the condition's finished matches with its 95%
interval, from the replicate rows of aggregates.parquet (one value per match, `<stem>_<seat>`,
for every player seat the run stores: a pair's a and b, a group's a, b, c, ...).

The mean is the one aggregates.parquet stores for the condition (the same finished matches); the
interval is computed here, as the 2x2 aggregates compute theirs: a "share" measure whose every
value is 0 or 1 (a match won or lost) is a share of matches, with a Wilson interval, sound at 0 %
and 100 %; any other gets a Student t interval, kept inside the measure's range. Fewer than two
values give no interval. Pure pandas: no Streamlit here.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import numpy as np
import pandas as pd

from pdbench.analysis.stats.intervals import mean_interval, wilson_interval
from pdbench.core.seats import SEAT_PATTERN
from pdbench.ui.display import is_missing
from pdbench.ui.game_views import Measure

RANGES = {
    "share": (0.0, 1.0),
    "count": (0.0, math.inf),
    "round": (1.0, math.inf),
    "signed": (-math.inf, math.inf),
}
COLUMNS = ("condition", "stem", "label", "seat", "mean", "ci_low", "ci_high", "n", "method")


def measure_interval(values: Sequence[float], measure: Measure) -> dict[str, object]:
    """mean, ci_low, ci_high (None without an interval), n and method of the defined values."""
    defined = np.asarray([v for v in values if v is not None and not pd.isna(v)], dtype=float)
    n = int(defined.size)
    if n == 0:
        return {"mean": None, "ci_low": None, "ci_high": None, "n": 0, "method": None}
    mean = float(defined.mean())
    if n < 2:
        return {"mean": mean, "ci_low": None, "ci_high": None, "n": n, "method": None}
    # a share of matches (each value 0 or 1); a count or a slope that is 0 or 1 in every match
    # is no share, and gets Student t like any other
    if measure.kind == "share" and np.isin(defined, (0.0, 1.0)).all():
        low, high = wilson_interval(int(defined.sum()), n)
        return {
            "mean": mean,
            "ci_low": float(low),
            "ci_high": float(high),
            "n": n,
            "method": "Wilson",
        }
    found = mean_interval(defined)
    floor, ceiling = RANGES[measure.kind]
    return {
        "mean": mean,
        "ci_low": min(max(float(found["ci_low"]), floor), ceiling),
        "ci_high": min(max(float(found["ci_high"]), floor), ceiling),
        "n": n,
        "method": "Student t",
    }


def measured_seats(replicates: pd.DataFrame, measures: Sequence[Measure]) -> tuple[str, ...]:
    """The player seats ("a", "b", "c", ...) holding a column of one of `measures`, in order."""
    stems = "|".join(re.escape(m.stem) for m in measures)
    pattern = re.compile(rf"(?:{stems})_({SEAT_PATTERN})")
    found = {match.group(1) for c in replicates.columns if (match := pattern.fullmatch(str(c)))}
    return tuple(sorted(found))


def measure_table(replicates: pd.DataFrame, measures: Sequence[Measure]) -> pd.DataFrame:
    """One row per (condition, measure, seat) in the run's order (COLUMNS), over the finished
    matches, for every seat the run measured (`measured_seats`); a measure the run holds no
    column for is left out."""
    finished = replicates[replicates["match_status"] == "finished"]
    seats = measured_seats(replicates, measures) if measures else ()
    rows = []
    for condition in dict.fromkeys(replicates["condition"]):
        mine = finished[finished["condition"] == condition]
        for measure in measures:
            for seat in seats:
                column = f"{measure.stem}_{seat}"
                if column not in replicates:
                    continue
                values = pd.to_numeric(mine[column], errors="coerce").tolist()
                rows.append(
                    {
                        "condition": condition,
                        "stem": measure.stem,
                        "label": measure.label,
                        "seat": seat,
                        **measure_interval(values, measure),
                    }
                )
    return pd.DataFrame(rows, columns=list(COLUMNS))


def value_text(value: object, measure: Measure) -> str:
    return "n/a" if is_missing(value) else f"{float(value):.{measure.decimals}f}"  # type: ignore[arg-type]


def interval_text(row: pd.Series, measure: Measure) -> str:
    """'95% CI 0.21–0.79' or why there is none."""
    if is_missing(row["ci_low"]):
        return "no CI (n<2)" if int(row["n"]) < 2 else "no CI"
    digits = measure.decimals
    return f"95% CI {row['ci_low']:.{digits}f}–{row['ci_high']:.{digits}f}"
