"""The end-of-run table of a turn-game run: per condition, the finished matches and each player's
metrics (from aggregates.parquet, as the 2x2 table is)."""

from __future__ import annotations

import math

import pandas as pd
from rich import box
from rich.markup import escape
from rich.table import Table

from pdbench.storage.manifest import RunManifest

# column stem -> header (each shown "A/B"): Liar's Dice's; a game's metrics module may hold its
# own SHOWN (pdbench.games.passcode_aggregates, debate_aggregates)
SHOWN = {
    "win_rate": "win",
    "challenge_accuracy_pooled": "challenge acc.",
    "bluff_rate_pooled": "bluff",
    "dice_lost_per_challenge_pooled": "dice lost/chall.",
}


def _fmt(value: object) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{float(value):.2f}"  # type: ignore[arg-type]


def _pair(row: pd.Series, stem: str) -> str:
    if stem.endswith("_pooled"):
        base = stem.removesuffix("_pooled")
        return "/".join(_fmt(row.get(f"{base}_{side}_pooled")) for side in "ab")
    return "/".join(_fmt(row.get(f"{stem}_{side}")) for side in "ab")


def _shown(aggregates: pd.DataFrame) -> dict[str, str]:
    """The columns of the run's games (each game's own, in order of first appearance)."""
    from pdbench.games.registry import turn_metrics

    shown: dict[str, str] = {}
    for game_id in dict.fromkeys(aggregates["game"].dropna()):
        shown.update(getattr(turn_metrics(str(game_id)), "SHOWN", SHOWN))
    return shown or SHOWN


def turn_summary_table(aggregates: pd.DataFrame, manifest: RunManifest) -> Table:
    table = Table(
        title=escape(f"run {manifest.run_id}: {manifest.status}"),
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    shown = _shown(aggregates)
    for header in ("condition", "A vs B", "finished", *(f"{h} A/B" for h in shown.values())):
        table.add_column(header)
    for _, row in aggregates[aggregates["level"] == "condition"].iterrows():
        table.add_row(
            escape(str(row["condition"])),
            escape(f"{row['agent_a']} vs {row['agent_b']}"),
            f"{int(row['n_finished'])}/{int(row['n_replicates'])}",
            *(_pair(row, stem) for stem in shown),
        )
    return table
