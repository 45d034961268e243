"""`pdbench export RUN --inspect [OUT]` (issue 46): each condition of a run as an Inspect eval
log (`.eval`, Inspect's current log format), built from inspect_ai's own types and written by its
own writer, so `inspect view` and `read_eval_log` read it as they read Inspect's own logs (rather
than a copy of the format that would drift from Inspect's versions).

A condition is an eval (inspect_header.py), a match a sample (inspect_samples.py), its rounds or
turns the sample's messages and events (inspect_transcript.py).

inspect_ai is the optional `inspect` dependency group, imported inside functions only; without
it the export is one line saying how to add it.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pdbench.cli.inspect_header import (
    cell_value,
    eval_id,
    eval_results,
    eval_spec,
    eval_stats,
    log_status,
    metric_columns,
    run_section,
)
from pdbench.cli.inspect_samples import (
    build_sample,
    condition_roles,
    count_calls,
    match_description,
    reads_rounds_in,
)
from pdbench.cli.inspect_transcript import MatchTranscript, parse_utc
from pdbench.core.errors import PdbenchError, WriteFailed

if TYPE_CHECKING:
    import pandas as pd
    from inspect_ai.log import EvalLog

    from pdbench.storage.ledger import LedgerEntry
    from pdbench.storage.manifest import RunManifest
    from pdbench.storage.reader import RunReader

MISSING = (
    "export --inspect needs inspect_ai, the optional `inspect` dependency group: "
    "uv sync --group inspect (or uv run --group inspect pdbench export ...)"
)


@dataclass
class Exported:
    paths: list[Path]
    notes: list[str]


def require_inspect() -> None:
    try:
        import inspect_ai.log  # noqa: F401
    except ImportError as error:
        raise PdbenchError(MISSING) from error


def export_inspect(reader: RunReader, out: Path) -> Exported:
    """Write one .eval per condition into `out` (made if missing); a file of the same name is
    replaced whole, so exporting again gives the same files."""
    from pdbench.analysis.per_run.aggregates import read_aggregates

    require_inspect()
    manifest = reader.manifest()
    ledger = reader.ledger()
    aggregates = read_aggregates(reader)
    notes = [aggregates.note] if aggregates.note else []
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise WriteFailed(out, error) from error
    paths, unmarked = [], 0
    for condition in manifest.conditions:
        entries = [entry for entry in ledger if entry.condition == condition]
        log, unknown = condition_log(reader, manifest, condition, entries, aggregates.table, notes)
        unmarked += unknown
        paths.append(_write(log, out / log_name(manifest, condition)))
    if unmarked:
        notes.append(
            f"{unmarked} matches mix live and cached calls, and this run (written before pdbench "
            "kept which was which) does not say which: their model events carry no cache mark "
            "(the counts are in each sample's metadata, `calls`)"
        )
    return Exported(paths, notes)


def log_name(manifest: RunManifest, condition: str) -> str:
    """Inspect's own naming (`<created>_<task>_<id>.eval`), the same on every export."""
    created = (manifest.started_utc or "0000-00-00T00:00:00")[:19].replace(":", "-")
    # Inspect reads a task's name from the file name between underscores: none inside it
    task = re.sub(r"[^A-Za-z0-9-]+", "-", condition).strip("-")[:80] or "condition"
    return f"{created}+00-00_{task}_{eval_id(manifest, condition)}.eval"


def _write(log: EvalLog, path: Path) -> Path:
    """Through a temporary file beside `path`: a reader sees the old log or the new one."""
    from inspect_ai.log import write_eval_log

    tmp = path.with_name(f".{path.stem}.{os.getpid()}.tmp.eval")
    try:
        write_eval_log(log, str(tmp), format="eval")
        tmp.replace(path)
    except OSError as error:
        tmp.unlink(missing_ok=True)
        raise WriteFailed(path, error) from error
    return path


def condition_log(
    reader: RunReader,
    manifest: RunManifest,
    condition: str,
    entries: list[LedgerEntry],
    table: pd.DataFrame,
    notes: list[str],
) -> tuple[EvalLog, int]:
    """The eval log of one condition, and how many of its matches mix live and cached calls
    without saying which; a match whose stored calls are not what its ledger line counts is
    added to `notes` (its events are then left unmarked too)."""
    from inspect_ai.log import EvalError, EvalLog, EvalPlan, EvalPlanStep

    roles = condition_roles(manifest, condition)
    run = run_section(manifest, condition)
    cache_mode = str((run.get("cache") or {}).get("mode", "readwrite"))
    rows = table[table["condition"] == condition]
    metrics = metric_columns(table)
    by_replicate = {
        int(row["replicate"]): {c: cell_value(row[c]) for c in metrics}
        for _, row in rows[rows["level"] == "replicate"].iterrows()
    }
    rounds = reader.condition_rounds(condition)
    lines = next((records for records in rounds.values() if records), [])
    read_as_rounds = reads_rounds_in(manifest, condition, lines)
    samples, unknown = [], 0
    for entry in entries:
        records = rounds.get(entry.replicate, [])
        n_calls = count_calls(records, entry)
        counted = entry.calls.live + entry.calls.cached
        if n_calls != counted:
            notes.append(
                f"{condition} replicate {entry.replicate}: its stored lines hold {n_calls} "
                f"provider calls, its ledger line counts {counted}"
            )
        cached = entry.cached_calls(n_calls)
        unknown += cached is None and n_calls == counted and entry.calls.live > 0
        started = records[0].get("timestamp_utc") if records else entry.finished_utc
        transcript = MatchTranscript(
            roles, entry, cached, cache_mode, run.get("store_prompts", True), parse_utc(started)
        )
        description = match_description(roles, condition, entry.replicate)
        metrics_row = by_replicate.get(entry.replicate, {})
        samples.append(build_sample(transcript, records, metrics_row, description, read_as_rounds))
    status, error = log_status(manifest, entries)
    condition_row = rows[rows["level"] == "condition"]
    return (
        EvalLog(
            status=status,
            eval=eval_spec(manifest, condition, roles, samples, run),
            plan=EvalPlan(
                name="pdbench",
                steps=[
                    EvalPlanStep(
                        solver=f"{role.name}: {role.player}",
                        params={"kind": role.kind, "model": role.model},
                    )
                    for role in roles.values()
                ],
            ),
            results=eval_results(samples, condition_row, metrics),
            stats=eval_stats(manifest, samples),
            error=EvalError(message=error, traceback="", traceback_ansi="") if error else None,
            samples=samples,
        ),
        unknown,
    )
