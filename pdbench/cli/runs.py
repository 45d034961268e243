"""`pdbench runs [DIR]` and `pdbench export RUN [--inspect]`: the runs on disk, and one
run's tables as CSV (the default), for whoever reads results in a spreadsheet rather than in pandas, or its
conditions as Inspect eval logs (cli/inspect_log.py), for `inspect view`.

Both only read a run; `export` writes its files (through temporary files) into `--out`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from pdbench.core.errors import PdbenchError, WriteFailed
from pdbench.core.visible import visible

if TYPE_CHECKING:
    import pandas as pd

    from pdbench.storage.reader import RunReader

DEFAULT_RUNS = Path("data/runs")
CSV_FILES = ("conditions.csv", "replicates.csv", "rounds.csv")
CONTRACT_COLUMNS = (  # every rounds.jsonl line holds at least these (design: the contract)
    "run_id",
    "condition",
    "replicate",
    "round_index",
    "agent_a_action",
    "agent_b_action",
    "agent_a_payoff",
    "agent_b_payoff",
    "agent_a_cum_payoff",
    "agent_b_cum_payoff",
    "horizon_type",
    "fixed_n",
    "stop_prob",
    "timestamp_utc",
)


def runs(
    folder: Annotated[
        Path | None,
        typer.Argument(
            help="The folder holding run folders; default data/runs.", show_default=False
        ),
    ] = None,
) -> None:
    """List the runs in a folder, newest first: status, conditions, matches finished, spend and
    the date each started; for a batch run, how its batches stand."""
    from pdbench.storage.batch_journal import batch_progress
    from pdbench.storage.reader import RunReader, is_run_dir

    if folder is None:
        folder = DEFAULT_RUNS
        if not folder.exists():
            typer.echo(f"no runs in {folder} yet (pdbench run writes them there)")
            return
    if not folder.exists():
        raise PdbenchError(f"{folder}: no such folder (runs are under data/runs/ by default)")
    if not folder.is_dir():
        raise PdbenchError(f"{folder} is not a folder")
    if is_run_dir(folder):
        raise PdbenchError(
            f"{folder} is a run, not a folder of runs: try `pdbench runs {folder.parent}`"
        )
    rows = []
    for child in sorted(p for p in folder.iterdir() if p.is_dir() and is_run_dir(p)):
        try:
            manifest = RunReader.open(child).manifest()
        except Exception as error:  # one damaged run must not hide the others
            rows.append(
                (child.name, "unreadable", "-", "-", "-", "-", f"{type(error).__name__}: {error}")
            )
            continue
        finished = manifest.matches.completed
        rows.append(
            (
                child.name,
                manifest.status,
                str(len(manifest.conditions)),
                f"{finished}/{manifest.matches.planned}",
                f"{manifest.spend.cost_usd:.4f}",
                (manifest.started_utc or "?")[:19].replace("T", " "),
                # a batch run's batches: submitted, in progress, done (storage/batch_journal.py)
                "  ".join(
                    part
                    for part in ("sweep" if manifest.kind == "sweep" else "", batch_progress(child))
                    if part
                ),
            )
        )
    if not rows:
        typer.echo(f"no runs in {folder}")
        return
    rows.sort(key=lambda row: row[5], reverse=True)
    header = ("run", "status", "conditions", "matches", "spent $", "started (UTC)", "")
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header) - 1)]
    for row in [header, *rows]:
        cells = [str(cell).ljust(width) for cell, width in zip(row, widths, strict=False)]
        # A folder's name or a damaged manifest's error is shown, never acted on by the terminal.
        typer.echo(visible(("  ".join(cells) + "  " + str(row[-1])).rstrip()))


def export(
    run_dir: Annotated[
        Path, typer.Argument(help="A run folder, e.g. data/runs/<run_id>.", show_default=False)
    ],
    folder: Annotated[
        Path | None,
        typer.Argument(
            metavar="OUT", help="Folder for the files (the same as --out).", show_default=False
        ),
    ] = None,
    csv: Annotated[
        bool, typer.Option("--csv", help="Write CSV files (the default without --inspect).")
    ] = False,
    inspect: Annotated[
        bool,
        typer.Option(
            "--inspect",
            help="Write each condition as an Inspect eval log (.eval) for `inspect view` "
            "(needs the inspect group: uv sync --group inspect).",
        ),
    ] = False,
    out: Annotated[
        Path | None,
        typer.Option(help="Folder for the files; default: <run>/export/.", show_default=False),
    ] = None,
) -> None:
    """Write a run's aggregates (conditions.csv, replicates.csv) and its stored rounds
    (rounds.csv) as CSV, or (--inspect) each condition as an Inspect eval log. Nested fields
    (attempts, conversations) are JSON text in their CSV cell."""
    from pdbench.storage.reader import RunReader

    csv = csv or not inspect  # CSV unless only Inspect logs are asked for
    if folder is not None and out is not None and folder != out:
        raise PdbenchError(f"export: two folders given ({folder} and --out {out}): give one")
    out = out if out is not None else folder
    if inspect:
        from pdbench.cli.inspect_log import require_inspect

        require_inspect()  # before anything is read or made
    reader = RunReader.open(run_dir)
    target = (out if out is not None else reader.run_dir / "export").expanduser()
    if target.exists() and not target.is_dir():
        raise PdbenchError(f"--out {target}: exists and is not a folder")
    if csv:
        _export_csv(reader, target)
    if inspect:
        _export_inspect(reader, target)


def _export_inspect(reader: RunReader, target: Path) -> None:
    from pdbench.cli import exits
    from pdbench.cli.inspect_log import export_inspect

    exported = export_inspect(reader, target)
    for note in exported.notes:
        exits.say(f"warning: {note}")
    for path in exported.paths:
        typer.echo(f"wrote {path}")
    count = len(exported.paths)
    typer.echo(
        f"wrote {count} Inspect log{'s' if count != 1 else ''} (one per condition): "
        f"uv run --group inspect inspect view --log-dir {target}"
    )


def _export_csv(reader: RunReader, target: Path) -> None:
    from pdbench.analysis.per_run.aggregates import read_aggregates

    aggregates = read_aggregates(reader).table
    level = aggregates["level"]
    rounds = rounds_frame(reader)
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise WriteFailed(target, error) from error
    tables = (
        aggregates[level == "condition"].drop(columns=["level"]),
        aggregates[level == "replicate"].drop(columns=["level"]),
        rounds,
    )
    for name, table in zip(CSV_FILES, tables, strict=True):
        write_csv(table, target / name)
        typer.echo(f"wrote {target / name} ({len(table)} rows)")


def rounds_frame(reader: RunReader) -> pd.DataFrame:
    """One row per stored round; lists and objects become JSON text."""
    import orjson
    import pandas as pd

    rows = [
        {
            key: orjson.dumps(value).decode() if isinstance(value, (list, dict)) else value
            for key, value in record.items()
        }
        for record in reader.rounds()
    ]
    # No stored round (every match aborted in round 1): the header still says what a row holds.
    return pd.DataFrame(rows) if rows else pd.DataFrame(columns=list(CONTRACT_COLUMNS))


def write_csv(table: pd.DataFrame, path: Path) -> None:
    """Through a temporary file of this process beside `path`: a reader sees the old file or the
    new one, never half of one."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        table.to_csv(tmp, index=False)
        tmp.replace(path)
    except OSError as error:
        tmp.unlink(missing_ok=True)
        raise WriteFailed(path, error) from error
