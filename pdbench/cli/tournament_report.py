"""The printed summary of `pdbench tournament`: the ranking, the payoff matrix, then the
dynamics (replicator end state, Moran fixation per mutant and resident, and the optional Moran
shares and Payne generations). Reads only the table and summary it is given."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import typer
from rich import box
from rich.markup import escape
from rich.table import Table

from pdbench.analysis.per_run.play import StoredPlay
from pdbench.analysis.per_run.tournament_table import TournamentOptions
from pdbench.analysis.tournaments.results import TournamentSummary
from pdbench.cli.report import print_table, shown_path


def _records(table: pd.DataFrame, name: str) -> list[dict[str, Any]]:
    part = table[table["table"] == name].astype(object)
    return part.where(part.notna(), None).to_dict("records")  # type: ignore[return-value]


@dataclass(frozen=True)
class TournamentSource:
    """What the report's first lines say of the run read: a tournament's round robin, or a
    population's pairwise encounters (`population`: its payoff matrix is measured at the run's
    composition, which the dynamics then hold fixed)."""

    run_id: str
    n_matches: int
    left_out: tuple[str, ...]  # why each left-out match was, the first one shown
    population: bool = False
    score_notes: tuple[str, ...] = ()  # what the run's own score is, when not the payoffs'

    @classmethod
    def of_tournament(cls, play: StoredPlay) -> TournamentSource:
        return cls(
            play.manifest.run_id, len(play.matches.keys), tuple(m.reason for m in play.left_out)
        )


def print_tournament(
    table: pd.DataFrame,
    summary: TournamentSummary,
    source: TournamentSource,
    options: TournamentOptions,
    path: Path,
) -> None:
    self_play = (
        "counted in scores"
        if options.self_play_in_scores
        else "left out of scores, wins and cooperation (Axelrod's convention)"
    )
    if source.population:
        typer.echo(
            f"population of run {source.run_id}: {len(summary.players)} types, their pairwise "
            f"encounters in {source.n_matches} finished matches over {len(summary.replicates)} "
            f"replicates (a pair of seats that met in a match is one row; its score is per "
            f"encounter); two seats of one type meeting are self-play, {self_play}"
        )
        typer.echo(
            "  the payoff matrix is measured at this run's composition and under its reputation "
            "dynamics; the replicator and Moran analyses below hold each cell fixed as the "
            "shares change, which play by reputation need not"
        )
        for score_note in source.score_notes:
            typer.echo(
                "  the run's own score is not this ranking's (the stored payoffs per encounter, "
                f"undiscounted): {score_note}"
            )
    else:
        typer.echo(
            f"tournament of run {source.run_id}: {len(summary.players)} players, "
            f"{source.n_matches} finished matches over {len(summary.replicates)} replicates; "
            f"self-play {self_play}"
        )
    if source.left_out:
        typer.echo(f"  left out: {len(source.left_out)} unfinished matches ({source.left_out[0]})")
    counts = ", ".join(f"{name} {n}" for name, n in table["table"].value_counts(sort=False).items())
    typer.echo(f"wrote {shown_path(path)} ({len(table)} rows: {counts})")
    print_table(ranking_table(table))
    print_table(payoff_table(summary))
    for note in _records(table, "note"):
        typer.echo(f"note: {note['note']}")
    if _records(table, "replicator"):
        print_dynamics(table, summary.players, options)


def ranking_table(table: pd.DataFrame) -> Table:
    result = Table(
        title="Ranking by the median score over replicates (Axelrod)",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        caption="score: a player's mean payoff per round over its matches in one replicate "
        "(Axelrod's normalised score); "
        "mean and 95% CI (Student t) over replicates; wins: matches with a higher score than "
        "the opponent (median over replicates); cooperation: share of C over its rounds.",
        caption_justify="left",
    )
    for header in ("rank", "player", "median score", "mean score", "95% CI", "wins", "cooperation"):
        result.add_column(header, justify="left" if header == "player" else "right")
    for row in _records(table, "ranking"):
        result.add_row(
            str(row["rank"]),
            escape(str(row["player"])),
            _fmt(row["median_score"], 3),
            _fmt(row["mean_score"], 3),
            f"[{_fmt(row['ci_low'], 3)}, {_fmt(row['ci_high'], 3)}]",
            _fmt(row["median_wins"], 1),
            _fmt(row["cooperation_rating"], 3),
        )
    return result


def payoff_table(summary: TournamentSummary) -> Table:
    result = Table(
        title="Payoff per round, row against column",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        caption="mean over the pair's matches; 95% CIs in tournament.parquet",
        caption_justify="left",
    )
    result.add_column("")
    for player in summary.players:
        result.add_column(escape(player), justify="right")
    for i, player in enumerate(summary.players):
        result.add_row(escape(player), *(_fmt(v, 3) for v in summary.payoff_matrix[i]))
    return result


def print_dynamics(
    table: pd.DataFrame, players: tuple[str, ...], options: TournamentOptions
) -> None:
    replicator = _records(table, "replicator")
    last = max(row["generation"] for row in replicator)
    typer.echo(
        f"Replicator dynamics from an even start, after {last} generations: "
        + _shares_text([row for row in replicator if row["generation"] == last])
    )
    moran = _records(table, "moran")
    if moran:
        print_table(moran_table(moran, players))
    shares = _records(table, "moran_shares")
    if shares:
        end = max(row["generation"] for row in shares)
        typer.echo(
            f"Moran process with mutation rate {options.mutation_rate:g}, mean shares over "
            f"{options.n_runs} runs after {end} generations: "
            + _shares_text([row for row in shares if row["generation"] == end])
        )
    payne = _records(table, "payne")
    if payne:
        end = max(row["generation"] for row in payne)
        final = [row for row in payne if row["generation"] == end]
        start = [row for row in payne if row["generation"] == 0]
        typer.echo(
            f"Payne generations (exponent {options.payne_exponent:g}) from counts "
            + ", ".join(f"{row['player']} {row['count']}" for row in start)
            + f"; after {end}: "
            + ", ".join(f"{row['player']} {row['count']}" for row in final if row["count"])
        )


def moran_table(rows: list[dict[str, Any]], players: tuple[str, ...]) -> Table:
    first = rows[0]
    size, neutral = first["population_size"], first["neutral"]
    result = Table(
        title=f"Moran process: P(one mutant takes over {size - 1} residents)",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        caption=f"N = {size}, selection intensity {first['selection_intensity']:g}; each cell: "
        f"simulated over {first['n_runs']} runs / exact (two-type closed form); neutral drift: "
        f"1/N = {neutral:.3f}; + favoured, - disfavoured: the exact value above or below 1/N "
        "(the simulation's 95% Wilson interval is in tournament.parquet).",
        caption_justify="left",
    )
    result.add_column("mutant \\ resident")
    for player in players:
        result.add_column(escape(player), justify="right", min_width=12)  # 0.000/0.000+
    cell = {(row["mutant"], row["resident"]): row for row in rows}
    for mutant in players:
        values = []
        for resident in players:
            row = cell.get((mutant, resident))
            if row is None:
                values.append("")
                continue
            mark = {"favoured": "+", "disfavoured": "-"}.get(row["selection"], " ")
            values.append(f"{row['fixation_probability']:.3f}/{row['exact']:.3f}{mark}")
        result.add_row(escape(mutant), *values)
    return result


def _shares_text(rows: list[dict[str, Any]]) -> str:
    ordered = sorted(rows, key=lambda row: -row["share"])
    return ", ".join(f"{row['player']} {row['share']:.3f}" for row in ordered)


def _fmt(value: Any, digits: int = 2) -> str:
    if value is None or pd.isna(value):
        return "-"
    return f"{float(value):.{digits}f}"
