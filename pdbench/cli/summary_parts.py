"""The end-of-run table's columns that are not a game's measures, each shown when the run has
what it reads (`run_parts`), whatever the game: the matches' collapse (when the run's rows
measure it, `collapse_determinable` among its aggregates' columns), and the agents' answers (when
its rows measure substituted answers, `substituted_share_<seat>`): the share substituted, the
provider calls live/cached and what they cost.

A run whose rows measure neither (a turn game's today) shows none of these columns; its money
is in the notes under the table all the same (`pdbench.cli.report.notes`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd

from pdbench.storage.manifest import RunManifest
from pdbench.storage.schema import CallCounts


@dataclass(frozen=True)
class Part:
    """Columns of the table: their headers, what they mean (a line's part under the table) and
    a condition row's cells."""

    headers: tuple[str, ...]
    help: str
    cells: Callable[[pd.Series], list[str]]


def fmt(value: object, digits: int = 2) -> str:
    """A number with `digits` decimals, "-" for a missing one."""
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return "-"
    return f"{float(value):.{digits}f}"  # type: ignore[arg-type]


def run_parts(aggregates: pd.DataFrame, manifest: RunManifest) -> list[Part]:
    """The parts that apply to this run, in the table's order."""
    parts = []
    if "collapse_determinable" in aggregates.columns:
        counts = _collapse_counts(aggregates[aggregates["level"] == "replicate"])
        parts.append(
            Part(
                ("collapse",),
                "collapse: mean round of collapse (matches that collapsed / could tell)",
                lambda row: [_collapse(row, counts)],
            )
        )
    if "substituted_share_a" in aggregates.columns:
        subst = _substitution_header()
        calls = manifest.provider_calls_by_condition
        parts.append(
            Part(
                (subst,),
                f"{subst}: share of substituted actions (A/B)",
                lambda row: [_substituted(row, manifest)],
            )
        )
        parts.append(
            Part(
                ("calls", "cost $"),
                "calls: provider calls live/cached; cost $: of the stored rounds (what was "
                "spent is below)",
                lambda row: _calls(calls.get(str(row["condition"]), CallCounts())),
            )
        )
    return parts


def _substitution_header() -> str:
    """The substituted share's narrow header, from its row in the catalogue."""
    from pdbench.analysis.metrics.catalog import metric

    return metric("substituted_share_a").metric.narrow


def _calls(calls: CallCounts) -> list[str]:
    return [f"{calls.live}/{calls.cached}", _cost(calls)]


def _cost(calls: CallCounts) -> str:
    """What a condition's stored matches cost: "unknown" when a price was unknown, never $0."""
    if calls.live == 0:
        return "-"
    if calls.unknown_price:
        return "unknown"
    return f"{calls.cost_usd:.4f}"


def _collapse_counts(replicates: pd.DataFrame) -> pd.DataFrame:
    """Per condition, over its finished matches: how many there are, how many could tell whether
    they collapsed (long enough) and how many did."""
    finished = replicates[replicates["match_status"] == "finished"]
    flags = pd.DataFrame(
        {
            "condition": finished["condition"],
            "finished": 1,
            "determinable": finished["collapse_determinable"].fillna(False).astype(int),
            "collapsed": finished["collapsed"].fillna(False).astype(int),
        }
    )
    return flags.groupby("condition", sort=False).sum()


def _collapse(row: pd.Series, counts: pd.DataFrame) -> str:
    """Mean round of collapse over the matches that collapsed, and how many of those that could
    tell did ("12.0 (2/3)"); "-" when none collapsed, "short" when no match could tell."""
    condition = row["condition"]
    if condition not in counts.index:
        return "-"
    finished, determinable, collapsed = (int(v) for v in counts.loc[condition])
    if determinable == 0:
        return "short" if finished else "-"
    if collapsed == 0:
        return f"- (0/{determinable})"
    return f"{fmt(row['time_to_collapse'], 1)} ({collapsed}/{determinable})"


def _substituted(row: pd.Series, manifest: RunManifest) -> str:
    """Share of each agent's actions that were substitutes (fallbacks): "A/B", "-" for a policy,
    which always plays its own move."""
    matchup = manifest.matchups.get(str(row["condition"]))
    kinds = (matchup.type_a, matchup.type_b) if matchup is not None else (None, None)
    return "/".join(
        "-" if kind == "policy" else fmt(row.get(f"substituted_share_{side}"))
        for side, kind in zip("ab", kinds, strict=True)
    )
