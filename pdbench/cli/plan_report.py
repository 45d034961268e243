"""What a dry run prints (`pdbench run ... --dry-run`, `python -m pdbench ... --dry-run`): every
planned match with its seeds, the most LLM calls it can make and the price estimate; and the
estimate `pdbench validate` prints. Nothing is written."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:
    from pdbench.runners.prepare import LoadedExperiment


def print_estimate(loaded: LoadedExperiment, plan: Any) -> None:
    from pdbench.runners.batch_estimate import batch_pace
    from pdbench.runners.estimate import estimate_plan, format_estimate

    run = loaded.spec.run
    estimates = estimate_plan(plan, loaded.project_root, batch=run.batch)
    pace = batch_pace(plan, run.batch_latency_s) if run.batch and estimates else None
    for line in format_estimate(estimates, pace):
        typer.echo(line)


def print_plan(loaded: LoadedExperiment) -> None:
    from pdbench.cli.report import plan_table, print_table
    from pdbench.runners.deal import planned_deal
    from pdbench.runners.plan import plan_matches
    from pdbench.runners.provision import check_budget_enforceable

    deal, provisional = planned_deal(loaded)  # the seeds shown are the ones the run will use
    plan = plan_matches(loaded.spec, deal)
    check_budget_enforceable(loaded)  # the run would be refused: so is its config
    typer.echo(f"dry run: {len(plan)} matches into {loaded.run_dir} (nothing written)")
    if provisional:
        typer.echo(
            f"deal key: {no_key_yet(loaded)}: the seeds and lengths below are one draw, the "
            "run deals with its own key (docs/security.md)"
        )
    print_table(plan_table(plan))
    typer.echo(f"estimated LLM calls: at most {sum(m.max_llm_calls for m in plan)}")
    print_estimate(loaded, plan)


def no_key_yet(loaded: LoadedExperiment) -> str:
    """Said when no deal key exists yet, so validate and --dry-run show one draw."""
    from pdbench.config.yaml_reader import display_path
    from pdbench.runners.deal import workspace_key_file

    key = display_path(workspace_key_file(loaded), Path.cwd().resolve())
    return f"none yet ({key} is made by the first run)"


def print_hydra_plan(args: Any, project_root: Path) -> int:
    """`python -m pdbench ... --dry-run` (`args` as Hydra parsed the rest): the plan of the run,
    or of the whole grid with or without -m, as `pdbench run <primary> ... --dry-run` prints it;
    composed and checked like the real command, nothing launched or written."""
    from pdbench.cli import exits
    from pdbench.config.tree import conf_dir
    from pdbench.runners.prepare import load

    folder = Path(args.config_path) if args.config_path else conf_dir(project_root)
    primary = folder / (str(args.config_name or "config").removesuffix(".yaml") + ".yaml")
    loaded = load(primary, list(args.overrides), project_root=project_root)
    for warning in loaded.warnings:
        exits.say(f"warning: {warning}")
    print_plan(loaded)
    return exits.OK
