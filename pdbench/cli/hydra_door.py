"""Hydra's front door: `python -m pdbench [-m] overrides...`.

Each Hydra job composes one condition and runs it into a shard of one shared run dir; when the
sweep ends, `SweepCallback` merges the shards and aggregates them as one run. Jobs may run
serially, in local processes (hydra/launcher=joblib) or on a SLURM cluster (submitit): they
share nothing but the run dir and the replay cache, and all of them agree on the run id because
it is computed once, before Hydra starts, and handed down in the environment.

Before Hydra launches anything, every job of the grid is composed and validated here (a bad
value in the 17th job is an error before the first one runs). Hydra's own flags (--cfg, --info,
-cn, --package, --help ...) are read with Hydra's own argument parser and behave as in any Hydra
app.
"""

from __future__ import annotations

import functools
import os
import shlex
import sys
import warnings
from pathlib import Path
from typing import Any

from pdbench.cli import exits
from pdbench.cli.heap import loaded_objects_frozen
from pdbench.cli.hydra_args import hydra_args, without_dry_run
from pdbench.cli.hydra_batch import batch_checked_by_preflight
from pdbench.cli.launcher_watch import LAUNCHER_PID_ENV, job_over, watch_launcher
from pdbench.cli.plan_report import print_hydra_plan
from pdbench.cli.report import print_summary, resumed_note
from pdbench.config.group_choices import check_command_line, with_game_ids
from pdbench.config.hydra_compose import (
    compose_primary,
    compositions_shared,
    condition_name_from_overrides,
    spec_from_composed,
)
from pdbench.config.installed_options import store_installed_options
from pdbench.config.overrides import Overrides
from pdbench.config.sweep import (
    SWEEP_KEYS_ENV,
    Job,
    condition_name,
    expand,
    factors_of,
    sweep_id,
)
from pdbench.config.sweep_seats import seats_left_out
from pdbench.config.tournament import tournament_overrides
from pdbench.config.tree import LAUNCH_DIR_ENV, conf_dir, find_project_root
from pdbench.config.yaml_reader import display_path
from pdbench.core.errors import ConfigError, PdbenchError, WriteFailed
from pdbench.core.redact import install_redaction, redact
from pdbench.providers.cache_shards import SHARDS_FOLDER as CACHE_SHARDS
from pdbench.runners.prepare import prepare
from pdbench.runners.stopping import RunInterrupted
from pdbench.storage.shards import claim_sweep_dir
from pdbench.storage.spend import sweep_job_journal

SWEEP_ID_ENV = "PDBENCH_SWEEP_ID"
SWEEP_CONDITIONS_ENV = "PDBENCH_SWEEP_CONDITIONS"  # the grid's condition names, for the merge
SWEEP_COMMAND_ENV = "PDBENCH_SWEEP_COMMAND"  # the command line that launched the sweep


def _run_root(cfg: Any, project_root: Path) -> Path:
    output_dir = Path(cfg.run.output_dir)
    return output_dir if output_dir.is_absolute() else project_root / output_dir


def _sweep_run_id(cfg: Any) -> str:
    return str(cfg.run.run_id or f"sweep-{os.environ[SWEEP_ID_ENV]}")


def _primary_shown(hydra_cfg: Any, project_root: Path) -> str:
    """The primary config this job composed (`-cn`, `-cp` included), as the manifest names it:
    its stem also names a single run (`short-<hash>` for `-cn short`)."""
    folder = conf_dir(project_root)
    for source in hydra_cfg.runtime.config_sources:
        if source.provider == "main" and source.schema == "file":
            folder = Path(source.path)
    name = str(hydra_cfg.job.config_name or "config")
    return display_path(folder / (name if name.endswith(".yaml") else f"{name}.yaml"), project_root)


def _job(cfg: Any) -> None:
    """One Hydra job: one condition, stored as a shard (sweep) or as its own run (single)."""
    watch_launcher(exits.INTERRUPTED)  # a joblib worker ends with its launcher, once this ends
    try:
        _play_job(cfg)
    finally:
        job_over()


