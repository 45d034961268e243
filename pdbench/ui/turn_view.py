"""The viewer of a turn-game run (rounds.jsonl holds one line per turn): the condition and
replicate chosen in the sidebar, the game's transcript tab (Liar's Dice: `tabs.liars_dice`) and
Run facts. The 2x2 tabs read C/D rounds, so a turn run is shown here instead of through them."""

from __future__ import annotations

import streamlit as st

from pdbench.ui.facts import condition_config
from pdbench.ui.loaders import LoadedRun
from pdbench.ui.tabs import liars_dice, run_facts


def is_turn_run(run: LoadedRun) -> bool:
    return "n_turns" in run.aggregates.replicates.columns


def render_turn_run(run: LoadedRun) -> None:
    replicates = run.aggregates.replicates
    with st.sidebar:
        condition = st.selectbox(
            "Condition", list(run.aggregates.conditions["condition"]), key="condition"
        )
        mine = replicates[replicates["condition"] == condition]
        labels = {
            int(row["replicate"]): f"{int(row['replicate'])} · {int(row['n_turns'])} turns"
            for _, row in mine.iterrows()
        }
        replicate = st.selectbox(
            "Replicate",
            list(labels),
            format_func=lambda number: labels[number],
            key=f"replicate::{condition}",
        )
    row = mine[mine["replicate"] == replicate].iloc[0]
    names = {"a": f"A · {row['agent_a']}", "b": f"B · {row['agent_b']}"}
    game = (condition_config(run.manifest, condition) or {}).get("game") or {}
    transcript_tab, facts_tab = st.tabs(["Transcript", "Run facts"])
    with transcript_tab:
        if game.get("id") == "liars_dice":
            liars_dice.render(run.match(condition, replicate), names, game.get("options"))
        else:
            st.info(f"No transcript view for {game.get('id', 'this game')} yet.")
    with facts_tab:
        run_facts.render(run.manifest, run.ledger)
