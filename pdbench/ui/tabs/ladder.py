"""The Ladder page: a ladder.parquet written by `pdbench ladder` (the viewer never computes it),
shown when the viewer is opened on the folder holding it (`uv run pdbench ui data/ladders/<hash>`).

Per game (named in the page's heading, with what it is ranked on: wins or payoff): the ratings
with their 95% intervals (a chart and a table; Elo ratings in whole points, payoff ratings in the
game's points to two decimals), ratings the data do not identify marked and explained,
OpenSkill beside them (on wins), wins/draws/losses; the groups of agents that never met; the
matches that were not counted.
"""

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

from pdbench.ladder.output import ratings
from pdbench.ui.charts import conditional
from pdbench.ui.display import is_missing


def shown_ratings(rows: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The ratings as the page shows them, in two tables narrow enough for a 1024 px window:
    rank, agent (marked * when the data do not identify its rating), rating, its 95% interval
    (Elo in whole points: an interval's spread is points, not thousandths; payoff to two
    decimals), wins/draws/losses and matches; then per agent OpenSkill (one decimal, on wins
    only), the runs it played in and its kind."""
    decimals = 0 if _unit(rows) == "Elo" else 2

    def shown(value: object) -> str:
        return "n/a" if is_missing(value) else f"{float(value):.{decimals}f}"  # type: ignore[arg-type]

    ratings = pd.DataFrame(
        {
            "rank": rows["rank"],
            "agent": [
                name if identified is True else f"{name} *"
                for name, identified in zip(rows["agent"], rows["identified"], strict=True)
            ],
            "rating": (
                rows["rating"].round(0).astype("Int64")
                if decimals == 0
                else rows["rating"].round(decimals)
            ),
            "95% CI": [
                f"{shown(low)} to {shown(high)}"
                for low, high in zip(rows["ci_low"], rows["ci_high"], strict=True)
            ],
            "W/D/L": [
                f"{w}/{d}/{lost}"
                for w, d, lost in zip(rows["wins"], rows["draws"], rows["losses"], strict=True)
            ],
            "matches": rows["matches"],
        }
    )
    openskill = pd.DataFrame(
        {
            "agent": rows["agent"],
            "OpenSkill mu": rows["openskill_mu"].round(1),
            "OpenSkill ordinal": rows["openskill_ordinal"].round(1),
            "runs": rows["runs"],
            "kind": rows["kind"],
        }
    )
    if rows["openskill_mu"].isna().all():  # a payoff ladder: OpenSkill rates wins only
        openskill = openskill.drop(columns=["OpenSkill mu", "OpenSkill ordinal"])
    return ratings, openskill


def _unit(rows: pd.DataFrame) -> str:
    """The unit of a game's ratings ("Elo" on wins, "payoff" on payoff)."""
    return str(rows["unit"].iloc[0]) if len(rows) else "Elo"


def rating_chart(rows: pd.DataFrame, game: str) -> alt.LayerChart:
    """Each agent's rating (point) and its interval (rule), best at the top, one row per agent
    tall enough to read, whole names."""
    order = list(rows["agent"])
    base = alt.Chart(rows).encode(
        y=alt.Y(
            "agent:N",
            sort=order,
            title=None,
            axis=alt.Axis(labelLimit=480, labelFontSize=13, ticks=False),
        )
    )
    interval = base.mark_rule(strokeWidth=2.5).encode(
        x=alt.X(
            "ci_low:Q",
            title=f"rating in {game} ({_unit(rows)}), 95% interval",
            scale=alt.Scale(zero=False, padding=20),
        ),
        x2=alt.X2("ci_high:Q"),
    )
    tooltip = [
        alt.Tooltip("agent"),
        alt.Tooltip("rating:Q", format=".0f"),
        alt.Tooltip("ci_low:Q", format=".0f", title="CI low"),
        alt.Tooltip("ci_high:Q", format=".0f", title="CI high"),
        alt.Tooltip("wins"),
        alt.Tooltip("draws"),
        alt.Tooltip("losses"),
        alt.Tooltip("flag:N", title="not identified"),
    ]
    # A rating the data do not identify is drawn hollow: the prior, not the matches, places it.
    point = base.mark_point(size=90).encode(
        x=alt.X("rating:Q"),
        tooltip=tooltip,
        fill=conditional(
            alt.FillValue, "datum.identified", alt.value("#1f77b4"), alt.value("white")
        ),
        stroke=alt.StrokeValue("#1f77b4"),
    )
    # Streamlit fits the whole chart (its axis and title included) into this height
    return (interval + point).properties(height=110 + 40 * len(order))


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
    ranked_on = str(rows["ranked_on"].iloc[0])
    st.subheader(f"Ratings in {game}", anchor=False)
    st.markdown(
        f"Ranked on **{ranked_on}**"
        + (
            " (who beat whom: win, draw or loss per match)"
            if ranked_on == "wins"
            else " (points earned per match, against what the opponents concede)"
        )
    )
    notes = table[(table["table"] == "note") & (table["game"] == game)]
    for note in notes["note"]:
        st.warning(note, icon=":material/link_off:")
    for group in sorted(rows["component"].unique()):
        part = rows[rows["component"] == group]
        if rows["component"].nunique() > 1:
            st.markdown(f"##### Group {group}")
        st.altair_chart(rating_chart(part, game), width="stretch")
        ratings_table, openskill_table = shown_ratings(part)
        st.dataframe(
            ratings_table,
            hide_index=True,
            width="stretch",
            key=f"ladder_ratings_{game}_{group}",
        )
        st.dataframe(
            openskill_table,
            hide_index=True,
            width="stretch",
            key=f"ladder_openskill_{game}_{group}",
        )
        flagged = part[part["identified"] != True]  # noqa: E712 (a nullable column)
        for agent, flag in zip(flagged["agent"], flagged["flag"], strict=True):
            st.markdown(f"\\* **{agent}**: {flag}")
    first = rows.iloc[0]
    model = (
        "Bradley-Terry with Davidson's draws, maximum likelihood with a weak prior, on the Elo "
        "scale (1500 = the group's mean). OpenSkill: Plackett-Luce after every match in stored "
        "order (ordinal = mu - 3 sigma)."
        if ranked_on == "wins"
        else "each match side's payoff as earned by the agent minus conceded by its opponent "
        "(least squares), in the game's points."
    )
    st.caption(
        f"Rating: {model} 95% interval: {first['interval']}. Ratings compare only within a "
        "group of agents that met; * marks a rating the data do not identify."
    )
    if len(skipped):
        with st.expander(f"{len(skipped)} stored matches not counted"):
            st.dataframe(
                skipped[["run_id", "condition", "replicate", "note"]],
                hide_index=True,
                width="stretch",
                key="ladder_skipped",
            )
