"""Odds and evens' page in pdbench's viewer (the entry's `view`; the shape is
`pdbench.ui.game_views`): the measures its Metrics tab shows, and a match as a table of rounds,
each with the fingers both players showed, their sum and who took the round."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from pdbench.ui.game_views import MatchView, Measure

MEASURES = (
    Measure("win_rate", "Win rate", "share", "Share of matches the player won."),
    Measure(
        "two_fingers_share",
        "Two fingers",
        "share",
        "Share of rounds the player showed two fingers.",
    ),
)


def render_transcript(match: MatchView) -> None:
    st.subheader("Odds and evens", anchor=False)
    rows = []
    for turn in match.turns:
        shown = {seat: action.get("fingers") for seat, action in turn.get("actions", {}).items()}
        if set(shown) != {"a", "b"}:
            continue
        total = shown["a"] + shown["b"]
        rows.append(
            {
                "round": turn["round"],
                match.names.get("a", "a"): shown["a"],
                match.names.get("b", "b"): shown["b"],
                "sum": total,
                "round to": match.names.get("a" if total % 2 else "b", ""),
            }
        )
    if not rows:
        st.info("No round of this match is stored yet.")
        return
    st.caption("An odd sum takes the round for seat a, an even one for seat b.")
    st.dataframe(pd.DataFrame(rows), hide_index=True)
