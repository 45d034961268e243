"""tournament.parquet: a tournament run's payoff matrix, ranking and population dynamics.

A pure function of the run's finished matches (`pdbench.analysis.per_run.play.tournament_matches`) and
the options: the dynamics run offline on the measured payoff matrix (`pdbench.analysis.tournaments.dynamics`),
seeded, so the same run and options give the same file byte for byte, and no match is played
again: a tournament with LLM agents is paid for once, whatever dynamics follow.

One long table; the `table` column says what a row is:

| table | one row per | columns |
|---|---|---|
| payoff | player x opponent that met | mean_payoff, std (of the replicates' means), n_matches, ci_low, ci_high (Student t over replicates: the two orders of a pair in one replicate share random streams) |
| ranking | player, best first | rank, median_score, mean_score, ci_low, ci_high, median_wins, cooperation_rating |
| replicator | generation x player | share (discrete replicator dynamics from the uniform start) |
| moran | mutant x resident | fixation_probability of one mutant among N - 1 residents (simulated), ci_low, ci_high (Wilson over runs), exact (the closed form), neutral (1/N), selection (favoured / disfavoured / neutral, from exact against 1/N), unfinished runs |
| moran_shares | generation x player | share: mean over runs of a Moran process with mutation from an even start (only with a mutation rate) |
| payne | generation x player | count, share, fitness: Payne and Alloui-Cros' reproduction (only when asked for) |
| note | reason | why a part was not computed |

Scores follow Axelrod's conventions (`pdbench.analysis.tournaments.results`): the score is the mean payoff
per round, self-play is played but left out of scores, wins and cooperation ratings unless asked
for, and players rank by the median score over replicates. Every dynamic needs the whole payoff
matrix, the diagonal (self-play) included.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from pdbench.analysis.tournaments.dynamics import (
    moran_fixation,
    moran_fixation_probability,
    moran_shares,
    payne_generations,
    replicator_trajectory,
    selection_against_neutral,
)
from pdbench.analysis.tournaments.results import (
    TournamentMatches,
    TournamentSummary,
    summarise_tournament,
)
from pdbench.core.rng import derive_seed
from pdbench.storage.tables import write_table_atomic

TOURNAMENT_FILE = "tournament.parquet"

COLUMNS: dict[str, str] = {
    "table": "string",
    "player": "string",
    "opponent": "string",
    "rank": "Int64",
    "generation": "Int64",
    "mean_payoff": "float64",
    "std": "float64",
    "n_matches": "Int64",
    "median_score": "float64",
    "mean_score": "float64",
    "median_wins": "float64",
    "cooperation_rating": "float64",
    "share": "float64",
    "count": "Int64",
    "fitness": "float64",
    "mutant": "string",
    "resident": "string",
    "fixation_probability": "float64",
    "exact": "float64",
    "neutral": "float64",
    "selection": "string",
    "unfinished": "Int64",
    "ci_low": "float64",
    "ci_high": "float64",
    "population_size": "Int64",
    "selection_intensity": "float64",
    "mutation_rate": "float64",
    "n_runs": "Int64",
    "seed": "Int64",
    "note": "string",
}


@dataclass(frozen=True)
class TournamentOptions:
    self_play_in_scores: bool = False  # Axelrod leaves self-play out of scores
    population_size: int | None = None  # None: max(10, 2 x players)
    selection_intensity: float = 1.0  # fitness = 1 - w + w * payoff (w = 1: the payoff itself)
    mutation_rate: float = 0.0  # > 0 adds Moran population shares with mutation
    n_runs: int = 1000
    generations: int = 100
    payne: bool = False
    payne_exponent: float = 1.0
    seed: int = 0
    confidence: float = 0.95

    def population(self, n_players: int) -> int:
        return self.population_size or max(10, 2 * n_players)


def even_counts(population: int, k: int) -> np.ndarray:
    """`population` individuals over k types as evenly as possible (the first types get the
    remainder)."""
    counts = np.full(k, population // k, dtype=np.int64)
    counts[: population % k] += 1
    return counts


def summary_rows(summary: TournamentSummary) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = [{"table": "payoff", **row} for row in summary.payoff_rows()]
    for row in summary.ranking_rows():
        rows.append(
            {
                "table": "ranking",
                "rank": row["rank"],
                "player": row["player"],
                "median_score": row["median_score"],
                "mean_score": row["mean_score"],
                "ci_low": row["mean_score_ci_low"],
                "ci_high": row["mean_score_ci_high"],
                "median_wins": row["median_wins"],
                "cooperation_rating": row["cooperation_rating"],
            }
        )
    return rows


def dynamics_rows(
    payoffs: np.ndarray, players: Sequence[str], options: TournamentOptions
) -> list[dict[str, object]]:
    """Replicator trajectory, pairwise Moran fixation, and (when asked) Moran shares with
    mutation and Payne's generations, on a complete payoff matrix."""
    k = len(players)
    size = options.population(k)
    rows: list[dict[str, object]] = []
    trajectory = replicator_trajectory(payoffs, np.full(k, 1.0 / k), options.generations)
    rows += _shares("replicator", trajectory.shares, players)
    settings = {
        "population_size": size,
        "selection_intensity": options.selection_intensity,
        "n_runs": options.n_runs,
    }
    for i, mutant in enumerate(players):
        for j, resident in enumerate(players):
            if i == j:
                continue
            pair = payoffs[np.ix_([i, j], [i, j])]
            seed = derive_seed(options.seed, 0, f"moran\x1f{mutant}\x1f{resident}")
            exact = moran_fixation_probability(
                pair, size, selection_intensity=options.selection_intensity
            )
            fixation = moran_fixation(
                pair,
                np.array([1, size - 1]),
                selection_intensity=options.selection_intensity,
                n_runs=options.n_runs,
                seed=seed,
                confidence=options.confidence,
            )
            rows.append(
                {
                    "table": "moran",
                    "mutant": mutant,
                    "resident": resident,
                    "fixation_probability": float(fixation.fixation_probability[0]),
                    "ci_low": float(fixation.ci_low[0]),
                    "ci_high": float(fixation.ci_high[0]),
                    "exact": exact,
                    "neutral": 1.0 / size,
                    "selection": selection_against_neutral(exact, size),
                    "unfinished": fixation.unfinished,
                    "seed": seed,
                    **settings,
                }
            )
    start = even_counts(size, k)
    if options.mutation_rate > 0:
        shares = moran_shares(
            payoffs,
            start,
            generations=options.generations,
            selection_intensity=options.selection_intensity,
            mutation_rate=options.mutation_rate,
            n_runs=options.n_runs,
            seed=derive_seed(options.seed, 0, "moran_shares"),
        )
        extra = {**settings, "mutation_rate": options.mutation_rate}
        rows += [{**row, **extra} for row in _shares("moran_shares", shares, players)]
    if options.payne:
        generations = payne_generations(
            payoffs, start, options.generations, exponent=options.payne_exponent
        )
        for t, counts in enumerate(generations.counts):
            for p, player in enumerate(players):
                fitness = generations.fitness[t, p] if t < len(generations.fitness) else np.nan
                rows.append(
                    {
                        "table": "payne",
                        "generation": t,
                        "player": player,
                        "count": int(counts[p]),
                        "share": float(counts[p] / size),
                        "fitness": float(fitness),
                        "population_size": size,
                    }
                )
    return rows