@loaded_objects_frozen()
def _play_job(cfg: Any) -> None:
    from hydra.core.hydra_config import HydraConfig
    from hydra.types import RunMode

    from pdbench.cli.progress import ProgressReporter
    from pdbench.runners.deal import sweep_source
    from pdbench.runners.experiment import run_experiment
    from pdbench.storage.shards import shard_dir_name

    hydra_cfg = HydraConfig.get()
    project_root = find_project_root()
    task_overrides = Overrides.parse(
        hydra_cfg.overrides.task, _primary_shown(hydra_cfg, project_root)
    )
    multirun = hydra_cfg.mode == RunMode.MULTIRUN
    swept = [k for k in os.environ.get(SWEEP_KEYS_ENV, "").split("\n") if k]
    factors = factors_of(task_overrides, swept) if multirun and swept else {}
    name = (
        condition_name(factors) if factors else condition_name_from_overrides(task_overrides, cfg)
    )
    try:
        loaded = prepare(
            spec_from_composed(
                cfg,
                condition_name=name,
                project_root=project_root,
                source=_primary_shown(hydra_cfg, project_root),
                overrides=task_overrides,
                factors=factors,
            )
        )
        progress = ProgressReporter()  # a bar on a terminal, else a status line now and then
        play = functools.partial(
            run_experiment,
            on_start=progress.start,
            on_match_done=progress.match_done,
            watch_calls=progress.watch_calls,
        )
        if multirun:
            sweep_root = _run_root(cfg, project_root) / (run_id := _sweep_run_id(cfg))
            with progress:
                play(
                    loaded,
                    run_dir=sweep_root / "shards" / shard_dir_name(name),
                    run_id=run_id,
                    aggregate=False,
                    hydra_overrides=list(task_overrides),
                    command=os.environ.get(SWEEP_COMMAND_ENV),
                    # A journal of this job's own, counted with every other job's: the budget
                    # is for all the sweep's jobs together, and no file has two writers.
                    spend=sweep_job_journal(sweep_root, shard_dir_name(name), name),
                    # Answers bought go to this job's own cache shard, never into a database
                    # shared with other machines; the launcher merges the shards at the end.
                    cache_shard=(sweep_root / CACHE_SHARDS, shard_dir_name(name)),
                    deal_source=sweep_source(loaded, sweep_root),  # one key for every job
                )
        else:
            with progress:
                outcome = play(loaded, hydra_overrides=list(task_overrides))
            if note := resumed_note(outcome.matches_planned, outcome.matches_skipped):
                print(note)
            print_summary(outcome.run_dir)
            if outcome.status != "complete":
                exits.say_unfinished(outcome.status, outcome.matches_waiting, outcome.error)
                sys.exit(exits.status_code(outcome.status))
    except PdbenchError as error:
        exits.say(f"error: {error}")
        sys.exit(exits.BAD_INPUT)
    except WriteFailed as failure:
        exits.say_write_failed(failure)
        sys.exit(exits.WRITE_FAILED)


try:
    from hydra.experimental.callback import Callback
except ImportError:  # pragma: no cover - hydra is a dependency
    Callback = object  # type: ignore[assignment,misc]


class SweepCallback(Callback):
    """Merge a sweep's shards into one run and aggregate it, in the process that launched it;
    and keep secrets out of the multirun.yaml Hydra's sweeper writes before the first job."""

    def on_job_start(self, config: Any, **kwargs: Any) -> None:
        from hydra.types import RunMode

        if config.hydra.mode == RunMode.MULTIRUN:
            redact_multirun_yaml(Path(config.hydra.sweep.dir))

    def on_multirun_end(self, config: Any, **kwargs: Any) -> None:
        """Merge and aggregate. Hydra turns an exception raised here into a warning and exits
        0, so every failure ends the sweep here: one line and a non-zero exit code."""
        redact_multirun_yaml(Path(config.hydra.sweep.dir))
        try:
            code = _merge_sweep(config)
        except PdbenchError as error:
            exits.say(f"error: merging the sweep's shards failed: {error}")
            code = exits.BAD_INPUT
        except WriteFailed as failure:
            exits.say_write_failed(failure)
            code = exits.WRITE_FAILED
        except OSError as error:
            exits.say_write_failed(WriteFailed(getattr(error, "filename", None) or "?", error))
            code = exits.WRITE_FAILED
        if code:
            raise SystemExit(code)


