"""The printed report of `pdbench analyze`: per agent its fingerprint, nearest strategy and
profile; then the comparison table. Reads only the analysis table it is given."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd
import typer
from rich.console import Console

from pdbench.analysis.identification.profile import DIMENSIONS
from pdbench.cli.report import console, shown_path
from pdbench.cli.table_fit import Column, Fitted, fit

COMPARISONS_SHOWN = 30  # the rest are in analysis.parquet
Row = dict[str, Any]


def _records(table: pd.DataFrame, name: str) -> list[Row]:
    """The rows of one table, with missing values as None."""
    part = table[table["table"] == name].astype(object)
    return part.where(part.notna(), None).to_dict("records")  # type: ignore[return-value]


def print_report(table: pd.DataFrame, run_id: str, path: Path) -> None:
    coverage = _records(table, "matches")
    used = sum(row["matches_used"] for row in coverage)
    left = sum(row["matches_left_out"] for row in coverage)
    typer.echo(
        f"analysis of run {run_id}: {len(coverage)} conditions, {used} finished matches"
        + (f", {left} left out" if left else "")
    )
    for row in coverage:
        if row["matches_left_out"]:
            total = row["matches_used"] + row["matches_left_out"]
            typer.echo(
                f"  left out of {row['condition']}: {row['matches_left_out']} of {total} "
                f"matches ({row['note']})"
            )
    counts = ", ".join(f"{name} {n}" for name, n in table["table"].value_counts(sort=False).items())
    typer.echo(f"wrote {shown_path(path)} ({len(table)} rows: {counts})")
    pooled = {
        row["agent"]: row["note"]
        for row in _records(table, "fingerprint")
        if row["scope"] == "player" and row["note"]
    }
    for player, note in pooled.items():
        typer.echo(f"warning: {player} (all its matches) {note}")
    out = console()
    for fitted in (
        strategy_table(table, out.width),
        profile_table(table, out.width),
        comparison_table(table, out.width, path.name),
    ):
        out.print()  # a blank line above each table's title
        # wider than the terminal only when its numbers need it: the terminal wraps, none is cut
        (Console(width=fitted.width) if fitted.width > out.width else out).print(fitted.table)


def _fmt(value: Any, digits: int = 2) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{float(value):.{digits}f}"


def _agent_label(row: Row) -> tuple[str, str]:
    if row["scope"] == "player":
        return "(all its matches)", str(row["agent"])
    return str(row["condition"]), f"{str(row['side']).upper()} · {row['agent']}"


def _by_agent(table: pd.DataFrame, name: str) -> dict[tuple[str, str], list[Row]]:
    """The rows of one table grouped by agent, in file order."""
    groups: dict[tuple[str, str], list[Row]] = {}
    for row in _records(table, name):
        groups.setdefault(_agent_label(row), []).append(row)
    return groups


def _nearest(rows: list[Row]) -> tuple[str, str, str]:
    """(strategy, weight, tremble) of the nearest single strategy; a group the data cannot tell
    apart is named a=b and given its summed weight (only the sum is identified)."""
    best = next(row for row in rows if row["nearest"])
    tremble = _fmt(best["tremble"], 3)
    group = best["indistinguishable"]
    if group is None:
        weight = f"{_fmt(best['weight'])} ± {_fmt(best['weight_se'])}"
        return str(best["strategy"]), weight, tremble
    members = str(group).split("=")
    summed = sum(row["weight"] for row in rows if row["strategy"] in members)
    return str(group), _fmt(summed), tremble


def _estimator(table: pd.DataFrame, name: str) -> str:
    rows = _records(table, name)
    return str(rows[0]["estimator"]) if rows else "-"


def strategy_table(table: pd.DataFrame, width: int) -> Fitted:
    """Per agent: its fingerprint and the SFEM nearest strategy, its weight and the tremble."""
    fingerprints = _by_agent(table, "fingerprint")
    columns = [
        Column("condition", names=True),
        Column("agent", names=True),
        *(Column(h, justify="right") for h in ("P(C|CC)", "P(C|CD)", "P(C|DC)", "P(C|DD)")),
        Column("P(C) r1", justify="right"),
        Column("nearest", names=True),
        Column("weight", justify="right"),
        Column("tremble", justify="right"),
    ]
    rows = []
    for who, found in _by_agent(table, "sfem").items():
        rate = {row["outcome"]: row["p_c"] for row in fingerprints[who]}
        strategy, weight, tremble = _nearest(found)
        rows.append(
            [
                who[0],
                who[1],
                *(_fmt(rate.get(o)) for o in ("CC", "CD", "DC", "DD", "first")),
                strategy,
                weight,
                tremble,
            ]
        )
    return fit(
        columns,
        rows,
        width,
        title=f"Which strategy each agent plays (SFEM, {_estimator(table, 'sfem')})",
        caption="P(C|xy): share of C after the agent played x and its opponent y; r1: P(C) in "
        "round 1. nearest: the single SFEM candidate that fits best (a=b: the data cannot tell "
        "them apart), with its weight in the mixture (± bootstrap SE) and the tremble.",
    )


def profile_table(table: pd.DataFrame, width: int) -> Fitted:
    columns = [
        Column("condition", names=True),
        Column("agent", names=True),
        *(Column(dimension, justify="right") for dimension in DIMENSIONS),
    ]
    rows = []
    for who, found in _by_agent(table, "profile").items():
        means = {row["dimension"]: row["mean"] for row in found}
        rows.append([who[0], who[1], *(_fmt(means.get(d)) for d in DIMENSIONS)])
    title = (
        "Behavioural profile (mean over matches; - where never defined; "
        f"{_estimator(table, 'profile')})"
    )
    return fit(columns, rows, width, title=title)


def comparison_table(
    table: pd.DataFrame, width: int, file_name: str = "analysis.parquet"
) -> Fitted:
    rows = [row for row in _records(table, "comparison") if row["condition_a"] is not None]
    skipped = [row["note"] for row in _records(table, "comparison") if row["condition_a"] is None]
    needed = _records(table, "replicates_needed")
    metric = needed[0]["metric"] if needed else "?"
    family = rows[0]["family"] if rows else "no pair to compare"
    half = _fmt(needed[0]["half_width"]) if needed else "?"
    notes = [f"{len(rows) - COMPARISONS_SHOWN} more comparisons are in {file_name}"] * (
        len(rows) > COMPARISONS_SHOWN
    ) + [f"not compared: {note}" for note in skipped]
    notes += [
        f"{row['condition_a']} vs {row['condition_b']}: {row['note']}"
        for row in rows[:COMPARISONS_SHOWN]
        if row["note"] and row["test"] != "not compared"
    ]
    # The rows name their interval (t, or for a rate one that stays inside [-1, 1]).
    methods = "; ".join(dict.fromkeys(str(r["interval"]) for r in rows if r.get("interval")))
    columns = [
        Column("A", names=True),
        Column("B", names=True),
        Column("test", names=True),
        *(
            Column(header, justify="right")
            for header in ("n", "mean A", "mean B", "B − A", "95% CI", "p", "p Holm")
        ),
        Column(f"reps ±{half}", justify="right"),
    ]
    cells = []
    for row in rows[:COMPARISONS_SHOWN]:
        names = [str(row["condition_a"]), str(row["condition_b"])]
        if row["test"] == "not compared":
            cells.append([*names, str(row["note"]), *([""] * 8)])
            continue
        n = f"{row['n_pairs']} pairs" if row["paired"] else f"{row['n_a']}/{row['n_b']}"
        reps = row["replicates_for_half_width"]
        cells.append(
            [
                *names,
                "paired" if row["paired"] else "unpaired",
                n,
                _fmt(row["mean_a"]),
                _fmt(row["mean_b"]),
                _fmt(row["difference"]),
                f"[{_fmt(row['ci_low'])}, {_fmt(row['ci_high'])}]",
                _fmt(row["p_value"], 4),
                _fmt(row["p_holm"], 4),
                "-" if reps is None else str(reps),
            ]
        )
    return fit(
        columns,
        cells,
        width,
        title=f"{metric}: B − A, {family} (95% CI: {methods or 'none'}; "
        "permutation p, Holm-corrected)",
        caption="paired: same seeds per replicate (common random numbers: the replicates of the "
        "two conditions share random streams), sign-flip test on the differences; unpaired: "
        "label permutation, assumes independent replicates; "
        f"reps ±{half}: replicates per condition for a CI of that half-width"
        + "".join(f". {note}" for note in notes),
    )
