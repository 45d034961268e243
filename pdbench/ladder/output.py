"""ladder.parquet: the ladder's one table, and reading it back (the viewer reads it too).

One long table; the `table` column says what a row is:

| table | one row per | columns |
|---|---|---|
| rating | game x agent | ranked_on ("wins" or "payoff": the currency of rating), component, rank (within its component; empty when the rating is not determined), agent (name shown), agent_key (sha256 of its identity), kind, rating, ci_low, ci_high (in `unit`: Elo on wins, the game's payoff on payoff), unit, interval (the method, in words; with N players it names Plackett-Luce or the pair reduction), identified, flag (why not, when not), theta, draw_nu (NaN under Plackett-Luce), openskill_mu, openskill_sigma, openskill_ordinal (on wins), noise_sd (on payoff), matches, wins, draws, losses (N players: per pair, N-1 results a match), runs, mean_payoff |
| note | game | ranked_on, note: e.g. which groups of agents never met (a disconnected comparison graph) |
| skipped | stored match not counted | run_id, condition, replicate, note (why) |

Nothing here imports the configs or the runners: the viewer reads this file with pandas only.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

LADDER_FILE = "ladder.parquet"

COLUMNS: dict[str, str] = {
    "table": "string",
    "game": "string",
    "ranked_on": "string",
    "component": "Int64",
    "rank": "Int64",
    "agent": "string",
    "agent_key": "string",
    "kind": "string",
    "rating": "float64",
    "ci_low": "float64",
    "ci_high": "float64",
    "unit": "string",
    "interval": "string",
    "identified": "boolean",
    "flag": "string",
    "theta": "float64",
    "draw_nu": "float64",
    "openskill_mu": "float64",
    "openskill_sigma": "float64",
    "openskill_ordinal": "float64",
    "noise_sd": "float64",
    "matches": "Int64",
    "wins": "Int64",
    "draws": "Int64",
    "losses": "Int64",
    "runs": "Int64",
    "mean_payoff": "float64",
    "run_id": "string",
    "condition": "string",
    "replicate": "Int64",
    "note": "string",
}


def as_table(rows: Sequence[dict[str, object]]) -> pd.DataFrame:
    return pd.DataFrame.from_records(list(rows), columns=list(COLUMNS)).astype(COLUMNS)


def write_ladder(table: pd.DataFrame, out_dir: Path) -> Path:
    """Write ladder.parquet into `out_dir` atomically (a reader never sees half a file)."""
    from pdbench.storage.tables import write_table_atomic

    out_dir.mkdir(parents=True, exist_ok=True)
    return write_table_atomic(table, out_dir / LADDER_FILE)


def read_ladder(path: Path) -> pd.DataFrame:
    """A ladder.parquet (or the folder holding one)."""
    if path.is_dir():
        path = path / LADDER_FILE
    return pd.read_parquet(path)


def ratings(table: pd.DataFrame) -> pd.DataFrame:
    """The rating rows, by game, component and rank."""
    rows = table[table["table"] == "rating"]
    return rows.sort_values(["game", "component", "rank"]).reset_index(drop=True)