def _merge_sweep(config: Any) -> int:
    """Merge a finished sweep's shards into its run dir and aggregate it; the exit code."""
    from pdbench.analysis.metrics.aggregate import write_aggregates
    from pdbench.storage.run_store import read_manifest
    from pdbench.storage.shards import merge_shards, shard_dirs

    run_dir = _run_root(config, find_project_root()) / _sweep_run_id(config)
    expected = [c for c in os.environ.get(SWEEP_CONDITIONS_ENV, "").split("\n") if c]
    if not shard_dirs(run_dir):
        if not expected:
            return exits.OK  # not a pdbench sweep (Hydra's --cfg, --info)
        exits.say(
            f"error: no job of the sweep stored anything in {run_dir} (their errors are "
            "above); nothing to merge"
        )
        return exits.INCOMPLETE
    merge_shards(run_dir, expected_conditions=expected or None)
    _merge_cache_shards(config, run_dir)
    write_aggregates(run_dir)
    print_summary(run_dir)
    manifest = read_manifest(run_dir)
    if manifest.status != "complete":
        waiting = manifest.matches.planned - manifest.matches.completed
        exits.say_unfinished(manifest.status, waiting, manifest.error)
        return exits.status_code(manifest.status)
    return exits.OK


def _merge_cache_shards(config: Any, run_dir: Path) -> None:
    """The answers the jobs bought (each in its own shard) go into this machine's replay cache,
    so a re-run here replays them without reading the sweep's shards."""
    from pdbench.cli.cache import merge_sweep_cache
    from pdbench.providers.cache import resolve_cache_dir

    if config.run.cache.mode != "off":
        target = resolve_cache_dir(str(config.run.cache.dir), find_project_root())
        merge_sweep_cache(run_dir, target)


def redact_multirun_yaml(sweep_dir: Path) -> None:
    """Rewrite Hydra's `<sweep dir>/multirun.yaml` (the whole config and the command line's
    overrides, saved by the sweeper) with its secrets redacted. Hydra writes it before any job
    starts, so the first job rewrites it; the end of the sweep once more. Idempotent."""
    import yaml

    path = sweep_dir / "multirun.yaml"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return
    cleaned = yaml.safe_dump(redact(yaml.safe_load(text)), sort_keys=False)
    if cleaned != text:
        temporary = path.with_name(f".multirun.{os.getpid()}.yaml")
        temporary.write_text(cleaned, encoding="utf-8")
        os.replace(temporary, path)


def preflight(args: Any, project_root: Path) -> tuple[list[Job], Path | None]:
    """Check a command line before Hydra launches anything; returns the grid's jobs (empty for
    a single run) and the run dir a sweep writes into. Every job is composed and validated,
    files included."""
    config_name = args.config_name or "config"
    primary = (Path(args.config_path) if args.config_path else conf_dir(project_root)) / (
        config_name if config_name.endswith(".yaml") else f"{config_name}.yaml"
    )
    shown = display_path(primary, project_root)
    if not primary.is_file():
        raise ConfigError("no such primary config", file=shown, field="--config-name")
    overrides = Overrides.parse(args.overrides, shown)
    check_command_line(primary, overrides, project_root, shown)
    if args.cfg or args.info:  # Hydra only prints the config: nothing runs
        return [], None
    jobs = expand(overrides, project_root, shown)
    grid = len(jobs) > 1 or bool(jobs[0].factors)
    if grid and not args.multirun:
        example = shlex.join(overrides)  # quoted: `glob(*)` or `[a,b]` survive a copy-paste
        raise ConfigError(
            f"the command line sweeps {', '.join(sorted(jobs[0].factors))}: add -m "
            f"(uv run python -m pdbench -m {example})",
            file=shown,
        )
    warned: set[str] = set()
    sweep_root = None
    for job in jobs:
        job_overrides = Overrides.parse(job.overrides, shown)  # read once for every step below
        cfg = compose_primary(primary, job_overrides, project_root=project_root)
        if sweep_root is None and grid and args.multirun:
            sweep_root = _run_root(cfg, project_root) / _sweep_run_id(cfg)
        name = job.name if grid else condition_name_from_overrides(job_overrides, cfg)
        loaded = prepare(
            spec_from_composed(
                cfg,
                condition_name=name,
                project_root=project_root,
                source=shown,
                overrides=job_overrides,
                factors=job.factors,
            )
        )
        for warning in [*loaded.warnings, *seats_left_out(job_overrides, loaded, shown)]:
            if warning not in warned:
                warned.add(warning)
                print(f"warning: {warning}", file=sys.stderr)
    return (jobs, sweep_root) if grid else ([], None)


