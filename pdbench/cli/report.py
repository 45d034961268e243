"""The end-of-run table: per condition, cooperation, payoffs, collapse, calls and cost."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from pdbench.runners.plan import PlannedMatch
from pdbench.storage.manifest import Counts, RunManifest
from pdbench.storage.run_store import read_manifest
from pdbench.storage.schema import AGGREGATES_FILE


def _fmt(value, digits: int = 2) -> str:
    if value is None or (isinstance(value, float) and pd.isna(value)):
        return "-"
    return f"{value:.{digits}f}"


def summary_table(
    run_dir: Path, aggregates: pd.DataFrame | None = None, manifest: RunManifest | None = None
) -> Table:
    """The table of a run; `aggregates` saves reading back what the caller just wrote."""
    if manifest is None:
        manifest = read_manifest(run_dir)
    if aggregates is None:
        aggregates = pd.read_parquet(run_dir / AGGREGATES_FILE)
    conditions = aggregates[aggregates["level"] == "condition"]
    calls = manifest.provider_calls_by_condition
    table = Table(
        title=escape(f"run {manifest.run_id}: {manifest.status}"),
        title_justify="left",
        box=box.SIMPLE_HEAD,
        caption="coop: share of C (a, b, both); total: mean payoff per match; collapse: mean "
        "round of collapse (replicates that collapsed); calls: provider calls live/cached",
        caption_justify="left",
    )
    for column in (
        "condition",
        "agent a vs agent b",
        "reps",
        "coop a",
        "coop b",
        "coop",
        "total a",
        "total b",
        "collapse",
        "calls",
        "cost $",
    ):
        left = column in ("condition", "agent a vs agent b")
        table.add_column(column, justify="left" if left else "right", no_wrap=True)
    for row in conditions.itertuples():
        condition_calls = calls.get(str(row.condition), Counts())
        collapsed = (
            aggregates[
                (aggregates["level"] == "replicate") & (aggregates["condition"] == row.condition)
            ]["time_to_collapse"]
            .notna()
            .sum()
        )
        collapse = (
            "-"
            if collapsed == 0
            else f"{_fmt(row.time_to_collapse, 1)} ({collapsed}/{row.n_replicates})"
        )
        table.add_row(
            escape(str(row.condition)),
            escape(f"{row.agent_a} vs {row.agent_b}"),
            str(row.n_replicates),
            _fmt(row.cooperation_rate_a),
            _fmt(row.cooperation_rate_b),
            _fmt(row.cooperation_rate),
            _fmt(row.total_payoff_a, 1),
            _fmt(row.total_payoff_b, 1),
            collapse,
            f"{condition_calls.live}/{condition_calls.cached}",
            _fmt(condition_calls.cost_usd, 4),
        )
    return table


def plan_table(plan: list[PlannedMatch]) -> Table:
    """Every planned match: its length and seeds (the seeds a real run of it uses)."""
    table = Table(box=box.SIMPLE_HEAD, title_justify="left")
    for column in (
        "condition",
        "replicate",
        "rounds",
        "horizon seed",
        "agent a seed",
        "agent b seed",
        "max LLM calls",
    ):
        table.add_column(
            column,
            justify="left" if column == "condition" else "right",
            no_wrap=column != "condition",
            overflow="fold",
        )
    for m in plan:
        table.add_row(
            escape(m.condition.name),
            str(m.replicate),
            str(m.n_rounds),
            str(m.horizon_seed),
            str(m.seed_a),
            str(m.seed_b),
            str(m.max_llm_calls),
        )
    return table


def print_table(table: Table) -> None:
    Console(width=None if Console().is_terminal else 200).print(table)


def shown_path(path: Path) -> str:
    """A path relative to the working directory when it is inside it (shorter to copy)."""
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def print_summary(run_dir: Path, aggregates: pd.DataFrame | None = None) -> None:
    """Print the table, the run dir and the command that opens the viewer on it."""
    console = Console(width=None if Console().is_terminal else 200)
    manifest = read_manifest(run_dir)
    console.print(summary_table(run_dir, aggregates, manifest))
    failed = manifest.matches.failed
    if failed:
        first = failed[0]
        console.print(
            escape(
                f"{len(failed)} match(es) ended early with an error (run_manifest.json "
                f"matches.failed; their answers are in matches.jsonl), e.g. {first.condition} "
                f"replicate {first.replicate}: {first.error}"
            ),
            style="yellow",
        )
    console.print(f"run dir: {shown_path(run_dir)}")
    console.print(f"look at it: uv run pdbench ui {shown_path(run_dir)}")
