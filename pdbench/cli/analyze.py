"""`pdbench analyze RUN_DIR`: which strategy each agent plays, and do conditions really differ.

Writes analysis.parquet (pdbench.analysis.per_run.analysis_table: fingerprints, SFEM, profiles,
comparisons, replicates needed) from the stored rounds alone, and prints a compact report
(pdbench.cli.analysis_report). Heavy modules are imported when the command runs, so that
`pdbench --help` stays fast.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from pdbench.cli import bounds
from pdbench.cli.bounds import check_above, check_between
from pdbench.core.errors import PdbenchError

if TYPE_CHECKING:
    from pdbench.core.game import Game
    from pdbench.storage.manifest import RunManifest


def condition_games(manifest: RunManifest) -> dict[str, Game]:
    """Each condition's game, from the resolved config the manifest keeps (a run's spec, or a
    sweep's spec per condition)."""
    from pdbench.config.schema import GameSpec

    specs = [manifest.config] if manifest.kind == "run" else list(manifest.config.values())
    games = {}
    for spec in specs:
        for condition in spec.get("conditions", []):
            games[condition["name"]] = GameSpec.model_validate(condition.get("game", {})).build()
    return games


def analyze(
    run_dir: Annotated[
        Path, typer.Argument(help="A run folder, e.g. data/runs/<run_id>.", show_default=False)
    ],
    metric: Annotated[
        str,
        typer.Option(help="The aggregates column to compare conditions on, e.g. total_payoff_a."),
    ] = "cooperation_rate",
    reference: Annotated[
        str | None,
        typer.Option(
            help="Compare every condition with this one (with --factor: a level of the factor)."
        ),
    ] = None,
    factor: Annotated[
        str | None,
        typer.Option(
            help="Compare the levels of this factor (e.g. persona) against the reference level, "
            "the other factors held fixed."
        ),
    ] = None,
    candidates: Annotated[
        str | None,
        typer.Option(
            help="SFEM's candidate strategies, comma-separated (deterministic policies); default "
            "allc,alld,tft,stft,grim,wsls,tf2t,alternator."
        ),
    ] = None,
    bootstrap: Annotated[
        int, typer.Option(help="Bootstrap resamples (SFEM standard errors).")
    ] = 500,
    permutations: Annotated[int, typer.Option(help="Permutations per comparison test.")] = 10_000,
    seed: Annotated[int, typer.Option(help="Seed of every resample and permutation.")] = 0,
    half_width: Annotated[
        float, typer.Option(help="Target CI half-width for 'replicates needed'.")
    ] = 0.05,
    sfem: Annotated[
        str,
        typer.Option(
            help="Strategy estimator: pooled (Dal Bo-Frechette maximum likelihood over all of an "
            "agent's matches) or fontana (Fontana et al.'s code: each match fitted alone, one vote "
            "per match for the best fit, RANDOM among the candidates)."
        ),
    ] = "pooled",
    profile: Annotated[
        str,
        typer.Option(
            help="Profile scoring: pdbench (a match where a dimension is undefined is left out) "
            "or fontana (scored 0, as Fontana et al.'s code does)."
        ),
    ] = "pdbench",
    name: Annotated[
        str | None,
        typer.Option(
            help="Name of this analysis: written to analysis-NAME.parquet beside the others "
            "(default: from the options that differ from the defaults, e.g. factor-persona; "
            "the default options write analysis.parquet).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Fingerprints, strategy estimates (SFEM), behavioural profiles and comparisons between
    conditions, from a run's stored rounds; writes analysis.parquet (analysis-NAME.parquet for
    other options or --name, so several analyses of one run coexist). Never calls a provider;
    running it twice writes the same file."""
    from pdbench.analysis.per_run.analysis_files import NAME_PATTERN, write_analysis
    from pdbench.analysis.per_run.analysis_table import AnalysisOptions, analyse, analysis_name
    from pdbench.analysis.per_run.play import read_stored_play
    from pdbench.cli.analysis_report import print_report
    from pdbench.storage.safe_files import refuse_links

    check_between("--bootstrap", bootstrap, 2, bounds.BOOTSTRAP_MAX)
    check_between("--permutations", permutations, 1, bounds.PERMUTATIONS_MAX)
    check_between("--seed", seed, 0, bounds.SEED_MAX)
    check_above("--half-width", half_width, 0)
    for option, value, choices in (
        ("--sfem", sfem, ("pooled", "fontana")),
        ("--profile", profile, ("pdbench", "fontana")),
    ):
        if value not in choices:
            raise PdbenchError(f"{option} must be one of {', '.join(choices)}, got {value!r}")
    refuse_links(run_dir)  # its tables are written beside what the links point at
    if name is not None and not NAME_PATTERN.fullmatch(name):
        raise PdbenchError(
            f"--name {name!r}: use letters, digits, '.', '_' and '-' (at most 80, starting with "
            "a letter or digit)"
        )
    if _print_role_measures(run_dir) or _print_turn_measures(run_dir):
        return
    play = read_stored_play(run_dir)
    if not play.conditions:
        raise PdbenchError(f"{run_dir}: no finished match to analyse yet")
    options = AnalysisOptions(
        metric=metric,
        reference=reference,
        factor=factor,
        candidates=None
        if candidates is None
        else tuple(name.strip() for name in candidates.split(",") if name.strip()),
        n_bootstrap=bootstrap,
        n_permutations=permutations,
        seed=seed,
        half_width=half_width,
        sfem=sfem,
        profile=profile,
    )
    table = analyse(play, condition_games(play.manifest), options)
    path = write_analysis(play.run_dir, table, name or analysis_name(options))
    print_report(table, play.manifest.run_id, path)


def _print_role_measures(run_dir: Path) -> bool:
    """A run of games whose third roles have measures of their own (`ThirdRole.measures`: a
    decider's biases, an audit's disagreement) has no C/D rounds to fingerprint: print those
    measures per condition instead (True when it was such a run)."""
    from pdbench.games.registry import game_roles, role_measures
    from pdbench.storage.run_store import read_manifest

    manifest = read_manifest(run_dir)
    games = {matchup.game for matchup in manifest.matchups.values()}
    measured = {g: [role for role in game_roles(g) if role.measures] for g in sorted(games)}
    if not games or not all(measured.values()):
        return False
    roles = {role.name: role for found in measured.values() for role in found}
    for role in roles.values():
        report = role_measures(role)(run_dir)
        if not report:
            raise PdbenchError(f"{run_dir}: {role.missing}")
        measured_role = role.audits or role.name  # an audit measures the role it audits
        for condition, lines in report.items():
            parties = manifest.matchups[condition].third_parties
            panel = [who for name, who in parties.items() if name.startswith(f"{measured_role}[")]
            who = parties.get(measured_role) or ("panel " + ", ".join(panel) if panel else "?")
            typer.echo(f"{condition} ({measured_role} {who}):")
            for line in lines:
                typer.echo(f"  {line}")
    return True


def _print_turn_measures(run_dir: Path) -> bool:
    """Any other turn game's run (no C/D rounds to fingerprint): print its game's measures per
    condition and seat with their intervals (pdbench.cli.turn_measures); True when it was one.
    Nothing is written: aggregates.parquet holds every value."""
    from pdbench.analysis.metrics.aggregation_choice import reads_rounds
    from pdbench.analysis.per_run.aggregates import read_aggregates
    from pdbench.cli.turn_measures import measure_lines
    from pdbench.storage.reader import RunReader
    from pdbench.storage.run_store import read_manifest

    if reads_rounds(read_manifest(run_dir)):
        return False
    aggregates = read_aggregates(RunReader.open(run_dir))
    report = measure_lines(aggregates.table)
    if not report:
        raise PdbenchError(f"{run_dir}: no stored match to analyse yet")
    typer.echo(
        "Each measure's mean over the condition's finished matches ± its 95% CI's half-width "
        "(Student t; 'same': every match gave that value); fingerprints, strategies and "
        "comparisons read 2x2 rounds only."
    )
    for condition, lines in report.items():
        typer.echo(f"{condition}:")
        for line in lines:
            typer.echo(f"  {line}")
    return True
