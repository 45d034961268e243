"""The Conditions tab: every condition side by side. A table of the chosen metrics, a grid's
factor heat map, cooperation with its CI and over time.

Conditions are called by their varying factors (`pdbench.ui.grid.condition_labels`), so a
sweep's charts read `agent_b=tft, persona=exploitative` rather than its full override list.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd
import streamlit as st

from pdbench.analysis.metrics.catalog import MetricColumn
from pdbench.analysis.per_run.aggregates import Aggregates
from pdbench.storage.ledger import LedgerEntry
from pdbench.storage.manifest import RunManifest
from pdbench.ui import charts, condition_charts, condition_frames, grid
from pdbench.ui.condition_frames import COMPARED_METRICS, COOPERATION, PER_AGENT, ComparedMetric
from pdbench.ui.display import all_metrics, table_height

NONE = "(none)"
# The table's metric columns at first: a 1440 px window shows them without scrolling.
DEFAULT_TABLE_METRICS = [
    COOPERATION.header,
    "coop 95% CI",
    *(m.header for m in PER_AGENT if m.metric.metric.stem in ("cooperation_rate", "total_payoff")),
    condition_frames.COLLAPSE.header,
]
MORE_TABLE_COLUMNS = ["collapsed", "live calls", "cached calls", "cost $", "failed matches"]
MANY_CONDITIONS = 10  # above it, charts show one series and the chosen conditions only


def render(
    aggregates: Aggregates,
    manifest: RunManifest,
    ledger: Sequence[LedgerEntry],
    selected: str,
) -> None:
    conditions = aggregates.conditions
    factors = grid.factor_table(conditions, manifest)
    varying = grid.varying_factors(factors)
    labels = grid.condition_labels(conditions, manifest)
    st.subheader("All conditions", anchor=False)
    st.caption(
        "Means over each condition's replicates. Rates are undefined (empty) where their "
        "denominator is zero; the collapse round is the mean over the replicates that collapsed."
    )
    # Widget keys hold the run id: another run starts from its own defaults (a grid's are not
    # a four-condition run's).
    run_id = manifest.run_id
    _table(conditions, manifest, ledger, factors, varying, run_id)
    if varying:
        _heatmap(conditions, factors, varying, run_id)
    _cooperation_charts(aggregates, labels, selected, run_id)


def _table(
    conditions: pd.DataFrame,
    manifest: RunManifest,
    ledger: Sequence[LedgerEntry],
    factors: pd.DataFrame,
    varying: list[str],
    run_id: str,
) -> None:
    table = condition_frames.comparison_table(conditions, manifest, ledger)
    for key in reversed(varying):
        table.insert(1, key, list(factors[key]))
    options = [
        *(m.header for m in COMPARED_METRICS),
        "coop 95% CI",
        *MORE_TABLE_COLUMNS,
        "matchup",
        "game",
        "horizon",
    ]
    chosen = st.multiselect(
        "Metrics in the table",
        options,
        default=DEFAULT_TABLE_METRICS,
        key=f"table_metrics::{run_id}",
        help="The table shows these columns; every condition's full row is in aggregates.parquet.",
    )
    # Without factors the condition's name says it all (its matchup is one pick away in
    # "Metrics in the table"): a 1440 px window then holds the default columns without scrolling.
    names = varying or ["condition"]
    # The one table of the viewer that may scroll sideways: it holds every metric chosen above,
    # beside the pinned condition (a 1024 px window shows the first few).
    st.container(key="scrolling_comparison_table").dataframe(
        condition_frames.comparison_text(table),
        hide_index=True,
        width="stretch",
        height=table_height(len(table)),
        key="comparison_table",
        column_order=[*names, "replicates", *(c for c in chosen if c not in names)],
        column_config={
            # a long override list is cut here (whole in the sidebar and on hover)
            "condition": st.column_config.TextColumn("condition", pinned=True, width="medium"),
            **{key: st.column_config.TextColumn(key, pinned=True) for key in varying},
            **{compared.header: _number_column(compared) for compared in COMPARED_METRICS},
            COOPERATION.header: st.column_config.ProgressColumn(
                COOPERATION.header,
                min_value=0.0,
                max_value=1.0,
                format=f"%.{COOPERATION.metric.decimals}f",
                color=charts.C_COLOR,
                help=COOPERATION.metric.help,
            ),
            **{
                name: st.column_config.TextColumn(name, alignment="right")
                for name in ("live calls", "cached calls", "cost $")
            },
            # wide enough for the whole interval ("0.42–0.58", "60.0–64.5"), never cut to "60.0–6…"
            "coop 95% CI": st.column_config.TextColumn("coop 95% CI", width=104),
        },
    )


def _heatmap(
    conditions: pd.DataFrame, factors: pd.DataFrame, varying: list[str], run_id: str
) -> None:
    st.markdown("##### Factor heat map")
    metrics = [m for m in all_metrics() if m.column in conditions.columns]
    by_levels = sorted(varying, key=lambda key: -factors[key].nunique())
    pick_metric, pick_rows, pick_columns, pick_facets = st.columns(4)
    chosen: MetricColumn = pick_metric.selectbox(
        "Metric",
        metrics,
        index=metrics.index(COOPERATION.metric),
        format_func=lambda m: m.label,
        key=f"heatmap_metric::{run_id}",
    )
    rows = pick_rows.selectbox(
        "Rows", varying, index=varying.index(by_levels[0]), key=f"heatmap_rows::{run_id}"
    )
    column_options = [NONE, *(k for k in varying if k != rows)]
    columns = pick_columns.selectbox(
        "Columns",
        column_options,
        index=min(1, len(column_options) - 1),
        key=f"heatmap_columns::{run_id}",
    )
    facet_options = [NONE, *(k for k in varying if k not in (rows, columns))]
    facets = pick_facets.selectbox(
        "Panels",
        facet_options,
        index=min(1, len(facet_options) - 1),
        key=f"heatmap_facets::{run_id}",
    )
    column_key = None if columns == NONE else columns
    facet_key = None if facets == NONE else facets
    cells = grid.heatmap_frame(conditions, factors, chosen.column, rows, column_key, facet_key)
    defined = cells["value"].dropna()
    low, high = (
        (0.0, 1.0) if chosen.kind == "rate" or defined.empty else (defined.min(), defined.max())
    )
    domain = (float(low), float(high) if high > low else float(low) + 1.0)  # one value: a range
    st.altair_chart(
        charts.factor_heatmap(
            cells,
            chosen.label,
            domain,
            chosen.decimals,
            (rows, column_key, facet_key),
            (
                grid.levels(factors, rows),
                grid.levels(factors, column_key) or [""],
                grid.levels(factors, facet_key),
            ),
        ),
        key="factor_heatmap",
    )
    averaged = int(cells["n_conditions"].max()) if not cells.empty else 1
    note = (
        f" A cell averages up to {averaged} conditions that differ in the factors not shown "
        "(hover for which)."
        if averaged > 1
        else ""
    )
    st.caption(f"{chosen.label}: the condition mean; grey n/a: undefined.{note} {chosen.help}")


def _cooperation_charts(
    aggregates: Aggregates, labels: dict[str, str], selected: str, run_id: str
) -> None:
    conditions = aggregates.conditions
    ci = condition_frames.cooperation_ci_frame(conditions)
    many = len(conditions) > MANY_CONDITIONS
    series = list(condition_frames.CI_SERIES.values())
    shown_series = st.multiselect(
        "Cooperation of",
        series,
        default=series[:1] if many else series,
        key=f"ci_series::{run_id}",
    )
    sort_by_mean = st.toggle("Sort by mean cooperation", value=many, key=f"ci_sorted::{run_id}")
    order = list(conditions["condition"])
    if sort_by_mean:
        both = ci[ci["series"] == series[0]].sort_values("mean", ascending=False)
        order = list(both["condition"])
    points = condition_frames.replicate_points_frame(aggregates.replicates)
    # one above the other, each the tab's full width: side by side, a 1024 px window left each
    # chart a strip too thin to read
    with st.container():
        st.markdown("##### Cooperation rate, mean and 95% CI")
        st.altair_chart(
            condition_charts.ci_chart(
                _relabelled(ci, labels),
                _relabelled(points, labels),
                [labels[name] for name in order],
                shown_series or series[:1],
            ),
            width="stretch",
        )
        st.caption(
            "Dots: the condition mean; bars: its 95% CI (Student t, none when n < 2); "
            "faint dots: the replicates."
        )
    with st.container():
        st.markdown("##### Cooperation over time (condition means)")
        drawn = order
        if many:
            drawn = st.multiselect(
                "Conditions drawn",
                order,
                default=list(dict.fromkeys([selected, *order[:5]])),
                format_func=lambda name: labels[name],
                key=f"over_time_conditions::{run_id}",
            )
        over_time = condition_frames.over_time_frame(conditions)
        over_time = _relabelled(over_time[over_time["condition"].isin(drawn)], labels)
        st.altair_chart(
            condition_charts.over_time_chart(
                over_time, [labels[name] for name in drawn], labels.get(selected, selected)
            ),
            width="stretch",
        )
        st.caption(
            "Share of C among both agents' actions in each round, averaged over the replicates "
            "that reached the round (hover for how many did). The condition chosen in the "
            "sidebar is drawn strongest. Lines are drawn up to 0.03 apart (each its own dash and "
            "marker) so that equal shares stay visible; hover for the exact value."
        )


def _relabelled(frame: pd.DataFrame, labels: dict[str, str]) -> pd.DataFrame:
    """The frame with each condition called by its label."""
    return frame.assign(condition=frame["condition"].map(labels))


def _number_column(compared: ComparedMetric) -> Any:
    """The catalogue's decimals and definition; a count summed over both agents says so."""
    column = compared.metric
    help_text = "per match, A + B" if compared.summed else column.help
    # Text (condition_frames.comparison_text): the grid would print an undefined number as "None".
    return st.column_config.TextColumn(compared.header, help=help_text, alignment="right")
