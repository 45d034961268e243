"""The frames of the Conditions tab: one row per condition with its metrics, their confidence
intervals, the replicates' points and cooperation over time, from aggregates.parquet.

Pure pandas like `pdbench.ui.frames` (the frames of one match and of a run's facts).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import orjson
import pandas as pd

from pdbench.analysis.metrics.catalog import SIDES, MetricColumn, metric
from pdbench.storage.ledger import LedgerEntry
from pdbench.storage.manifest import RunManifest
from pdbench.ui.display import (
    AGENT_METRICS,
    RELIABILITY_STEMS,
    as_float,
    as_int,
    format_value,
    is_missing,
)
from pdbench.ui.facts import condition_config, horizon_text


@dataclass(frozen=True)
class ComparedMetric:
    """A metric column of the comparison table: its header, catalogue entry, and whether it is
    a per-agent count summed over both agents."""

    header: str
    metric: MetricColumn
    summed: bool = False


ROUNDS = ComparedMetric(metric("n_rounds").short, metric("n_rounds"))
COOPERATION = ComparedMetric(metric("cooperation_rate").short, metric("cooperation_rate"))
PER_AGENT = [
    ComparedMetric(column.short, column)
    for pair in zip(AGENT_METRICS["a"], AGENT_METRICS["b"], strict=True)
    for column in pair
]
COLLAPSE = ComparedMetric(metric("time_to_collapse").short, metric("time_to_collapse"))
SUMMED = [
    ComparedMetric(metric(f"{stem}_a").metric.short, metric(f"{stem}_a"), summed=True)
    for stem in RELIABILITY_STEMS
]
COMPARED_METRICS = [ROUNDS, COOPERATION, *PER_AGENT, COLLAPSE, *SUMMED]


def comparison_table(
    conditions: pd.DataFrame, manifest: RunManifest, ledger: Sequence[LedgerEntry]
) -> pd.DataFrame:
    """One row per condition: the matchup, the means of the metrics, calls and cost."""
    calls = manifest.provider_calls_by_condition
    errors: dict[str, int] = {}
    for entry in ledger:
        if entry.error:
            errors[entry.condition] = errors.get(entry.condition, 0) + 1
    rows = []
    for _, row in conditions.iterrows():
        name = row["condition"]
        config = condition_config(manifest, name)
        condition_calls = calls.get(name)
        rows.append(
            {
                "condition": name,
                "matchup": f"{row['agent_a']} vs {row['agent_b']}",
                "game": row.get("game"),
                "horizon": horizon_text(config) if config else row.get("horizon_type"),
                "replicates": int(row["n_replicates"]),
                ROUNDS.header: as_float(row[ROUNDS.metric.column]),
                COOPERATION.header: as_float(row[COOPERATION.metric.column]),
                "coop 95% CI": _ci_text(row, COOPERATION.metric),
                **{m.header: as_float(row[m.metric.column]) for m in PER_AGENT},
                COLLAPSE.header: as_float(row[COLLAPSE.metric.column]),
                "collapsed": f"{as_int(row['time_to_collapse_n'])}/{as_int(row['n_replicates'])}",
                **{m.header: _sum_sides(row, m.metric.metric.stem) for m in SUMMED},
                "live calls": condition_calls.live if condition_calls else None,
                "cached calls": condition_calls.cached if condition_calls else None,
                "cost $": condition_calls.cost_usd if condition_calls else None,
                "failed matches": errors.get(name, 0),
            }
        )
    table = pd.DataFrame(rows)
    # Undefined values as NaN, never an object column of None (the grid would print "None").
    numeric = [m.header for m in COMPARED_METRICS] + ["live calls", "cached calls", "cost $"]
    for header in numeric:
        if header in table:
            table[header] = pd.to_numeric(table[header], errors="coerce").astype("float64")
    return table


def comparison_text(table: pd.DataFrame) -> pd.DataFrame:
    """The comparison table as the page shows it: every metric but the cooperation bar as text
    with the catalogue's decimals, and an undefined value in the catalogue's words ("n/a", "no
    collapse", "-" for calls and cost), never a blank or the grid's "None"."""
    shown = table.copy()
    for compared in COMPARED_METRICS:
        if compared is COOPERATION or compared.header not in shown:
            continue
        shown[compared.header] = [format_value(compared.metric, v) for v in table[compared.header]]
    for header, digits in (("live calls", 0), ("cached calls", 0), ("cost $", 4)):
        if header in shown:
            shown[header] = ["–" if is_missing(v) else f"{v:.{digits}f}" for v in table[header]]
    return shown


def _sum_sides(row: pd.Series, stem: str) -> float:
    """Per-match mean of a count, summed over both agents (0 when undefined)."""
    return sum(as_float(row[f"{stem}_{side}"]) or 0.0 for side in SIDES)


def _ci_text(row: pd.Series, metric: MetricColumn) -> str:
    low = as_float(row.get(f"{metric.column}_ci_low"))
    high = as_float(row.get(f"{metric.column}_ci_high"))
    if low is None or high is None:
        return "n/a (n<2)"
    return f"{low:.{metric.decimals}f}–{high:.{metric.decimals}f}"


CI_SERIES = {
    "cooperation_rate": "both agents",
    "cooperation_rate_a": "agent A",
    "cooperation_rate_b": "agent B",
}


def cooperation_ci_frame(conditions: pd.DataFrame) -> pd.DataFrame:
    """Mean cooperation rate with its 95% CI per condition, for both agents and each one."""
    rows = []
    for _, row in conditions.iterrows():
        for column, series in CI_SERIES.items():
            rows.append(
                {
                    "condition": row["condition"],
                    "series": series,
                    "mean": as_float(row[column]),
                    "ci_low": as_float(row[f"{column}_ci_low"]),
                    "ci_high": as_float(row[f"{column}_ci_high"]),
                    "n": as_int(row[f"{column}_n"]),
                }
            )
    return pd.DataFrame(rows)


def replicate_points_frame(replicates: pd.DataFrame) -> pd.DataFrame:
    """Each replicate's cooperation rates, drawn as dots beside the condition means."""
    rows = []
    for _, row in replicates.iterrows():
        for column, series in CI_SERIES.items():
            if not is_missing(row[column]):
                rows.append(
                    {
                        "condition": row["condition"],
                        "series": series,
                        "value": float(row[column]),
                        "replicate": int(row["replicate"]),
                    }
                )
    return pd.DataFrame(rows, columns=["condition", "series", "value", "replicate"])


def over_time_frame(conditions: pd.DataFrame) -> pd.DataFrame:
    """Per condition and round: the mean share of C over the replicates that reached the round."""
    rows = []
    for _, row in conditions.iterrows():
        text = row.get("cooperation_rate_over_time")
        if not isinstance(text, str) or not text:
            continue
        for point in orjson.loads(text):
            rows.append(
                {
                    "condition": row["condition"],
                    "round": int(point["round"]),
                    "cooperation": point["mean"],
                    "replicates": int(point["n"]),
                }
            )
    return pd.DataFrame(rows, columns=["condition", "round", "cooperation", "replicates"])