def _shares(name: str, shares: np.ndarray, players: Sequence[str]) -> list[dict[str, object]]:
    return [
        {"table": name, "generation": t, "player": player, "share": float(shares[t, p])}
        for t in range(len(shares))
        for p, player in enumerate(players)
    ]


def tournament_table(
    matches: TournamentMatches, players: Sequence[str], options: TournamentOptions
) -> tuple[pd.DataFrame, TournamentSummary]:
    """tournament.parquet's table (module doc) and the summary it was built from."""
    summary = summarise_tournament(
        matches, players, self_play=options.self_play_in_scores, confidence=options.confidence
    )
    rows = summary_rows(summary)
    missing = [
        f"{players[i]} vs {players[j]}"
        for i in range(len(players))
        for j in range(i, len(players))
        if summary.payoff_n[i, j] == 0
    ]
    if missing:
        rows.append(
            {
                "table": "note",
                "note": f"no dynamics: no finished match of {', '.join(missing)}; the dynamics "
                "need every pair's payoff, self-play included (tournament.self_play: true)",
            }
        )
    else:
        rows += dynamics_rows(summary.payoff_matrix, players, options)
    return as_table(rows), summary


def as_table(rows: Sequence[dict[str, object]]) -> pd.DataFrame:
    frame = pd.DataFrame.from_records(list(rows), columns=list(COLUMNS))
    return frame.astype(COLUMNS)


def write_tournament(run_dir: Path, table: pd.DataFrame) -> Path:
    """Write tournament.parquet atomically (a reader never sees half a file)."""
    return write_table_atomic(table, run_dir / TOURNAMENT_FILE)
