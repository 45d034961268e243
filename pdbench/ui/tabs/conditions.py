"""The Conditions tab: every condition side by side, cooperation with its CI, and over time."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import streamlit as st

from pdbench.analysis.run_aggregates import Aggregates
from pdbench.storage.manifest import RunManifest
from pdbench.storage.schema import LedgerEntry
from pdbench.ui import charts, frames
from pdbench.ui.frames import COMPARED_METRICS, COOPERATION, ComparedMetric


def render(
    aggregates: Aggregates,
    manifest: RunManifest,
    ledger: Sequence[LedgerEntry],
    selected: str,
) -> None:
    conditions = aggregates.conditions
    st.subheader("All conditions", anchor=False)
    st.caption(
        "Means over each condition's replicates. Rates are undefined (empty) where their "
        "denominator is zero; the collapse round is the mean over the replicates that collapsed."
    )
    st.dataframe(
        frames.comparison_table(conditions, manifest, ledger),
        hide_index=True,
        width="stretch",
        key="comparison_table",
        column_config={
            "condition": st.column_config.TextColumn("condition", pinned=True),
            **{compared.header: _number_column(compared) for compared in COMPARED_METRICS},
            COOPERATION.header: st.column_config.ProgressColumn(
                COOPERATION.header,
                min_value=0.0,
                max_value=1.0,
                format=f"%.{COOPERATION.metric.decimals}f",
                color=charts.C_COLOR,
                help=COOPERATION.metric.help,
            ),
            "cost $": st.column_config.NumberColumn(format="%.4f"),
        },
    )
    order = list(conditions["condition"])
    left, right = st.columns(2, gap="large")
    with left:
        st.markdown("##### Cooperation rate, mean and 95% CI")
        st.altair_chart(
            charts.ci_chart(
                frames.cooperation_ci_frame(conditions),
                frames.replicate_points_frame(aggregates.replicates),
                order,
            ),
            width="stretch",
        )
        st.caption(
            "Dots: the condition mean; bars: its 95% CI (Student t, none when n < 2); "
            "faint dots: the replicates."
        )
    with right:
        st.markdown("##### Cooperation over time (condition means)")
        st.altair_chart(
            charts.over_time_chart(frames.over_time_frame(conditions), order, selected),
            width="stretch",
        )
        st.caption(
            "Share of C among both agents' actions in each round, averaged over the replicates "
            "that reached the round (hover for how many did). The condition chosen in the "
            "sidebar is drawn strongest."
        )


def _number_column(compared: ComparedMetric) -> Any:
    """The catalogue's decimals and definition; a count summed over both agents says so."""
    column = compared.metric
    help_text = "per match, A + B" if compared.summed else column.help
    return st.column_config.NumberColumn(
        compared.header, format=f"%.{column.decimals}f", help=help_text
    )
