"""What a run prints: the end-of-run table (one for every game, `pdbench.cli.summary_table`), the
notes under it, and the dry run's plan.

The table never hides a number: it is fitted to the terminal (cli.table_fit): the columns of
names (the condition, or a grid's factors, and the matchup) wrap between their parts onto more
lines before a number is cut, and the matchup is left out when the terminal is too narrow for it.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pandas as pd
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from pdbench.cli.summary_table import DEFAULT_WIDTH, summary_table
from pdbench.core.visible import visible
from pdbench.runners.plan import PlannedMatch
from pdbench.storage.manifest import RunManifest
from pdbench.storage.run_store import read_manifest
from pdbench.storage.schema import CallCounts


def console() -> Console:
    """A console as wide as the terminal (or COLUMNS), and DEFAULT_WIDTH when piped."""
    # sys.stdout, not rich's is_terminal: rich counts FORCE_COLOR and the like as a terminal and
    # then falls back to 80 columns for a pipe.
    width = None if sys.stdout.isatty() or os.environ.get("COLUMNS") else DEFAULT_WIDTH
    return Console(width=width)


def sweep_budget(manifest: RunManifest) -> float | None:
    """The cost budget of a sweep's jobs (run.max_cost_usd), or None (a single run, or none)."""
    if manifest.kind != "sweep":
        return None
    for spec in manifest.config.values():
        run = spec.get("run") if isinstance(spec, dict) else None
        if isinstance(run, dict) and run.get("max_cost_usd") is not None:
            return float(run["max_cost_usd"])
    return None


def _estimate_against_spent(manifest: RunManifest) -> list[str]:
    """The price estimated before the run beside what was spent (issue 33)."""
    # offline: nothing to set it against
    priced = [e for e in manifest.estimate if e.get("price") != "free (offline)"]
    if not priced:
        return []
    parts: list[str] = []
    for e in priced:
        price = str(e.get("price"))
        if price.startswith("not estimated: "):
            # a turn game's calls: no count was made, so "0 calls, unknown price" would be wrong;
            # said once per model and reason, not once per job of a sweep
            part = f"{e.get('model')}: not estimated ({price.removeprefix('not estimated: ')})"
            if part not in parts:
                parts.append(part)
            continue
        expected, most = e.get("price_usd_expected"), e.get("price_usd_max")
        if e.get("batch_price_usd_expected") is not None:  # a batch run: at the batch rate
            expected, most = e.get("batch_price_usd_expected"), e.get("batch_price_usd_max")
        money = (
            "unknown price"
            if expected is None or most is None
            else f"${expected:.4f} expected, ${most:.4f} at most"
        )
        parts.append(
            f"{e.get('model')}: {e.get('calls_expected')} calls, "
            f"{e.get('input_tokens_expected')} input tokens, {money}"
        )
    spend = manifest.spend
    spent = f"${spend.cost_usd:.4f} on {spend.live} live calls, {spend.input_tokens} input tokens"
    if spend.cached_input_tokens:
        spent += f" ({spend.cached_input_tokens} cached)"
    return [f"estimate before the run: {'; '.join(parts)}; spent: {spent}"]


def estimated_note(spend: CallCounts) -> str:
    """The calls that timed out, which the provider may have billed: apart from what was spent."""
    calls = spend.estimated_calls
    price = f"up to ${spend.estimated_cost_usd:.4f}"
    if spend.estimated_unknown_price:
        price += f" + unknown ({spend.estimated_unknown_price} at a price litellm does not know)"
    return (
        f"may have been billed: {price} for {calls} call{'s' * (calls != 1)} that timed out (an "
        f"estimate, not in spent: {spend.estimated_input_tokens} prompt tokens, at most "
        f"{spend.estimated_output_tokens} answer tokens; spend.jsonl lines with `estimate`)"
    )


def notes(manifest: RunManifest) -> list[str]:
    """What the table cannot say: money spent, replicates that are replays, aborted matches."""
    lines = []
    spend = manifest.spend
    if spend.live:
        price = f"${spend.cost_usd:.4f}"
        if spend.unknown_price:
            price += f" + unknown ({spend.unknown_price} calls at a price litellm does not know)"
        lines.append(
            f"spent: {price} on {spend.live} live calls, over every attempt of this run "
            "(answers already paid for come from the cache)"
        )
    if spend.estimated_calls:
        lines.append(estimated_note(spend))
    budget = sweep_budget(manifest)
    if budget is not None:
        lines.append(
            f"budget: ${budget:.4f} for all {len(manifest.conditions)} jobs of the sweep together; "
            "before each call a job adds up every job's spend journal (spend/<job>.jsonl) as "
            "the filesystem shows it, so the sweep may pass it by the calls other jobs have in "
            "flight (at most run.max_concurrency each); see docs/scaling.md"
        )
    lines += _estimate_against_spent(manifest)
    replays = [
        name
        for name, sampling in manifest.sampling.items()
        if sampling.replicates == "deterministic_replay"
    ]
    if replays:
        lines.append(
            f"note: the replicates of {', '.join(replays)} are deterministic replays (temperature "
            "0: the same prompts get the same answers), so they count as one sample (effective "
            "n = 1); sample at temperature > 0 for independent replicates"
        )
    failed = manifest.matches.failed
    if failed:
        first = failed[0]
        lines.append(
            f"{len(failed)} match(es) were aborted by an agent (condition means use finished "
            f"matches; answers in matches.jsonl), e.g. {first.condition} replicate "
            f"{first.replicate}: {first.error}"
        )
    return lines


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
    console().print(table)


def shown_path(path: Path) -> str:
    """A path relative to the working directory when it is inside it (shorter to copy)."""
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def resumed_note(planned: int, skipped: int) -> str | None:
    """What a run that found matches already stored says before its table: a re-run of a
    complete run played nothing, and says so (its table is the same as last time)."""
    if planned and skipped == planned:
        return (
            f"nothing to play: all {planned} matches were already stored (the table is the "
            "stored run's); pass a new run id to play them again"
        )
    if skipped:
        return f"resumed: {skipped} of {planned} matches were already stored and were kept"
    return None


def print_summary(run_dir: Path, aggregates: pd.DataFrame | None = None) -> None:
    """Print the table, the notes under it, the run dir and the command that opens the viewer."""
    out = console()
    manifest = read_manifest(run_dir)
    fitted = summary_table(run_dir, aggregates, manifest, width=out.width)
    # Below the width the numbers need, the terminal wraps lines rather than rich cutting a
    # number to an ellipsis: a wrapped line is ugly, a cut number is wrong.
    (Console(width=fitted.width) if fitted.width > out.width else out).print(fitted.table)
    for line in notes(manifest):  # an aborted match's error may quote the agent: spelled out
        out.print(escape(visible(line)), style="yellow" if "aborted" in line else None)
    # A path is printed whole (soft wrap): a line break inside it would break a copy and paste.
    out.print(f"run dir: {shown_path(run_dir)}", soft_wrap=True)
    out.print(f"look at it: uv run pdbench ui {shown_path(run_dir)}", soft_wrap=True)
