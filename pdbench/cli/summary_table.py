"""The end-of-run table of any run, one for every game: per condition, its names (the condition,
or a grid's factors), who played, the finished matches, the measures its game's metric rows show
(`Metric.shown`, `pdbench.games.metric_rows.shown_rows`: a 2x2 game's and a turn game's alike)
and the columns of what the run has besides (`pdbench.cli.summary_parts`: collapse,
substitutions, calls and cost), read from aggregates.parquet and fitted to the terminal
(cli.table_fit: names wrap between their parts before a number is cut).

How the measures are laid out is the rows' own: a row shown apart (`Metric.shown_apart`, the 2x2
rows) gives each side its own column, never left out, and makes the table a pair's ("agent a vs
agent b", left out of a grid, whose factors name its rows); the others hold every seat's value in
one column ("win A/B", "score A/B/C/D") and, at a narrow width, the matchup column goes first,
then the measures from the last one back (the first always stays), a line under the table
naming what was left out.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from rich.markup import escape

from pdbench.analysis.metrics.turn_aggregates import SEATS, seats_in
from pdbench.cli.summary_parts import fmt, run_parts
from pdbench.cli.table_fit import Column, Fitted, fit, left_out_note
from pdbench.core.metric import Metric
from pdbench.games.metric_rows import shown_rows, summary_notes
from pdbench.storage.manifest import RunManifest
from pdbench.storage.run_store import read_manifest
from pdbench.storage.schema import AGGREGATES_FILE

DEFAULT_WIDTH = 200  # when the output is not a terminal and COLUMNS is not set
JOINED_DECIMALS = 2  # a column holding every seat's value, "0.50/1.00"


@dataclass(frozen=True)
class Shown:
    """One measure column: its header, the aggregates columns it joins ("A/B") and how."""

    header: str
    columns: tuple[str, ...]
    decimals: int
    apart: bool
    help: str = ""

    def cell(self, row: pd.Series) -> str:
        return "/".join(fmt(row.get(column), self.decimals) for column in self.columns)


def _row_columns(row: Metric, seats: tuple[str, ...]) -> list[Shown]:
    """The table's columns of one shown metric row: apart, the row's own columns (a side each,
    or the one for both sides); else one column of every seat's value."""
    pooled = "_pooled" if row.shown_value == "pooled" else ""
    said = f"{row.shown}: {row.shown_help}" if row.shown_help else ""
    if row.shown_apart:
        return [
            Shown(
                f"{row.shown} {column.side_name}".rstrip(),
                (column.column,),
                row.decimals,
                True,
                said if n == 0 else "",  # said once for the row
            )
            for n, column in enumerate(row.columns)
        ]
    header = f"{row.shown} {'/'.join(seat.upper() for seat in seats)}"
    columns = tuple(f"{row.stem}_{seat}{pooled}" for seat in seats)
    return [Shown(header, columns, JOINED_DECIMALS, False, said)]


def _shown(aggregates: pd.DataFrame, seats: tuple[str, ...]) -> list[Shown]:
    """The measure columns of the run's games (each game's own, in order of first appearance);
    a game showing none (a plugin's) shows its win rate, and aggregates.parquet has all of its
    measures."""
    win = Shown(
        f"win {'/'.join(s.upper() for s in seats)}",
        tuple(f"win_rate_{s}" for s in seats),
        JOINED_DECIMALS,
        False,
    )
    shown: dict[tuple[str, ...], Shown] = {}
    for game_id in dict.fromkeys(aggregates["game"].dropna()):
        columns = [c for row in shown_rows(str(game_id)) for c in _row_columns(row, seats)]
        for column in columns or [win]:
            shown[column.columns] = column
    return list(shown.values()) or [win]


def _agent(row: pd.Series, seat: str) -> str:
    """Who played `seat` in the condition of `row`; "-" for a seat it does not have (a grid
    whose conditions seat different numbers of players)."""
    name = row.get(f"agent_{seat}")
    return "-" if name is None or pd.isna(name) else str(name)


def summary_table(
    run_dir: Path,
    aggregates: pd.DataFrame | None = None,
    manifest: RunManifest | None = None,
    width: int = DEFAULT_WIDTH,
) -> Fitted:
    """The table of a run, fitted to `width`; `aggregates` saves reading back what the caller
    just wrote."""
    if manifest is None:
        manifest = read_manifest(run_dir)
    if aggregates is None:
        aggregates = pd.read_parquet(run_dir / AGGREGATES_FILE)
    shown = _shown(aggregates, seats_in(aggregates))  # a, b, and a group's further seats
    parts = run_parts(aggregates, manifest)
    pair = all(column.apart for column in shown)  # each side's measures apart: a pair's table
    seats = SEATS if pair else seats_in(aggregates)
    conditions = aggregates[aggregates["level"] == "condition"]
    # the agents of a group's seats beyond a and b: on the replicate rows, as its lines name them
    named = aggregates.groupby("condition", sort=False).first()
    # A grid's rows are named by the factors that vary, else by the condition.
    factors = sorted({key for values in manifest.factors.values() for key in values})
    joined = [column for column in shown if not column.apart]
    players = "agent a vs agent b" if pair else " vs ".join(seat.upper() for seat in seats)
    number = "right" if pair else "left"
    columns = [Column(name, names=True) for name in factors or ["condition"]]
    if not (pair and factors):  # a pair's grid: the factors carry who played
        columns.append(Column(players, names=True, drop=len(joined) + 1))
    columns.append(Column("finished", justify=number))
    columns += [
        Column(c.header, justify="right") if c.apart else Column(c.header, drop=joined.index(c))
        for c in shown
    ]
    columns += [Column(header, justify="right") for part in parts for header in part.headers]
    rows = []
    for _, row in conditions.iterrows():
        condition = str(row["condition"])
        labels = (
            [str(manifest.factors.get(condition, {}).get(key, "-")) for key in factors]
            if factors
            else [condition]
        )
        if not (pair and factors):
            agents = named.loc[condition]
            assert isinstance(agents, pd.Series)  # conditions are named once each
            labels.append(" vs ".join(_agent(agents, seat) for seat in seats))
        rows.append(
            [
                *labels,
                f"{int(row['n_finished'])}/{int(row['n_replicates'])}",
                *(column.cell(row) for column in shown),
                *(cell for part in parts for cell in part.cells(row)),
            ]
        )
    fitted = fit(columns, rows, width, title=f"run {manifest.run_id}: {manifest.status}")
    helps = [c.help for c in shown if c.help] + [part.help for part in parts]
    measures_out = [header for header in fitted.left_out if header != players]
    note = left_out_note(measures_out, "aggregates.parquet has every measure")
    lines = [*(["; ".join(helps)] if helps else []), *([note] if note else [])]
    lines += summary_notes(aggregates)
    if lines:
        fitted.table.caption = escape("\n".join(lines))
        fitted.table.caption_justify = "left"
    return fitted
