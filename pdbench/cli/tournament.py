"""`pdbench tournament RUN_DIR`: a tournament run's ranking, payoff matrix and population dynamics;
on a population run of a pairwise game (the donor game), the same from its encounters
(pdbench.analysis.per_run.population_play).

Writes tournament.parquet (pdbench.analysis.per_run.tournament_table) from the stored rounds of a run whose
conditions are the pairs of a tournament (an experiment with a `tournament:` block), and prints
the ranking table, then a summary of the dynamics (pdbench.cli.tournament_report). Reads
artifacts only: no match is played again and no provider is called, so the dynamics of a
tournament with LLM agents cost nothing more.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from pdbench.cli import bounds
from pdbench.cli.bounds import check_between
from pdbench.core.errors import PdbenchError


def tournament(
    run_dir: Annotated[
        Path, typer.Argument(help="A tournament's run folder, e.g. data/runs/<run_id>.")
    ],
    population: Annotated[
        int | None,
        typer.Option(
            help="Population size N of the Moran process and Payne's generations "
            "(default: max(10, 2 x players))."
        ),
    ] = None,
    selection: Annotated[
        float,
        typer.Option(help="Selection intensity w in [0, 1]: fitness = 1 - w + w x payoff."),
    ] = 1.0,
    mutation: Annotated[
        float,
        typer.Option(help="Mutation rate; above 0 adds Moran population shares over generations."),
    ] = 0.0,
    runs: Annotated[int, typer.Option(help="Moran runs per (mutant, resident) pair.")] = 1000,
    generations: Annotated[
        int, typer.Option(help="Generations of the replicator, Moran-shares and Payne dynamics.")
    ] = 100,
    payne: Annotated[
        bool,
        typer.Option(
            "--payne",
            help="Also run Payne and Alloui-Cros' generations (reproduction "
            "in proportion to the average score per move).",
        ),
    ] = False,
    payne_exponent: Annotated[
        float,
        typer.Option(
            help="Exponent of relative fitness in Payne's reproduction (their code squares it: 2)."
        ),
    ] = 1.0,
    self_play_in_scores: Annotated[
        bool,
        typer.Option(
            "--self-play-in-scores",
            help="Count self-play in scores, wins and "
            "cooperation ratings (Axelrod plays it but leaves it out).",
        ),
    ] = False,
    seed: Annotated[int, typer.Option(help="Seed of the Moran runs.")] = 0,
) -> None:
    """Payoff matrix, ranking (mean score per round, Axelrod's convention), wins, cooperation
    ratings, and offline dynamics on the measured payoffs (replicator, Moran fixation, optional
    mutation and Payne's generations); writes tournament.parquet. Never calls a provider."""
    from pdbench.analysis.per_run.play import read_stored_play, tournament_matches
    from pdbench.analysis.per_run.population_play import is_population_run, population_matches
    from pdbench.analysis.per_run.tournament_table import (
        TournamentOptions,
        tournament_table,
        write_tournament,
    )
    from pdbench.cli.tournament_report import TournamentSource, print_tournament
    from pdbench.storage.safe_files import refuse_links

    check_between("--selection", selection, 0, 1)
    check_between("--mutation", mutation, 0, 1)
    check_between("--runs", runs, 1, bounds.RUNS_MAX)
    check_between("--generations", generations, 0, bounds.GENERATIONS_MAX)
    if population is not None:
        check_between("--population", population, 2, bounds.POPULATION_MAX)
    check_between("--payne-exponent", payne_exponent, 0, bounds.PAYNE_EXPONENT_MAX)
    check_between("--seed", seed, 0, bounds.SEED_MAX)
    refuse_links(run_dir)  # its tables are written beside what the links point at
    if is_population_run(run_dir):  # a turn game's population meeting in pairs (donor game)
        matches, players, read = population_matches(run_dir)
        source = TournamentSource(
            read.run_id,
            read.n_matches,
            read.left_out,
            population=True,
            score_notes=read.score_notes,
        )
        written_in = Path(run_dir).expanduser().resolve()
    else:
        play = read_stored_play(run_dir)
        matches, players = tournament_matches(play)
        source, written_in = TournamentSource.of_tournament(play), play.run_dir
    if len(players) < 2:
        raise PdbenchError(
            f"{run_dir}: a tournament needs at least two players with finished matches"
        )
    options = TournamentOptions(
        self_play_in_scores=self_play_in_scores,
        population_size=population,
        selection_intensity=selection,
        mutation_rate=mutation,
        n_runs=runs,
        generations=generations,
        payne=payne,
        payne_exponent=payne_exponent,
        seed=seed,
    )
    try:
        table, summary = tournament_table(matches, players, options)
    except ValueError as error:  # e.g. a fitness that goes negative at this selection intensity
        raise PdbenchError(f"{run_dir}: {error}") from None
    path = write_tournament(written_in, table)
    print_tournament(table, summary, source, options, path)
