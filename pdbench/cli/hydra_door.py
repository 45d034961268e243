"""Hydra's front door: `python -m pdbench [-m] overrides...`.

Each Hydra job composes one condition and runs it into a shard of one shared run dir; when the
sweep ends, `SweepCallback` merges the shards and aggregates them as one run. Jobs may run
serially, in local processes (hydra/launcher=joblib) or on a SLURM cluster (submitit): they
share nothing but the run dir and the replay cache, and all of them agree on the run id because
it is computed once, before Hydra starts, and handed down in the environment.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

from pdbench.cli.report import print_summary
from pdbench.config.hydra_compose import (
    condition_name_from_overrides,
    preflight_hydra_overrides,
    spec_from_composed,
)
from pdbench.config.tree import find_project_root
from pdbench.core.errors import PdbenchError
from pdbench.runners.prepare import prepare

SWEEP_ID_ENV = "PDBENCH_SWEEP_ID"


def sweep_id(args: list[str], project_root: Path) -> str:
    """Same command and same config tree -> same id, so re-running a sweep resumes it.

    Hydra's own settings (launcher, number of jobs, ...) are left out: they change how the grid
    is run, never what it produces, so `hydra/launcher=joblib` resumes a serial sweep."""
    digest = hashlib.sha256()
    for arg in sorted(a for a in args if not a.lstrip("+~").startswith("hydra")):
        digest.update(arg.encode() + b"\0")
    for folder in ("conf", "prompts"):
        for path in sorted((project_root / folder).rglob("*")):
            if path.is_file():
                digest.update(str(path.relative_to(project_root)).encode() + path.read_bytes())
    return digest.hexdigest()[:10]


def _is_multirun(args: list[str]) -> bool:
    return any(a in ("-m", "--multirun") for a in args)


def _run_root(cfg, project_root: Path) -> Path:
    output_dir = Path(cfg.run.output_dir)
    return output_dir if output_dir.is_absolute() else project_root / output_dir


def _job(cfg) -> None:
    """One Hydra job: one condition, stored as a shard (sweep) or as its own run (single)."""
    from hydra.core.hydra_config import HydraConfig
    from hydra.types import RunMode

    from pdbench.runners.experiment import run_experiment
    from pdbench.storage.shards import shard_dir_name

    hydra_cfg = HydraConfig.get()
    task_overrides = list(hydra_cfg.overrides.task)
    project_root = find_project_root()
    name = condition_name_from_overrides(task_overrides, cfg)
    try:
        loaded = prepare(
            spec_from_composed(
                cfg,
                condition_name=name,
                project_root=project_root,
                source="conf/config.yaml",
                overrides=task_overrides,
            )
        )
        if hydra_cfg.mode == RunMode.MULTIRUN:
            run_id = cfg.run.run_id or f"sweep-{os.environ[SWEEP_ID_ENV]}"
            run_dir = _run_root(cfg, project_root) / run_id / "shards" / shard_dir_name(name)
            run_experiment(
                loaded,
                run_dir=run_dir,
                run_id=run_id,
                aggregate=False,
                hydra_overrides=task_overrides,
            )
        else:
            outcome = run_experiment(loaded, hydra_overrides=task_overrides)
            print_summary(outcome.run_dir)
    except PdbenchError as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)


try:
    from hydra.experimental.callback import Callback
except ImportError:  # pragma: no cover - hydra is a dependency
    Callback = object  # type: ignore[assignment,misc]


class SweepCallback(Callback):
    """Merge a sweep's shards into one run and aggregate it, in the process that launched it."""

    def on_multirun_end(self, config, **kwargs) -> None:
        from pdbench.analysis.aggregate import write_aggregates

        project_root = find_project_root()
        run_id = config.run.run_id or f"sweep-{os.environ[SWEEP_ID_ENV]}"
        run_dir = _run_root(config, project_root) / run_id
        if not (run_dir / "shards").is_dir():
            return
        write_aggregates(run_dir)
        print_summary(run_dir)


def hydra_entry(argv: list[str] | None = None) -> int:
    import hydra

    args = list(sys.argv[1:] if argv is None else argv)
    project_root = find_project_root()
    overrides = [a for a in args if not a.startswith("-")]
    try:
        preflight_hydra_overrides(overrides, project_root)
    except PdbenchError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if _is_multirun(args):
        os.environ.setdefault(SWEEP_ID_ENV, sweep_id(args, project_root))
    task = hydra.main(
        config_path=str(project_root / "conf"), config_name="config", version_base="1.3"
    )(_job)
    sys.argv = [sys.argv[0], *args]
    task()
    return 0
