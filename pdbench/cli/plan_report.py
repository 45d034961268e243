"""What a dry run prints (`pdbench run ... --dry-run`, `python -m pdbench ... --dry-run`): every
planned match with its seeds, the most LLM calls it can make and the price estimate; and what
`pdbench validate` prints of a valid experiment. Nothing is written."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from pdbench.games.base import fixed_length

if TYPE_CHECKING:
    from pdbench.config.schema import ConditionSpec
    from pdbench.runners.prepare import LoadedExperiment


def print_validation(loaded: LoadedExperiment) -> None:
    """`pdbench validate`'s summary of a valid experiment: conditions, size, calls, price."""
    spec = loaded.spec
    from pdbench.runners.deal import planned_deal
    from pdbench.runners.plan import plan_matches
    from pdbench.runners.provision import check_budget_enforceable, check_shared_answers_cached

    deal, provisional = planned_deal(loaded)  # the numbers below are the run's own
    plan = plan_matches(spec, deal)
    check_budget_enforceable(loaded)  # the run would be refused: so is its config
    check_shared_answers_cached(loaded, None)
    typer.echo(f"valid: {loaded.spec.source}")
    typer.echo(f"  run id        {loaded.run_id}  (seed {spec.run.seed})")
    if provisional and any(c.horizon.type == "geometric" for c in spec.conditions):
        typer.echo(f"  deal key      {no_key_yet(loaded)}: the geometric lengths are one draw")
    typer.echo(f"  conditions    {len(spec.conditions)}")
    for condition in spec.conditions:
        typer.echo(
            f"    {condition.name}: {_players_text(condition)}"
            + f" | {condition.game.id} | {_horizon_text(condition)}"
        )
    typer.echo(f"  replicates    {spec.run.replicates}")
    # turns: every match game.max_turns caps (its rules end it, the horizon does not)
    turns = sum(m.most_turns for m in plan if m.turn_cap is not None)
    # rounds: every match whose rules fix its length (a 2x2 match's drawn length, included)
    lengths = [length for m in plan if (length := fixed_length(m.rules)) is not None]
    rounds = sum(x.rounds for x in lengths)
    capped = "at most " if any(x.stops_early for x in lengths) else ""  # a random stop's cap
    size = ", ".join(
        [f"{capped}{rounds} rounds"] * bool(rounds or not turns)
        + [f"at most {turns} turns"] * bool(turns)
    )
    typer.echo(f"  matches       {len(plan)}  ({size})")
    typer.echo(f"  LLM calls     at most {sum(m.max_llm_calls for m in plan)} (every retry used)")
    print_estimate(loaded, plan)


def _players_text(condition: ConditionSpec) -> str:
    """Who plays: "TFT vs ALLD", or a population's entries with their counts and the seats
    they fill ("population of 28: 14 x PGG_CONDITIONAL_COOPERATOR (a-n), ...")."""
    if condition.population is None:
        return " vs ".join(agent.display_name for agent in condition.players.values())
    seats = [side.removeprefix("agent_") for side in condition.players]
    parts, first = [], 0
    for entry in condition.population:
        last = first + entry.count - 1
        where = seats[first] if last == first else f"{seats[first]}-{seats[last]}"
        parts.append(f"{entry.count} x {entry.agent.display_name} ({where})")
        first = last + 1
    return f"population of {len(seats)}: " + ", ".join(parts)


def _horizon_text(condition: Any) -> str:
    """How a condition's matches end, as validate says it."""
    horizon = condition.horizon
    if not condition.game.horizon_sets_length:  # ends by its rules; the horizon does not apply
        cap = condition.game.max_turns
        length = fixed_length(condition.game.build_turn())
        if length is None:
            return f"until the rules end it, at most {cap} turns"
        rounds = f"{'at most ' if length.stops_early else ''}{length.rounds} rounds"
        if length.turns > cap:
            return f"{rounds} by its rules, cut at game.max_turns ({cap} turns)"
        return f"{rounds} by its rules (at most {length.turns} turns)"
    if horizon.type == "fixed":
        return f"{horizon.rounds} rounds"
    cap = f", at most {horizon.max_rounds}" if horizon.max_rounds else ""
    return f"geometric, stop_prob {horizon.stop_prob}{cap}"


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
    from pdbench.runners.provision import check_budget_enforceable, check_shared_answers_cached

    deal, provisional = planned_deal(loaded)  # the seeds shown are the ones the run will use
    plan = plan_matches(loaded.spec, deal)
    check_budget_enforceable(loaded)  # the run would be refused: so is its config
    check_shared_answers_cached(loaded, None)
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
