"""The charts that set conditions side by side (the Conditions tab's, and a turn game's
Metrics tab's): a measure's mean and 95% CI per condition, and cooperation over time, one line
per condition. Altair, from the frames of `pdbench.ui.condition_frames`; colours as in
`pdbench.ui.charts`.
"""

from __future__ import annotations

from collections.abc import Mapping

import altair as alt
import pandas as pd

from pdbench.ui.charts import A_COLOR, B_COLOR, BOTH_COLOR, conditional, last_round
from pdbench.ui.condition_frames import CI_SERIES

LONG_LABEL = 40  # characters: a longer condition label is written one comma-separated part a line


def ci_chart(
    ci: pd.DataFrame,
    points: pd.DataFrame,
    order: list[str],
    series: list[str] | None = None,
    title: str = "Cooperation rate",
    domain: tuple[float, float] | None = (0.0, 1.0),
    colors: Mapping[str, str] | None = None,
) -> alt.LayerChart | alt.FacetChart:
    """Per condition (one row each, in `order`), the mean of each of `series` (default: both
    agents, A and B; the cooperation rate unless `title` names another measure) with its 95% CI
    bar, and every replicate as a faint dot, on the x range `domain` (None: from the data, with
    0), coloured by `colors` (series -> colour; both agents, A and B their own by default).
    The chart grows with the number of conditions and series, so 30+ rows stay legible."""
    series = series or list(CI_SERIES.values())
    ci = ci[ci["series"].isin(series)]
    points = points[points["series"].isin(series)]
    known = dict(zip(CI_SERIES.values(), [BOTH_COLOR, A_COLOR, B_COLOR], strict=True))
    colors = {**known, **dict(colors or {})}
    series_scale = alt.Scale(domain=series, range=[colors.get(name, BOTH_COLOR) for name in series])
    # a long condition name (a Hydra run's override list) is written one override a line, not
    # cut at the label's limit; a short one (a grid's "persona=x, agent_b=y") stays one line
    y = alt.Y(
        "condition:N",
        sort=order,
        title=None,
        axis=alt.Axis(
            labelLimit=320,
            labelExpr=f"length(datum.label) > {LONG_LABEL} ? split(datum.label, ',') : datum.label",
        ),
    )
    y_offset = alt.YOffset("series:N", sort=series, scale=alt.Scale(paddingOuter=0.3))
    x_scale = alt.Scale(domain=list(domain), clamp=True) if domain else alt.Scale(zero=True)
    # a group's ten seats: two legend rows of five, not one row cut at the chart's edge
    legend = alt.Legend(title=None, orient="top", columns=5)
    color = alt.Color("series:N", scale=series_scale, legend=legend)
    tooltip = [
        alt.Tooltip("condition:N"),
        alt.Tooltip("series:N"),
        alt.Tooltip("mean:Q", format=".3f"),
        alt.Tooltip("ci_low:Q", format=".3f", title="95% CI low"),
        alt.Tooltip("ci_high:Q", format=".3f", title="95% CI high"),
        alt.Tooltip("n:Q"),
    ]
    base = alt.Chart(ci).encode(y=y, yOffset=y_offset, color=color)
    bars = base.mark_rule(strokeWidth=2.5).encode(
        x=alt.X("ci_low:Q", scale=x_scale, title=title),
        x2=alt.X2("ci_high:Q"),
        tooltip=tooltip,
    )
    means = base.mark_point(filled=True, size=80, opacity=1).encode(
        x=alt.X("mean:Q", scale=x_scale), tooltip=tooltip
    )
    replicates = (
        alt.Chart(points)
        .mark_point(size=28, opacity=0.35, filled=False)
        .encode(
            x=alt.X("value:Q", scale=x_scale),
            y=y,
            yOffset=y_offset,
            color=alt.Color("series:N", scale=series_scale, legend=None),
            tooltip=[
                alt.Tooltip("condition:N"),
                alt.Tooltip("series:N"),
                alt.Tooltip("replicate:Q"),
                alt.Tooltip("value:Q", format=".3f"),
            ],
        )
    )
    # Streamlit fits the whole chart (legend and axis included, ~100 px) into this height
    lines = max((name.count(",") + 1 for name in order if len(name) > LONG_LABEL), default=1)
    row = max(26 * len(series) + 14, 14 * lines + 10)  # the series, or the label's lines
    height = 110 + row * len(order)
    # The means layer comes first so that the legend shows filled dots.
    return alt.layer(means, bars, replicates).properties(height=height)