def run_tournament(args: Any, project_root: Path) -> int:
    """`python -m pdbench tournament.agents=[...]`: the whole round robin is one run with one
    run dir, played here in one process (a Hydra job composes one condition; a tournament is many
    conditions that only mean something together)."""
    from pdbench.cli import exits
    from pdbench.config.load import load_config
    from pdbench.runners.experiment import run_experiment

    if args.multirun:
        raise ConfigError(
            "a tournament is one run: drop -m (its agents are a list: tournament.agents=[a,b])",
            file="conf/config.yaml",
        )
    loaded = prepare(load_config(conf_dir(project_root) / "config.yaml", args.overrides))
    for warning in loaded.warnings:
        exits.say(f"warning: {warning}")
    outcome = run_experiment(loaded, command="python -m pdbench " + " ".join(args.overrides))
    print_summary(outcome.run_dir)
    if outcome.status != "complete":
        exits.say_unfinished(outcome.status, outcome.matches_waiting, outcome.error)
    return exits.status_code(outcome.status)


def hydra_entry(argv: list[str] | None = None) -> int:
    import hydra

    exits.encodable_output()
    # conf/hydra/launcher/ray.yaml carries the name of the Ray plugin's own config, which Hydra
    # then also checks against that schema (what we want), warning that the match is deprecated.
    warnings.filterwarnings("ignore", message=r"\s*'hydra/launcher/ray' is validated against")
    # Ray (hydra/launcher=ray) would start its workers with `uv run` in a copy of the project
    # when the driver runs under `uv run`, in an environment without the `ray` group: they die
    # at start. Its workers run this environment's Python instead (Ray reads this on import).
    os.environ.setdefault("RAY_ENABLE_UV_RUN_RUNTIME_ENV", "0")
    install_redaction()  # before Hydra logs its overrides or opens its job log
    args = list(sys.argv[1:] if argv is None else argv)
    project_root = find_project_root()
    checked: Path | None = None  # the project whose config tree the preflight composed from
    dry_run, args = without_dry_run(args)
    try:
        parsed = hydra_args(args)
        if dry_run:
            return print_hydra_plan(parsed, project_root)
    except ConfigError as error:
        exits.say(f"error: {error}")
        return exits.BAD_INPUT
    if not (parsed.help or parsed.hydra_help or parsed.shell_completion):
        try:
            # Read once, a game's either spelling as its id: every step below and Hydra's jobs.
            parsed.overrides, args = with_game_ids(
                Overrides.parse(parsed.overrides, "conf/config.yaml"), project_root, args
            )
            if tournament_overrides(parsed.overrides):
                return run_tournament(parsed, project_root)
            if parsed.multirun:
                os.environ.setdefault(SWEEP_ID_ENV, sweep_id(parsed.overrides, project_root))
            jobs, sweep_root = preflight(parsed, project_root)
            checked = None if parsed.cfg or parsed.info else project_root
            if parsed.multirun and sweep_root is not None:
                # A run.run_id given on the command line may name an earlier, other sweep.
                claim_sweep_dir(
                    sweep_root, os.environ[SWEEP_ID_ENV], sorted(job.name for job in jobs)
                )
        except PdbenchError as error:
            exits.say(f"error: {error}")
            return exits.BAD_INPUT
        except WriteFailed as failure:
            exits.say_write_failed(failure)
            return exits.WRITE_FAILED
        if parsed.multirun:
            keys = sorted({key for job in jobs for key in job.factors})
            os.environ[SWEEP_KEYS_ENV] = "\n".join(keys)
            os.environ[SWEEP_CONDITIONS_ENV] = "\n".join(sorted(job.name for job in jobs))
            os.environ[SWEEP_COMMAND_ENV] = "python -m pdbench " + shlex.join(args)
            os.environ[LAUNCHER_PID_ENV] = str(os.getpid())
            os.environ[LAUNCH_DIR_ENV] = str(Path.cwd())  # for jobs that start elsewhere (Ray)
    store_installed_options(project_root / "conf")  # a plugin game's, as Hydra options
    task = hydra.main(
        config_path=str(project_root / "conf"), config_name="config", version_base="1.3"
    )(_job)
    sys.argv = [sys.argv[0], *args]
    exits.raise_on_sigterm()
    try:
        with batch_checked_by_preflight(), compositions_shared(checked):
            task()
    except RunInterrupted as stopped:
        return exits.say_interrupted(stopped)
    except KeyboardInterrupt:
        exits.say("interrupted: run the same command again to resume")
        return exits.INTERRUPTED
    return exits.OK
