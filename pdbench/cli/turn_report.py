"""The end-of-run table of a turn-game run: per condition, the finished matches and each player's
metrics (from aggregates.parquet, as the 2x2 table is), fitted to the terminal (cli.table_fit).

At a narrow width the matchup column goes first, then the game's measures from the last one
back (the first, the win rate, always stays); a line under the table names what was left out.
"""

from __future__ import annotations

import math

import pandas as pd
from rich.markup import escape

from pdbench.analysis.metrics.turn_aggregates import SEATS, seats_in
from pdbench.cli.table_fit import Column, Fitted, fit, left_out_note
from pdbench.games.metric_rows import summary_notes
from pdbench.storage.manifest import RunManifest

# column stem -> header (each shown "A/B"): a game's metric rows say which of them are shown
# (`Metric.shown`); a game showing none (a plugin's) shows its win rate, and
# aggregates.parquet has all of its measures.
SHOWN = {"win_rate": "win"}


def _fmt(value: object) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{float(value):.2f}"  # type: ignore[arg-type]


def _pair(row: pd.Series, stem: str, seats: tuple[str, ...] = SEATS) -> str:
    """One measure of every player seat, "A/B" (a group's "A/B/C/D")."""
    if stem.endswith("_pooled"):
        base = stem.removesuffix("_pooled")
        return "/".join(_fmt(row.get(f"{base}_{side}_pooled")) for side in seats)
    return "/".join(_fmt(row.get(f"{stem}_{side}")) for side in seats)


def _agent(row: pd.Series, seat: str) -> str:
    """Who played `seat` in the condition of `row`; "-" for a seat it does not have (a grid
    whose conditions seat different numbers of players)."""
    name = row.get(f"agent_{seat}")
    return "-" if name is None or pd.isna(name) else str(name)


def _shown(aggregates: pd.DataFrame) -> dict[str, str]:
    """The columns of the run's games (each game's own, in order of first appearance)."""
    from pdbench.games.metric_rows import game_metric_rows

    shown: dict[str, str] = {}
    for game_id in dict.fromkeys(aggregates["game"].dropna()):
        rows = sorted(
            (m for m in game_metric_rows(str(game_id)) if m.shown), key=lambda m: m.shown_at
        )
        pooled = {"mean": "", "pooled": "_pooled"}
        shown.update({f"{m.stem}{pooled[m.shown_value]}": m.shown for m in rows} or SHOWN)
    return shown or SHOWN


def turn_summary_table(aggregates: pd.DataFrame, manifest: RunManifest, width: int) -> Fitted:
    shown = _shown(aggregates)
    conditions = aggregates[aggregates["level"] == "condition"]
    seats = seats_in(aggregates)  # a, b, and a group's further seats
    sides = "/".join(seat.upper() for seat in seats)
    players = " vs ".join(seat.upper() for seat in seats)
    # a group's agents beyond a and b: on the replicate rows, as its turn lines name them
    named = aggregates.groupby("condition", sort=False).first()
    # A grid's rows are named by the factors that vary (as the 2x2 table's), else by condition.
    factors = sorted({key for values in manifest.factors.values() for key in values})
    names = [Column(name, names=True) for name in factors or ["condition"]]
    measures = [
        Column(f"{header} {sides}", drop=index) for index, header in enumerate(shown.values())
    ]
    columns = [
        *names,
        Column(players, names=True, drop=len(measures) + 1),
        Column("finished"),
        *measures,
    ]
    rows = []
    for _, row in conditions.iterrows():
        condition = str(row["condition"])
        labels = (
            [str(manifest.factors.get(condition, {}).get(key, "-")) for key in factors]
            if factors
            else [condition]
        )
        agents = named.loc[condition]
        assert isinstance(agents, pd.Series)  # conditions are named once each
        rows.append(
            [
                *labels,
                " vs ".join(_agent(agents, seat) for seat in seats),
                f"{int(row['n_finished'])}/{int(row['n_replicates'])}",
                *(_pair(row, stem, seats) for stem in shown),
            ]
        )
    fitted = fit(columns, rows, width, title=f"run {manifest.run_id}: {manifest.status}")
    measures_out = [h for h in fitted.left_out if h != players]
    note = left_out_note(measures_out, "aggregates.parquet has every measure")
    notes = [*([note] if note else []), *summary_notes(aggregates)]
    if notes:
        fitted.table.caption = escape("\n".join(notes))
        fitted.table.caption_justify = "left"
    return fitted