DASHES = [[1, 0], [6, 3], [2, 2], [8, 3, 2, 3], [1, 3], [10, 4]]
SHAPES = ["circle", "square", "triangle-up", "diamond", "cross", "triangle-down"]


def line_offsets(order: list[str], spread: float = 0.03) -> dict[str, float]:
    """A small vertical offset per line, evenly spaced within +/- `spread` (at most 0.01 apart):
    lines at the same value (every condition at 1.0) are drawn side by side, not on top of
    each other."""
    k = len(order)
    if k < 2:
        return {name: 0.0 for name in order}
    step = min(0.01, 2 * spread / (k - 1))
    return {name: (index - (k - 1) / 2) * step for index, name in enumerate(order)}


def over_time_chart(frame: pd.DataFrame, order: list[str], selected: str) -> alt.Chart:
    """One line per condition: the mean share of C per round; `selected` is drawn strongest.
    Each line has its own dash and point shape and a small vertical offset (`line_offsets`),
    so lines at the same value stay visible; the tooltip gives the exact share."""
    offsets = line_offsets(order)
    drawn = frame.assign(drawn=frame["cooperation"] + frame["condition"].map(offsets).fillna(0.0))
    dashes = [DASHES[i % len(DASHES)] for i in range(len(order))]
    shapes = [SHAPES[i % len(SHAPES)] for i in range(len(order))]
    legend = alt.Legend(title=None, orient="top", labelLimit=400, columns=1, symbolStrokeWidth=2)
    margin = max(abs(value) for value in offsets.values()) if offsets else 0.0
    return (
        alt.Chart(drawn)
        .mark_line(strokeWidth=2, point=alt.OverlayMarkDef(size=40, filled=True))
        .encode(
            x=alt.X(
                "round:Q",
                title="Round",
                scale=alt.Scale(domain=[1, max(2, last_round(frame, 2))], nice=False),
            ),
            y=alt.Y(
                "drawn:Q",
                title="Share of C",
                scale=alt.Scale(domain=[-margin - 0.02, 1 + margin + 0.02], nice=False),
                axis=alt.Axis(values=[0, 0.2, 0.4, 0.6, 0.8, 1.0], format=".1f"),
            ),
            # one column: two of a sweep's long labels side by side overflow half a 1440 px
            # window and were cut at its edge
            color=alt.Color(
                "condition:N", sort=order, scale=alt.Scale(scheme="tableau10"), legend=legend
            ),
            strokeDash=alt.StrokeDash(
                "condition:N",
                sort=order,
                scale=alt.Scale(domain=order, range=dashes),
                legend=legend,
            ),
            shape=alt.Shape(
                "condition:N",
                sort=order,
                scale=alt.Scale(domain=order, range=shapes),
                legend=legend,
            ),
            opacity=conditional(
                alt.OpacityValue, alt.datum.condition == selected, alt.value(1.0), alt.value(0.55)
            ),
            tooltip=[
                alt.Tooltip("condition:N"),
                alt.Tooltip("round:Q"),
                alt.Tooltip("cooperation:Q", format=".3f", title="share of C"),
                alt.Tooltip("replicates:Q", title="replicates reaching the round"),
            ],
        )
        # Streamlit fits the whole chart into this height: the plot, and a legend line each
        .properties(height=320 + 20 * len(order))
    )
