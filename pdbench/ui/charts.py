"""The viewer's charts, built with Altair from the frames in `pdbench.ui.frames`.

Colours are Okabe-Ito, distinguishable with every common colour-vision deficiency; actions are
also written as letters, so nothing depends on colour alone.
"""

from __future__ import annotations

from typing import Any

import altair as alt
import pandas as pd

from pdbench.core.seats import seat_index

C_COLOR = "#0072B2"  # cooperate: blue
D_COLOR = "#D55E00"  # defect: vermilion
A_COLOR = "#332288"  # agent A: indigo
B_COLOR = "#117733"  # agent B: green
# a group's further seats C, D, ... (Paul Tol's muted scheme, after A and B: told apart in
# colour-blind vision too)
SEAT_COLORS = (
    A_COLOR,
    B_COLOR,
    "#88CCEE",
    "#CC6677",
    "#DDCC77",
    "#AA4499",
    "#44AA99",
    "#999933",
    "#882255",
    "#661100",
)
BOTH_COLOR = "#555555"
REFERENCE_COLOR = "#AAAAAA"


def timeline_chart(
    frame: pd.DataFrame, words: dict[str, str] | None = None
) -> alt.LayerChart | alt.FacetChart:
    """One cell per round and agent, coloured by the action played and lettered while it fits;
    flagged rounds get a dark outline (and a '!' after the letter), moves flipped by noise a
    dashed one (and a '~')."""
    order = list(dict.fromkeys(frame["agent"]))
    n_rounds = last_round(frame, 0)
    words = words or {"C": "C", "D": "D"}
    if words == {"C": "C", "D": "D"}:
        legend = "datum.label == 'C' ? 'C  cooperate' : 'D  defect'"
    else:  # the game's own words (split / steal); stored as C / D
        legend = f"datum.label == 'C' ? {words['C']!r} : {words['D']!r}"
    base = alt.Chart(frame).encode(
        x=alt.X(
            "round:O",
            title="Round",
            axis=alt.Axis(
                labelAngle=0,
                labelOverlap="greedy",
                ticks=False,
                domain=False,
                values=round_ticks(n_rounds),
            ),
        ),
        y=alt.Y(
            "agent:N",
            title=None,
            sort=order,
            axis=alt.Axis(labelLimit=260, ticks=False, labelFontSize=12, labelFontWeight="bold"),
        ),
    )
    tooltip = [
        alt.Tooltip("round:O", title="round"),
        alt.Tooltip("agent:N"),
        alt.Tooltip("played:N", title="action played"),
        alt.Tooltip("intended:N", title="action intended"),
        alt.Tooltip("payoff:Q"),
        alt.Tooltip("cumulative:Q", title="cumulative payoff"),
        alt.Tooltip("flags:N"),
    ]
    thin = n_rounds > 60  # narrow cells: a thick white border would hide the colour
    cells = base.mark_rect(
        stroke="white", strokeWidth=0.5 if thin else 2, cornerRadius=0 if thin else 3
    ).encode(
        color=alt.Color(
            "action:N",
            scale=alt.Scale(domain=["C", "D"], range=[C_COLOR, D_COLOR]),
            legend=alt.Legend(
                title=None,
                orient="top",
                labelExpr=legend,
            ),
        ),
        tooltip=tooltip,
    )
    flagged = (
        base.transform_filter("datum.flagged")
        .mark_rect(filled=False, stroke="#111111", strokeWidth=3, cornerRadius=3)
        .encode(tooltip=tooltip)
    )
    # A move the trembling hand flipped (noise): a dashed outline.
    trembled = (
        base.transform_filter("datum.flipped")
        .mark_rect(filled=False, stroke="#111111", strokeWidth=2, strokeDash=[3, 2], cornerRadius=3)
        .encode(tooltip=tooltip)
    )
    layers = [cells, flagged, trembled]
    if n_rounds <= 80:
        layers.append(
            base.mark_text(
                color="white", fontWeight="bold", fontSize=13 if n_rounds <= 40 else 9
            ).encode(text=alt.Text("label:N"), tooltip=tooltip)
        )
    return alt.layer(*layers).properties(height=alt.Step(40))


def seat_color(seat: str) -> str:
    """The colour of player seat "a", "b", "c", ... (A's and B's as everywhere)."""
    return SEAT_COLORS[seat_index(seat) % len(SEAT_COLORS)]


def last_round(frame: pd.DataFrame, default: int) -> int:
    """The frame's highest round, or `default` when it has none (a match aborted in round 1, a
    condition none of whose matches stored a round)."""
    highest = pd.to_numeric(frame["round"], errors="coerce").max() if "round" in frame else None
    return default if highest is None or pd.isna(highest) else int(highest)


