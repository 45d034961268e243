"""The Ladder page: a ladder.parquet written by `pdbench ladder` (the viewer never computes it),
shown when the viewer is opened on the folder holding it (`uv run pdbench ui data/ladders/<hash>`).

Per game: the ratings with their bootstrap intervals (a chart and a table), OpenSkill beside
them, wins/draws/losses; the groups of agents that never met; the matches that were not counted.
"""

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

from pdbench.ladder.output import ratings

TABLE_COLUMNS = {
    "rank": "rank",
    "agent": "agent",
    "rating": "rating",
    "ci_low": "CI low",
    "ci_high": "CI high",
    "openskill_mu": "OpenSkill mu",
    "openskill_ordinal": "OpenSkill ordinal",
    "wins": "wins",
    "draws": "draws",
    "losses": "losses",
    "matches": "matches",
    "runs": "runs",
    "kind": "kind",
}


def rating_chart(rows: pd.DataFrame) -> alt.LayerChart:
    """Each agent's rating (point) and its interval (rule), best at the top."""
    order = list(rows["agent"])
    base = alt.Chart(rows).encode(y=alt.Y("agent:N", sort=order, title=None))
    interval = base.mark_rule().encode(
        x=alt.X("ci_low:Q", title="rating (Elo scale)", scale=alt.Scale(zero=False)),
        x2="ci_high:Q",
    )
    point = base.mark_point(filled=True, size=60).encode(
        x="rating:Q",
        tooltip=["agent", "rating", "ci_low", "ci_high", "wins", "draws", "losses"],
    )
    return interval + point


def render(table: pd.DataFrame, where: str) -> None:
    st.title("Ladder", anchor=False)
    rated = ratings(table)
    skipped = table[table["table"] == "skipped"]
    st.caption(
        f"`{where}` · {rated['agent_key'].nunique()} agents over {rated['game'].nunique()} "
        f"game(s) · {len(skipped)} stored matches not counted"
    )
    if rated.empty:
        st.warning("This ladder rates no agent.")
        return
    games = list(dict.fromkeys(rated["game"]))
    game = st.selectbox("Game", games, key="ladder_game") if len(games) > 1 else games[0]
    rows = rated[rated["game"] == game]
    notes = table[(table["table"] == "note") & (table["game"] == game)]
    for note in notes["note"]:
        st.warning(note, icon=":material/link_off:")
    for group in sorted(rows["component"].unique()):
        part = rows[rows["component"] == group]
        if rows["component"].nunique() > 1:
            st.markdown(f"##### Group {group}")
        st.altair_chart(rating_chart(part), width="stretch")
        st.dataframe(
            part[list(TABLE_COLUMNS)].rename(columns=TABLE_COLUMNS),
            hide_index=True,
            width="stretch",
            key=f"ladder_ratings_{game}_{group}",
        )
    first = rows.iloc[0]
    st.caption(
        "Rating: Bradley-Terry with Davidson's draws, maximum likelihood with a weak prior, on "
        f"the Elo scale (1500 = the group's mean); CI: percentile bootstrap over matches "
        f"({first['bootstrap']} draws, seed {first['seed']}). OpenSkill: Plackett-Luce after "
        "every match in stored order (ordinal = mu - 3 sigma). Ratings compare only within a "
        "group of agents that met."
    )
    if len(skipped):
        with st.expander(f"{len(skipped)} stored matches not counted"):
            st.dataframe(
                skipped[["run_id", "condition", "replicate", "note"]],
                hide_index=True,
                width="stretch",
                key="ladder_skipped",
            )
