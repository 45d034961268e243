"""The viewer of a turn-game run (rounds.jsonl holds one line per turn): the condition and
replicate chosen in the sidebar, then three tabs: Transcript (the game's own page,
`pdbench.ui.game_views`), Metrics (the game's measures per condition with their intervals,
`tabs.turn_metrics`) and Run facts. The 2x2 tabs read C/D rounds, so a turn run is shown here
instead of through them."""

from __future__ import annotations

import re

import pandas as pd
import streamlit as st

from pdbench.core.seats import SEAT_PATTERN
from pdbench.ui import grid
from pdbench.ui.display import is_missing
from pdbench.ui.facts import condition_config, ledger_entry
from pdbench.ui.game_views import MatchView, game_view
from pdbench.ui.loaders import LoadedRun
from pdbench.ui.tabs import run_facts, turn_metrics


def render_turn_run(run: LoadedRun) -> None:
    if run.aggregates.conditions.empty:
        run_facts.render_nothing_finished(run.manifest, run.ledger, turn_game=True)
        return
    replicates = run.aggregates.replicates
    with st.sidebar:
        condition = st.selectbox(
            "Condition", list(run.aggregates.conditions["condition"]), key="condition"
        )
        mine = replicates[replicates["condition"] == condition]
        labels = {
            int(row["replicate"]): f"{int(row['replicate'])} · {_played(row)}"
            for _, row in mine.iterrows()
        }
        replicate = st.selectbox(
            "Replicate",
            list(labels),
            format_func=lambda number: labels[number],
            key=f"replicate::{condition}",
        )
    row = mine[mine["replicate"] == replicate].iloc[0]
    game_id = str(row["game"])
    view = game_view(game_id)
    transcript_tab, metrics_tab, facts_tab = st.tabs(["Transcript", "Metrics", "Run facts"])
    with transcript_tab:
        if view is None:
            st.warning(
                f"No page is registered for the game {game_id} (pdbench.ui.game_views): its "
                "measures and run facts are in the other tabs.",
                icon=":material/warning:",
            )
        else:
            view.render_transcript(_match_view(run, condition, replicate, row))
    with metrics_tab:
        if view is None:
            st.info(f"No measures are registered for the game {game_id}.")
        else:
            turn_metrics.render(
                replicates,
                view.MEASURES,
                condition,
                grid.condition_labels(run.aggregates.conditions, run.manifest),
                run.manifest.run_id,
            )
    with facts_tab:
        run_facts.render(run.manifest, run.ledger, condition=condition, turn_game=True)


def _played(row: pd.Series) -> str:
    """'13 turns', '4 turns · aborted' (an aborted match may have stored none)."""
    turns = "no turn" if is_missing(row.get("n_turns")) else f"{int(row['n_turns'])} turns"
    return f"{turns} · aborted" if row["match_status"] == "aborted" else turns


def player_seats(row: pd.Series) -> list[str]:
    """The player seats a match row names an agent for: a pair's a and b, a group's a, b, c, ..."""
    found = (re.fullmatch(rf"agent_({SEAT_PATTERN})", str(column)) for column in row.index)
    return sorted(m.group(1) for m in found if m and not is_missing(row[m.group(0)]))


def _match_view(run: LoadedRun, condition: str, replicate: int, row: pd.Series) -> MatchView:
    turns = run.match(condition, replicate)
    entry = ledger_entry(run.ledger, condition, replicate)
    seed = entry.seeds.get("game") if entry is not None else None
    if seed is None and turns:  # the last line of a finished match names its seed
        seed = (turns[-1].get("outcome") or {}).get("seed")
    game = (condition_config(run.manifest, condition) or {}).get("game") or {}
    matchup = run.manifest.matchups.get(condition)
    return MatchView(
        turns=turns,
        names={seat: f"{seat.upper()} · {row[f'agent_{seat}']}" for seat in player_seats(row)},
        options=game.get("options") or {},
        seed=seed,
        third_parties=dict(matchup.third_parties) if matchup is not None else {},
    )
