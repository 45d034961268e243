"""The `pdbench` command: validate, run, aggregate, ui, list, serve-local.

Heavy modules (Hydra, pandas, litellm, Streamlit) are imported inside the commands that need them,
so `pdbench --help` stays fast. Every error a user can cause ends in one line and exit code 2.
"""

from __future__ import annotations

import dataclasses
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from pdbench.cli import exits
from pdbench.cli.analyze import analyze
from pdbench.cli.batch_status import batch_status
from pdbench.cli.cache import cache_app
from pdbench.cli.check_game import check_game
from pdbench.cli.ladder import ladder
from pdbench.cli.listing import list_options
from pdbench.cli.plan_report import print_plan, print_validation
from pdbench.cli.prompts_report import prompts
from pdbench.cli.runs import export, runs
from pdbench.cli.serve_local import serve_local
from pdbench.cli.tournament import tournament
from pdbench.cli.train import train
from pdbench.core.errors import ConfigError, PdbenchError, WriteFailed
from pdbench.core.redact import install_redaction

if TYPE_CHECKING:
    from pdbench.providers.gateway import CacheMode

SUMMARY = (
    "Repeated games between LLM agents, classic strategies and your own agent files: the "
    "iterated prisoner's dilemma and its cousins, and turn-based games with hidden "
    "information and judges. Runs are stored as auditable artifacts, analysed, and ranked on a "
    "ladder; `pdbench list games` shows them all."
)
app = typer.Typer(
    help=SUMMARY,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _show_version(asked: bool) -> None:
    if asked:
        from importlib.metadata import version

        typer.echo(f"pdbench {version('pdbench')}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_show_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """The options before a command (--version)."""


ConfigArg = Annotated[
    Path,
    typer.Argument(
        help="An experiment file (conf/experiment.yaml) or Hydra's primary config (conf/config.yaml).",
        show_default=False,
    ),
]
OverridesArg = Annotated[
    list[str] | None,
    typer.Argument(
        help="Changes to the config as key=value, e.g. run.seed=7 horizon.rounds=50 "
        "(with conf/config.yaml also group choices such as agent_a=grim).",
        show_default=False,
    ),
]
RunDirArg = Annotated[
    Path, typer.Argument(help="A run folder, e.g. data/runs/<run_id>.", show_default=False)
]


def _load(
    config: Path,
    overrides: list[str] | None,
    replicates: int | None = None,
    run_id: str | None = None,
):
    from pdbench.runners.prepare import load

    loaded = load(config, overrides or [], replicates=replicates, run_id=run_id)
    for warning in loaded.warnings:
        exits.say(f"warning: {warning}")
    return loaded


@app.command()
def validate(config: ConfigArg, overrides: OverridesArg = None) -> None:
    """Check a config and every file it refers to, then summarise the experiment it describes.

    Exits 0 when the experiment is valid and 2 (with one line saying what is wrong) otherwise.
    """
    print_validation(_load(config, overrides))


@app.command()
def run(
    config: ConfigArg,
    overrides: OverridesArg = None,
    replicates: Annotated[
        int | None, typer.Option(help="Matches per condition (overrides run.replicates).")
    ] = None,
    run_id: Annotated[
        str | None,
        typer.Option(
            help="Name of the run folder; default: derived from the config, so the "
            "same command resumes the same run."
        ),
    ] = None,
    dry_run: Annotated[
        bool,
        typer.Option("--dry-run", help="Print the plan (matches, seeds, calls); write nothing."),
    ] = False,
    resume: Annotated[
        bool, typer.Option("--resume", help="Only continue an existing run; fail if there is none.")
    ] = False,
    no_cache: Annotated[
        bool, typer.Option("--no-cache", help="Call providers even for prompts already cached.")
    ] = False,
    offline: Annotated[
        bool,
        typer.Option(
            "--offline",
            help="Replay from the cache only: stop at the first uncached "
            "prompt instead of calling a provider.",
        ),
    ] = False,
    batch: Annotated[
        bool,
        typer.Option(
            "--batch",
            help="Send provider calls as batches (run.batch=true): half the price, a batch "
            "per round; see docs/costs.md.",
        ),
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    status_every: Annotated[
        float | None,
        typer.Option(
            "--status-every",
            min=0,
            help="Without a terminal (a log, a cluster job): seconds between two one-line "
            "progress statuses on stderr; 0: none. Default: $PDBENCH_STATUS_EVERY or 30.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Run every condition x replicate into data/runs/<run_id>/ and summarise the results.

    Writes rounds.jsonl (one line per round), run_manifest.json and aggregates.parquet. A run
    that was interrupted continues where it stopped when started again with the same command.
    """
    if no_cache and offline:
        raise ConfigError(
            "contradict each other: --offline answers only from the cache, --no-cache never "
            "reads it; give one of them",
            field="--no-cache with --offline",
        )
    loaded = _load(config, overrides, replicates, run_id)
    if batch:  # not in the config hash: the same run, answered at another price and pace
        run_settings = loaded.spec.run.model_copy(update={"batch": True})
        spec = loaded.spec.model_copy(update={"run": run_settings})
        loaded = dataclasses.replace(loaded, spec=spec)
    if dry_run:
        print_plan(loaded)
        return
    _refuse_grid(config, overrides)
    from pdbench.cli.heap import loaded_objects_frozen
    from pdbench.cli.progress import ProgressReporter
    from pdbench.runners.experiment import run_experiment
    from pdbench.runners.stopping import RunInterrupted

    cache_mode: CacheMode | None = "off" if no_cache else "replay" if offline else None
    command = "pdbench run " + " ".join(shlex.quote(a) for a in sys.argv[2:])
    try:
        with (
            loaded_objects_frozen(),
            ProgressReporter(enabled=not quiet, status_every_s=status_every) as progress,
        ):
            outcome = run_experiment(
                loaded,
                resume_only=resume,
                cache_mode=cache_mode,
                on_start=progress.start,
                on_match_done=progress.match_done,
                watch_calls=progress.watch_calls,
                command=command,
            )
    except RunInterrupted as stopped:
        raise typer.Exit(exits.say_interrupted(stopped)) from None
    except KeyboardInterrupt:
        exits.say("interrupted: run the same command again to resume")
        raise typer.Exit(exits.INTERRUPTED) from None
    except WriteFailed as failure:
        exits.say_write_failed(failure)
        raise typer.Exit(exits.WRITE_FAILED) from None
    from pdbench.cli.report import resumed_note

    note = resumed_note(outcome.matches_planned, outcome.matches_skipped)
    if note:
        typer.echo(note)
    _print_summary(outcome.run_dir, outcome.aggregates)
    if outcome.status != "complete":
        exits.say_unfinished(outcome.status, outcome.matches_waiting, outcome.error)
        raise typer.Exit(exits.status_code(outcome.status))


def _refuse_grid(config: Path, overrides: list[str] | None) -> None:
    """`pdbench run conf/config.yaml agent_a=tft,grim` is a Hydra grid: say how to run it."""
    from pdbench.config.sweep import swept_keys

    swept = swept_keys(overrides or [], str(config))
    if swept:
        raise PdbenchError(
            f"{config}: {', '.join(swept)} is swept; a grid runs through Hydra: uv run python -m "
            f"pdbench -m {shlex.join(overrides or [])} (pdbench validate and --dry-run show it)"
        )


def _print_summary(run_dir: Path, aggregates=None) -> None:
    from pdbench.cli.report import print_summary

    print_summary(run_dir, aggregates)


@app.command()
def aggregate(run_dir: RunDirArg) -> None:
    """Recompute aggregates.parquet from a run's rounds.jsonl and run_manifest.json.

    Works on a single run and on a Hydra sweep (whose shards are merged first). Running it twice
    gives the same table.
    """
    from pdbench.analysis.metrics.aggregate import write_aggregates
    from pdbench.storage.run_store import RunDirLock

    _require_run_dir(run_dir)
    # A run being written is aggregated when its writer ends (it does so itself).
    lock = RunDirLock(run_dir).acquire()
    try:
        table = write_aggregates(run_dir)
    finally:
        lock.release()
    typer.echo(f"wrote {run_dir / 'aggregates.parquet'} ({len(table)} rows)")
    from pdbench.cli.cache import merge_sweep_cache

    merge_sweep_cache(run_dir, None)  # the answers its jobs bought, into this machine's cache
    _print_summary(run_dir, table)


def _require_run_dir(run_dir: Path) -> None:
    from pdbench.storage.schema import MANIFEST_FILE, SHARDS_DIR

    if not (run_dir / MANIFEST_FILE).is_file() and not (run_dir / SHARDS_DIR).is_dir():
        raise PdbenchError(
            f"{run_dir} is not a pdbench run dir (no {MANIFEST_FILE}); runs are under data/runs/"
        )


@app.command()
def ui(
    run_dir: RunDirArg,
    host: Annotated[str, typer.Option(help="Address to serve on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to serve on.")] = 8501,
    print_command: Annotated[
        bool,
        typer.Option("--print-command", help="Print the Streamlit command instead of running it."),
    ] = False,
) -> None:
    """Open the read-only viewer of a run (or of a ladder's folder) in the browser (Streamlit)."""
    import os
    import subprocess

    from pdbench.cli.bounds import PORT_MAX, check_between

    check_between("--port", port, 1, PORT_MAX)
    from pdbench.ladder.output import LADDER_FILE

    if not (run_dir / LADDER_FILE).is_file():  # a ladder's folder opens the Ladder page
        _require_run_dir(run_dir)
    app_path = Path(__file__).parents[1] / "ui" / "app.py"
    command = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(app_path),
        "--server.address",
        host,
        "--server.port",
        str(port),
        "--server.headless",
        "true",
        "--browser.gatherUsageStats",
        "false",
        "--client.toolbarMode",  # no "Deploy" button: the viewer is a local, read-only tool
        "minimal",
        "--",
        "--run-dir",
        str(run_dir.resolve()),
    ]
    if print_command:
        typer.echo(shlex.join(command))
        return
    typer.echo(f"viewer of {run_dir} at http://{host}:{port} (Ctrl-C to stop)")
    env = {**os.environ, "PDBENCH_RUN_DIR": str(run_dir.resolve())}
    raise typer.Exit(subprocess.call(command, env=env))


app.command("list")(list_options)
app.command("serve-local")(serve_local)
app.command("analyze")(analyze)
app.command("prompts")(prompts)
app.command("tournament")(tournament)
app.command("ladder")(ladder)
app.command("train")(train)
app.command("runs")(runs)
app.command("batch-status")(batch_status)
app.command("check-game")(check_game)
app.command("export")(export)
app.add_typer(cache_app, name="cache")


def main() -> None:
    """Console entry point: every error a user can cause is one line on stderr and a documented
    exit code (see pdbench/cli/exits.py); anything else is a bug and keeps its traceback."""
    exits.raise_on_sigterm()
    exits.encodable_output()
    install_redaction()
    try:
        # Without standalone mode, click returns the code of a `typer.Exit` instead of exiting.
        # (Typer turns Ctrl-C inside a command into the code 130; `run` says so itself.)
        exit_code = app(standalone_mode=False)
        if isinstance(exit_code, int) and exit_code:
            sys.exit(exit_code)
    except PdbenchError as error:
        exits.say(f"error: {error}")
        sys.exit(exits.BAD_INPUT)
    except WriteFailed as failure:
        exits.say_write_failed(failure)
        sys.exit(exits.WRITE_FAILED)
    except typer.Exit as done:
        sys.exit(done.exit_code)
    except (typer.Abort, KeyboardInterrupt):
        exits.say("interrupted: run the same command again to resume")
        sys.exit(exits.INTERRUPTED)
    except exits.usage_error_types() as error:
        exits.say(exits.usage_message(error, "pdbench"))
        sys.exit(exits.BAD_INPUT)


if __name__ == "__main__":
    main()
