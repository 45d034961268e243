"""`pdbench analyze` on a turn game's run: its game's measures (the metrics module's METRICS, as
aggregates.parquet stores them per player seat), per condition, for every seat: the mean over
the condition's finished matches, its 95% interval and the number of matches measured.

The interval is Student t over the match values, printed as its half-width ("±"), not cut to
the measure's range (the viewer's Metrics tab cuts it, and gives a share of matches Wilson's);
"same" when every match gave the same value (no spread to estimate from), none from one match. A ratio the metrics module pools (POOLED: summed numerators over summed
denominators, e.g. free riding over every round played) is printed beside its per-match mean.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from pandas import DataFrame, Series, isna, to_numeric

from pdbench.analysis.metrics.turn_aggregates import seats_in
from pdbench.analysis.stats.intervals import mean_interval
from pdbench.games.metric_rows import game_metric_rows


def value_text(values: Sequence[float], matches: int) -> str:
    """'0.62 ±0.21' (the mean and its 95% Student t half-width), '1.00 same' (every match gave
    it: no spread to estimate from), '0.50' (one match), '-' (none); ' n=2' added when fewer
    than the `matches` finished measured it (a share of nothing is undefined)."""
    defined = np.asarray([v for v in values if v is not None and not isna(v)], dtype=float)
    if defined.size == 0:
        return "-"
    found = mean_interval(defined)
    mean, count = float(found["mean"]), "" if defined.size == matches else f" n={defined.size}"
    if defined.size < 2:
        return f"{mean:.2f}{count}"
    if np.allclose(defined, defined[0], rtol=1e-9, atol=1e-12):  # alike but for float noise
        return f"{mean:.2f} same{count}"
    return f"{mean:.2f} ±{(float(found['ci_high']) - mean):.2f}{count}"


def _number(value: object) -> float:
    """A stored value as a float, NaN when missing (None, NaN or absent)."""
    number = to_numeric(Series([value]), errors="coerce").iloc[0]
    return math.nan if isna(number) else float(number)


def measure_lines(table: DataFrame) -> dict[str, list[str]]:
    """Per condition of a turn game's aggregates: a line with the matches finished and each
    seat's agent, then one line per measure, its name and each seat's value (`value_text`),
    columns aligned; the pooled ratios after."""
    replicates = table[table["level"] == "replicate"]
    conditions = table[table["level"] == "condition"].set_index("condition")
    seats = seats_in(table)
    found: dict[str, list[str]] = {}
    for condition in dict.fromkeys(replicates["condition"]):
        mine = replicates[replicates["condition"] == condition]
        finished = mine[mine["match_status"] == "finished"]
        metrics = game_metric_rows(str(mine["game"].iloc[0]))
        rows = [["measure", *(seat.upper() for seat in seats)]]
        for stem in (m.stem for m in metrics if m.shape != "condition"):
            columns = [f"{stem}_{seat}" for seat in seats]
            if not any(c in finished and finished[c].notna().any() for c in columns):
                continue  # no match measured it (talk consistency without talk)
            per_seat = [list(finished[c]) if c in finished else [] for c in columns]
            rows.append([stem, *(value_text(v, len(finished)) for v in per_seat)])
        for stem in (m.stem for m in metrics if m.pooled is not None):
            columns = [f"{stem}_{seat}_pooled" for seat in seats]
            mean_row = conditions.loc[condition]
            pooled = [_number(mean_row.get(c)) for c in columns]
            if all(isna(v) for v in pooled):
                continue
            shown = ("-" if isna(v) else f"{float(v):.2f}" for v in pooled)
            rows.append([f"{stem} (pooled)", *shown])
        widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
        lines = [
            "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
            for row in rows
        ]
        agents = ", ".join(f"{seat.upper()} · {mine[f'agent_{seat}'].iloc[0]}" for seat in seats)
        played = f"{len(finished)} of {len(mine)} matches finished; {agents}"
        found[str(condition)] = [played, *lines]
    return found
