"""The Metrics tab of a turn-game run: the game's measures (its page's `MEASURES`, the win rate
first) per player, as the mean over each condition's finished matches with a 95% interval
(`pdbench.ui.turn_metric_frames`): cards for the condition chosen in the sidebar, then every
condition side by side, in a chart and a table, as the 2x2 Conditions tab shows cooperation."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd
import streamlit as st

from pdbench.ui import charts, condition_charts
from pdbench.ui.display import is_missing, table_height
from pdbench.ui.game_views import Measure
from pdbench.ui.turn_metric_frames import interval_text, measure_table, value_text


def series_name(seat: str) -> str:
    """A player seat's series in the charts: "agent A", "agent B", "agent C", ..."""
    return f"agent {seat.upper()}"


def render(
    replicates: pd.DataFrame,
    measures: Sequence[Measure],
    condition: str,
    labels: Mapping[str, str],
    run_id: str,
) -> None:
    table = measure_table(replicates, measures)
    shown = [m for m in measures if table[table["stem"] == m.stem]["mean"].notna().any()]
    mine = replicates[replicates["condition"] == condition]
    finished = int((mine["match_status"] == "finished").sum())
    st.subheader(f"Metrics of {condition}", anchor=False)
    st.caption(
        f"Each value is the mean over the condition's {finished} finished matches (of "
        f"{len(mine)}); under it its 95% CI: Wilson for a share of matches (every value 0 or "
        "1), else Student t, kept inside the measure's range; none with fewer than two values."
    )
    if not shown:
        st.info("No measure of this game is defined in any finished match of this run.")
        return
    first = mine.iloc[0]
    # each (measure, seat) row of this condition, found once: a filter of the table per card
    # cost more than the rest of the tab
    rows = {
        (row["stem"], row["seat"]): row
        for _, row in table[table["condition"] == condition]
        .drop_duplicates(["stem", "seat"])
        .iterrows()
    }
    # the seats this condition seats: a pair's a and b, a group's a, b, c, ...
    seats = [s for s in dict.fromkeys(table["seat"]) if not is_missing(first.get(f"agent_{s}"))]
    for seat in seats:
        st.markdown(
            f"<div style='color:{charts.seat_color(seat)};"
            f"font-weight:600'>{seat.upper()} · {first[f'agent_{seat}']}</div>",
            unsafe_allow_html=True,
        )
        # cards as wide as their text, wrapping to the next line: nothing is cut at any width
        with st.container(horizontal=True, gap="small"):
            for measure in shown:
                row = rows[(measure.stem, seat)]
                st.metric(
                    measure.label,
                    value_text(row["mean"], measure),
                    delta=f"{int(row['n'])} matches",
                    delta_color="off",
                    delta_arrow="off",
                    delta_description=interval_text(row, measure),
                    help=measure.help,
                    border=True,
                    width="content",
                )
    _all_conditions(table, shown, labels, run_id)


def _all_conditions(
    table: pd.DataFrame, measures: Sequence[Measure], labels: Mapping[str, str], run_id: str
) -> None:
    st.markdown("##### Every condition")
    measure = st.selectbox(
        "Measure",
        list(measures),
        format_func=lambda m: m.label,
        key=f"turn_measure::{run_id}",
    )
    seats = list(dict.fromkeys(table["seat"]))
    chosen = table[table["stem"] == measure.stem].assign(
        condition=lambda frame: frame["condition"].map(lambda name: labels.get(name, name)),
        series=lambda frame: frame["seat"].map(series_name),
    )
    order = list(dict.fromkeys(chosen["condition"]))
    st.altair_chart(
        condition_charts.ci_chart(
            chosen,
            pd.DataFrame(columns=["condition", "series", "value", "replicate"]),
            order,
            [series_name(seat) for seat in seats],
            title=measure.label,
            domain=(0.0, 1.0) if measure.kind == "share" else None,
            colors={series_name(seat): charts.seat_color(seat) for seat in seats},
        ),
        width="stretch",
    )
    if len(seats) > 2:
        # a group: a row per condition and player (a pair's two columns per seat would scroll)
        table, columns = _long_table(chosen, order, measure), ["condition", "player"]
    else:
        table, columns = _wide_table(chosen, order, seats, measure), ["condition"]
    measured = [c for c in table.columns if c not in (*columns, "matches")]
    st.dataframe(
        table,
        hide_index=True,
        width="stretch",
        height=table_height(len(table)),
        key="turn_measure_table",
        column_order=[*columns, *measured, "matches"],
        # a long override list is cut here (whole in the chart and the sidebar, and on hover)
        column_config={"condition": st.column_config.TextColumn("condition", width="medium")},
    )
    st.caption(f"{measure.label}: {measure.help} Dots: the condition mean; bars: its 95% CI.")


def _wide_table(
    chosen: pd.DataFrame, order: list[str], seats: list[str], measure: Measure
) -> pd.DataFrame:
    """A pair's table: a row per condition, each seat's mean and 95% CI side by side."""
    rows = []
    for name in order:
        mine = {str(row["seat"]): row for _, row in chosen[chosen["condition"] == name].iterrows()}
        rows.append(
            {
                "condition": name,
                **{seat.upper(): value_text(mine[seat]["mean"], measure) for seat in seats},
                **{f"{seat.upper()} 95% CI": _interval(mine[seat], measure) for seat in seats},
                "matches": max(int(row["n"]) for row in mine.values()),
            }
        )
    columns = [f"{seat.upper()}{part}" for seat in seats for part in ("", " 95% CI")]
    return pd.DataFrame(rows, columns=["condition", *columns, "matches"])


def _long_table(chosen: pd.DataFrame, order: list[str], measure: Measure) -> pd.DataFrame:
    """A group's table: a row per condition and player seat, its mean, 95% CI and matches."""
    rows = [
        {
            "condition": name,
            "player": str(row["seat"]).upper(),
            measure.label: value_text(row["mean"], measure),
            "95% CI": _interval(row, measure),
            "matches": int(row["n"]),
        }
        for name in order
        for _, row in chosen[chosen["condition"] == name].iterrows()
    ]
    return pd.DataFrame(rows, columns=["condition", "player", measure.label, "95% CI", "matches"])


def _interval(row: pd.Series, measure: Measure) -> str:
    return interval_text(row, measure).removeprefix("95% CI ")
