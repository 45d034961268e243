"""The Tournament tab: payoff matrix, ranking and population dynamics, from tournament.parquet
(written by `pdbench tournament`; the viewer never computes it)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from pdbench.analysis.metrics.catalog import RANKING_COLUMNS
from pdbench.ui import analysis_frames as frames
from pdbench.ui import charts


def render(tournament: pd.DataFrame) -> None:
    st.subheader("Tournament", anchor=False)
    payoffs, order = frames.payoff_frame(tournament)
    left, right = st.columns([1, 1], gap="large")
    with left:
        st.markdown("##### Payoff matrix")
        st.altair_chart(charts.payoff_heatmap(payoffs, order), width="stretch")
        st.caption(
            "The row player's mean payoff per round against the column player, over every "
            "match of the pair (hover for the 95% CI); the diagonal is self-play."
        )
    with right:
        st.markdown("##### Ranking")
        st.dataframe(
            frames.ranking_frame(tournament),
            hide_index=True,
            width="stretch",
            key="tournament_ranking",
            column_config={
                label: st.column_config.NumberColumn(
                    label, help=help, format="%.1f" if column == "median_wins" else "%.3f"
                )
                for column, (label, help) in RANKING_COLUMNS.items()
            },
        )
        st.caption(
            "Score: mean payoff per round (Axelrod's normalised score), ranked by its median "
            "over replicates; self-play left out unless asked for."
        )
    population = frames.population_frame(tournament)
    notes = frames.part(tournament, "note")
    for note in notes.get("note", pd.Series(dtype=str)):
        st.warning(note)
    if population.empty:
        return
    st.markdown("##### Population shares over generations")
    kinds = list(dict.fromkeys(population["dynamics"]))
    kind = st.radio("Dynamics", kinds, horizontal=True, key="tournament_dynamics")
    st.altair_chart(
        charts.population_chart(population[population["dynamics"] == kind], order),
        width="stretch",
    )
    moran = frames.moran_frame(tournament)
    if not moran.empty:
        st.markdown("##### Moran fixation: one mutant among N − 1 residents")
        st.dataframe(moran, hide_index=True, width="stretch", key="tournament_moran")