def round_ticks(n_rounds: int) -> list[int] | Any:
    """Every round up to 40; beyond, round 1 and every 10th (50th) so the labels stay legible."""
    if n_rounds <= 40:
        return alt.Undefined
    step = 10 if n_rounds <= 300 else 50
    return [1, *range(step, n_rounds + 1, step)]


def conditional(channel: type[alt.SchemaBase], predicate: Any, if_true: Any, if_false: Any) -> Any:
    """`alt.condition(...)` as the channel's own object (`alt.ColorValue`, `alt.OpacityValue`, ...),
    the same spec: given the plain dict `alt.condition` returns, Altair finds the channel's class
    by hashing the schema of every class it has, milliseconds per channel on every script run."""
    return channel(**alt.condition(predicate, if_true, if_false))


def payoff_chart(frame: pd.DataFrame) -> alt.Chart:
    """Both agents' cumulative payoffs, with the all-C and all-D lines thin and grey."""
    series = list(dict.fromkeys(frame["series"]))
    colors = [A_COLOR, B_COLOR] + [REFERENCE_COLOR] * (len(series) - 2)
    dashes = [[1, 0], [6, 3]] + [[2, 3]] * (len(series) - 2)
    widths = [2.5, 2.5] + [1.2] * (len(series) - 2)
    n_rounds = last_round(frame, 1)
    return (
        alt.Chart(frame)
        .mark_line(point=alt.OverlayMarkDef(size=22) if n_rounds <= 60 else False)
        .encode(
            x=alt.X("round:Q", title="Round", scale=alt.Scale(domain=[1, max(n_rounds, 2)])),
            y=alt.Y("cumulative payoff:Q", title="Cumulative payoff"),
            color=alt.Color(
                "series:N",
                scale=alt.Scale(domain=series, range=colors),
                legend=alt.Legend(title=None, orient="top", labelLimit=240, columns=2),
            ),
            strokeDash=alt.StrokeDash(
                "series:N", scale=alt.Scale(domain=series, range=dashes), legend=None
            ),
            strokeWidth=alt.StrokeWidth(
                "series:N", scale=alt.Scale(domain=series, range=widths), legend=None
            ),
            tooltip=[
                alt.Tooltip("series:N"),
                alt.Tooltip("round:Q"),
                alt.Tooltip("cumulative payoff:Q", format=".1f"),
            ],
        )
        .properties(height=340)
    )


def fingerprint_chart(frame: pd.DataFrame) -> alt.LayerChart | alt.FacetChart:
    """P(C) after each outcome of the last round (and in round 1), one bar per agent, with the
    Wilson interval as a rule; an outcome that never happened has no bar."""
    agents = list(dict.fromkeys(frame["agent"]))
    outcomes = list(dict.fromkeys(frame["outcome"]))
    colors = [A_COLOR, B_COLOR] if len(agents) <= 2 else alt.Undefined
    x = alt.X("outcome:N", sort=outcomes, title=None, axis=alt.Axis(labelAngle=0))
    x_offset = alt.XOffset("agent:N", sort=agents)
    y_scale = alt.Scale(domain=[0, 1])
    color = alt.Color(
        "agent:N",
        sort=agents,
        scale=alt.Scale(domain=agents, range=colors) if len(agents) <= 2 else alt.Scale(),
        legend=alt.Legend(title=None, orient="top", labelLimit=400, columns=2),
    )
    tooltip = [
        alt.Tooltip("agent:N"),
        alt.Tooltip("outcome:N"),
        alt.Tooltip("p_c:Q", format=".3f", title="P(C)"),
        alt.Tooltip("ci_low:Q", format=".3f", title="95% CI low"),
        alt.Tooltip("ci_high:Q", format=".3f", title="95% CI high"),
        alt.Tooltip("occasions:Q", title="occasions"),
    ]
    base = alt.Chart(frame).encode(x=x, xOffset=x_offset, color=color)
    bars = base.mark_bar().encode(y=alt.Y("p_c:Q", scale=y_scale, title="P(C)"), tooltip=tooltip)
    rules = base.mark_rule(strokeWidth=2, color=BOTH_COLOR).encode(
        y=alt.Y("ci_low:Q"), y2=alt.Y2("ci_high:Q"), tooltip=tooltip
    )
    return alt.layer(bars, rules).properties(height=280)


def payoff_heatmap(frame: pd.DataFrame, order: list[str]) -> alt.LayerChart | alt.FacetChart:
    """The row player's mean payoff per round against the column player, written in each cell."""
    base = alt.Chart(frame).encode(
        x=alt.X("opponent:N", sort=order, title="against", axis=alt.Axis(labelAngle=0)),
        y=alt.Y("player:N", sort=order, title="player"),
    )
    tooltip = [
        alt.Tooltip("player:N"),
        alt.Tooltip("opponent:N"),
        alt.Tooltip("mean_payoff:Q", format=".3f", title="mean payoff per round"),
        alt.Tooltip("ci_low:Q", format=".3f", title="95% CI low"),
        alt.Tooltip("ci_high:Q", format=".3f", title="95% CI high"),
        alt.Tooltip("n_matches:Q", title="matches"),
    ]
    cells = base.mark_rect(stroke="white", strokeWidth=2).encode(
        color=alt.Color("mean_payoff:Q", scale=alt.Scale(scheme="viridis"), title="payoff / round"),
        tooltip=tooltip,
    )
    text = base.mark_text(fontSize=13, fontWeight="bold").encode(
        text=alt.Text("mean_payoff:Q", format=".2f"),
        # dark text on the light (high) end of viridis, white on the dark end
        color=conditional(
            alt.ColorValue, alt.datum.mean_payoff > 3.5, alt.value("black"), alt.value("white")
        ),
        tooltip=tooltip,
    )
    side = max(220, 56 * len(order))
    return alt.layer(cells, text).properties(height=side)


def population_chart(frame: pd.DataFrame, order: list[str]) -> alt.Chart:
    """Each type's share of the population over generations."""
    return (
        alt.Chart(frame)
        .mark_line(strokeWidth=2.5)
        .encode(
            x=alt.X("generation:Q", title="Generation"),
            y=alt.Y("share:Q", title="Share of the population", scale=alt.Scale(domain=[0, 1])),
            color=alt.Color(
                "player:N",
                sort=order,
                scale=alt.Scale(scheme="tableau10"),
                legend=alt.Legend(title=None, orient="top", columns=6),
            ),
            tooltip=[
                alt.Tooltip("player:N"),
                alt.Tooltip("generation:Q"),
                alt.Tooltip("share:Q", format=".3f"),
            ],
        )
        .properties(height=320)
    )


def factor_heatmap(
    frame: pd.DataFrame,
    title: str,
    domain: tuple[float, float],
    decimals: int,
    axes: tuple[str, str | None, str | None],
    orders: tuple[list[str], list[str], list[str]],
) -> alt.LayerChart | alt.FacetChart:
    """A metric over two factors (`frame` from `pdbench.ui.grid.heatmap_frame`): rows and
    columns are the first two of `axes`, the third (if any) makes one panel per level. Each
    cell is coloured and written; undefined cells are grey and read "n/a"."""
    row_key, column_key, facet_key = axes
    row_order, column_order, facet_order = orders
    low, high = domain
    base = alt.Chart().encode(
        x=alt.X(
            "column:N",
            sort=column_order,
            title=column_key,
            axis=alt.Axis(labelAngle=0, orient="top", labelLimit=160, labelFontSize=12),
        ),
        y=alt.Y("row:N", sort=row_order, title=row_key, axis=alt.Axis(labelFontSize=12)),
    )
    tooltip = [
        alt.Tooltip("row:N", title=row_key),
        *([alt.Tooltip("column:N", title=column_key)] if column_key else []),
        *([alt.Tooltip("facet:N", title=facet_key)] if facet_key else []),
        alt.Tooltip("value:Q", format=f".{decimals}f", title=title),
        alt.Tooltip("n_conditions:Q", title="conditions averaged"),
        alt.Tooltip("conditions:N"),
    ]
    cells = base.mark_rect(stroke="white", strokeWidth=2).encode(
        color=conditional(
            alt.ColorValue,
            "isValid(datum.value)",
            alt.Color(
                "value:Q",
                scale=alt.Scale(scheme="viridis", domain=[low, high]),
                title=title,
                legend=alt.Legend(orient="right", gradientLength=160),
            ),
            alt.value("#DDDDDD"),
        ),
        tooltip=tooltip,
    )
    middle = (low + high) / 2
    text = base.mark_text(fontSize=13, fontWeight="bold").encode(
        text=alt.Text("label:N"),
        # dark text on the light (high) end of viridis, white on the dark end
        color=conditional(
            alt.ColorValue,
            f"!isValid(datum.value) || datum.value > {middle}",
            alt.value("black"),
            alt.value("white"),
        ),
        tooltip=tooltip,
    )
    layered = (
        alt.layer(cells, text, data=frame)
        .transform_calculate(
            label=f"isValid(datum.value) ? format(datum.value, '.{decimals}f') : 'n/a'"
        )
        .properties(width=max(120, 78 * len(column_order)), height=max(60, 38 * len(row_order)))
    )
    if facet_key is None:
        return layered
    return layered.facet(
        facet=alt.Facet("facet:N", sort=facet_order, title=facet_key), columns=3
    ).resolve_scale(color="shared")
