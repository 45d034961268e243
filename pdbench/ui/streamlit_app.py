"""The read-only viewer of one pdbench run: `uv run pdbench ui data/runs/<run_id>`.

The sidebar picks a condition and a replicate. Four tabs:

- Match: headline metrics of the replicate beside the condition mean and its 95% CI, the actions
  of both agents round by round, and their cumulative payoffs;
- Conditions: every condition side by side, cooperation with CI error bars, cooperation over time;
- Round inspector: the prompts and raw answers of every attempt in one round, with invalid
  answers, fallbacks, timeouts and errors marked;
- Run facts: status, calls and cost, seeds, git commit and the config snapshot from the manifest.

The run dir comes from `--run-dir DIR` after `--` or from $PDBENCH_RUN_DIR. Nothing is written:
missing aggregates are computed in memory.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

import altair as alt
import orjson
import pandas as pd
import streamlit as st

from pdbench.analysis.run_aggregates import Aggregates
from pdbench.core.errors import PdbenchError
from pdbench.storage.reader import RunReader
from pdbench.ui import data

# Okabe-Ito colours: distinguishable with every common colour-vision deficiency.
C_COLOR = "#0072B2"  # cooperate: blue
D_COLOR = "#D55E00"  # defect: vermilion
A_COLOR = "#332288"  # agent A: indigo
B_COLOR = "#117733"  # agent B: green
BOTH_COLOR = "#555555"
REFERENCE_COLOR = "#AAAAAA"
STATUS_COLORS = {"complete": "green", "started": "orange", "stopped": "orange", "failed": "red"}


def main() -> None:
    st.set_page_config(page_title="pdbench viewer", page_icon=":material/grid_view:", layout="wide")
    run_dir = _sidebar_run_dir()
    if not run_dir:
        st.error(
            "No run dir given. Start the viewer with `uv run pdbench ui data/runs/<run_id>`, "
            "or type a run dir in the sidebar."
        )
        st.stop()
    try:
        reader = RunReader.open(run_dir)
        fingerprint = reader.fingerprint()
        key = str(reader.run_dir)
        manifest = data.load_manifest(key, fingerprint)
        aggregates = data.load_aggregates(key, fingerprint)
        ledger = data.load_ledger(key, fingerprint)
    except PdbenchError as error:
        st.error(f"Cannot open this run: {error}")
        st.stop()
    except Exception as error:  # a damaged file: say which, never show a traceback
        st.error(f"Cannot read the run dir {run_dir}: {type(error).__name__}: {error}")
        st.stop()

    _header(reader, manifest, aggregates)
    if aggregates.conditions.empty:
        st.warning("No match of this run has finished yet: there is nothing to show.")
        _run_facts(manifest, ledger)
        st.stop()

    condition, replicate = _sidebar_selection(aggregates, manifest)
    condition_row = aggregates.conditions.set_index("condition").loc[condition]
    replicates = aggregates.replicates
    replicate_row = replicates[
        (replicates["condition"] == condition) & (replicates["replicate"] == replicate)
    ].iloc[0]
    try:
        rounds = data.load_match(key, fingerprint, condition, int(replicate))
    except Exception as error:
        st.error(f"Cannot read the rounds of {condition} replicate {replicate}: {error}")
        st.stop()
    names = {"a": f"A · {replicate_row['agent_a']}", "b": f"B · {replicate_row['agent_b']}"}
    config = data.condition_config(manifest, condition)

    match_tab, conditions_tab, inspector_tab, facts_tab = st.tabs(
        ["Match", "Conditions", "Round inspector", "Run facts"]
    )
    with match_tab:
        _match(condition, replicate, replicate_row, condition_row, rounds, names, config, ledger)
    with conditions_tab:
        _conditions(aggregates, manifest, ledger, condition)
    with inspector_tab:
        _inspector(condition, replicate, rounds, names, manifest, config)
    with facts_tab:
        _run_facts(manifest, ledger)


# --- sidebar -----------------------------------------------------------------------------------


def _sidebar_run_dir() -> str:
    with st.sidebar:
        st.markdown("### :material/grid_view: pdbench viewer")
        value = st.text_input(
            "Run dir",
            value=data.default_run_dir() or "",
            key="run_dir",
            help="A folder under data/runs/, holding run_manifest.json (or a sweep's shards/).",
        )
    return value.strip()


def _sidebar_selection(aggregates: Aggregates, manifest: Mapping[str, Any]) -> tuple[str, int]:
    conditions = aggregates.conditions
    matchups = {
        row["condition"]: f"{row['agent_a']} vs {row['agent_b']}"
        for _, row in conditions.iterrows()
    }
    with st.sidebar:
        condition = st.selectbox(
            "Condition",
            list(conditions["condition"]),
            key="condition",
            help="Every condition of the run, in the experiment's order.",
        )
        st.caption(f"{matchups[condition]} · {_condition_caption(manifest, condition)}")
        replicates = aggregates.replicates
        mine = replicates[replicates["condition"] == condition]
        labels = {
            int(row["replicate"]): (
                f"{int(row['replicate'])} · {int(row['n_rounds'])} rounds · "
                f"coop {data.format_value(data.JOINT_METRICS[0], row['cooperation_rate'])}"
            )
            for _, row in mine.iterrows()
        }
        replicate = st.selectbox(
            "Replicate",
            list(labels),
            format_func=labels.get,
            key=f"replicate::{condition}",
            help="One match of this condition; its seeds are in Run facts.",
        )
        st.divider()
        st.caption(
            "Read-only: nothing is written into the run dir. Files are re-read when they "
            "change (press R to refresh)."
        )
    return condition, int(replicate)


def _condition_caption(manifest: Mapping[str, Any], condition: str) -> str:
    config = data.condition_config(manifest, condition)
    if not config:
        return ""
    game = (config.get("game") or {}).get("id", "?")
    return f"game {game} · {data.horizon_text(config)}"


# --- header ------------------------------------------------------------------------------------


def _header(reader: RunReader, manifest: Mapping[str, Any], aggregates: Aggregates) -> None:
    status = str(manifest.get("status") or "unknown")
    n_conditions = len(aggregates.conditions)
    kind = "sweep" if manifest.get("kind") == "sweep" else "experiment"
    st.title(f"Run {manifest.get('run_id') or reader.run_dir.name}", anchor=False)
    with st.container(horizontal=True, gap="small"):
        st.badge(status, color=STATUS_COLORS.get(status, "gray"), icon=_status_icon(status))
        st.badge(kind, color="blue")
        st.badge(f"{n_conditions} condition{'s' if n_conditions != 1 else ''}", color="gray")
        st.badge(f"{manifest.get('replicates', '?')} replicates", color="gray")
        st.badge(
            "aggregates.parquet" if aggregates.source == "file" else "aggregates in memory",
            color="gray" if aggregates.source == "file" else "violet",
        )
    calls = manifest.get("provider_calls") or {}
    st.caption(
        f"`{reader.run_dir}` · started {manifest.get('started_utc', '?')} · "
        f"git {data.short_commit(manifest)} · provider calls {calls.get('live', 0)} live / "
        f"{calls.get('cached', 0)} cached · cost ${float(calls.get('cost_usd') or 0):.4f}"
    )
    if aggregates.note:
        st.info(
            f"{aggregates.note[0].upper()}{aggregates.note[1:]} (nothing is written; "
            f"`uv run pdbench aggregate {reader.run_dir}` stores them).",
            icon=":material/info:",
        )
    if status != "complete":
        error = manifest.get("error")
        matches = manifest.get("matches") or {}
        st.warning(
            f"This run's status is **{status}**: {matches.get('completed', '?')} of "
            f"{matches.get('planned', '?')} matches finished"
            + (f". Last error: {error}" if error else ". It may still be running, or was stopped.")
        )


def _table_height(rows: int, limit: int = 30) -> int:
    """Pixels that show `rows` rows of an st.dataframe (up to `limit`) without scrolling."""
    return 35 * (min(rows, limit) + 1) + 3


def _status_icon(status: str) -> str:
    return {
        "complete": ":material/check_circle:",
        "failed": ":material/error:",
    }.get(status, ":material/pending:")


# --- match tab ---------------------------------------------------------------------------------


def _match(
    condition: str,
    replicate: int,
    replicate_row: pd.Series,
    condition_row: pd.Series,
    rounds: list[dict],
    names: Mapping[str, str],
    config: Mapping[str, Any] | None,
    ledger: Sequence[Mapping[str, Any]],
) -> None:
    st.subheader(f"{condition} · replicate {replicate}", anchor=False)
    st.caption(
        f"{names['a']} vs {names['b']} · {len(rounds)} rounds · each value is this replicate's; "
        f"below it the mean over the condition's {int(condition_row['n_replicates'])} "
        "replicates and its 95% CI"
    )
    _headline_metrics(replicate_row, condition_row, names)

    st.markdown("##### Actions per round")
    st.altair_chart(_timeline_chart(data.timeline_frame(rounds, names)), width="stretch")
    st.code(data.action_text(rounds, names), language=None)

    left, right = st.columns([3, 2], gap="large")
    with left:
        st.markdown("##### Cumulative payoff")
        reference = data.payoff_reference(config)
        st.altair_chart(
            _payoff_chart(data.payoff_frame(rounds, names, reference), names), width="stretch"
        )
    with right:
        st.markdown("##### This match")
        _match_record(condition, replicate, rounds, names, ledger)

    with st.expander("All metrics of this replicate beside the condition's mean, std and 95% CI"):
        st.dataframe(
            data.metric_table(replicate_row, condition_row),
            hide_index=True,
            column_config={
                "metric": st.column_config.TextColumn("metric"),
                "column": st.column_config.TextColumn("column in aggregates.parquet"),
                "replicate": st.column_config.NumberColumn("this replicate", format="%.4g"),
                "condition_mean": st.column_config.NumberColumn("condition mean", format="%.4g"),
                "ci_low": st.column_config.NumberColumn("95% CI low", format="%.4g"),
                "ci_high": st.column_config.NumberColumn("95% CI high", format="%.4g"),
                "std": st.column_config.NumberColumn("std", format="%.4g"),
                "n": st.column_config.NumberColumn("n (defined)", format="%d"),
            },
            key="metric_table",
        )


def _headline_metrics(
    replicate_row: pd.Series, condition_row: pd.Series, names: Mapping[str, str]
) -> None:
    reliability = [
        m
        for m in data.RELIABILITY_METRICS
        if not data.is_missing(condition_row[m.column]) and float(condition_row[m.column]) > 0
    ]
    rows = [
        ("Both agents", data.JOINT_METRICS, BOTH_COLOR),
        (names["a"], data.AGENT_METRICS["a"], A_COLOR),
        (names["b"], data.AGENT_METRICS["b"], B_COLOR),
    ]
    if reliability:
        rows.append(("Invalid outputs, fallbacks, timeouts, errors", reliability, D_COLOR))
    with st.container(border=True):
        for title, metrics, color in rows:
            st.markdown(
                f"<div style='color:{color};font-weight:600;border-bottom:2px solid {color}33;"
                f"margin-bottom:0.2rem'>{html.escape(title)}</div>",
                unsafe_allow_html=True,
            )
            columns = st.columns(5)
            for index, metric in enumerate(metrics):
                delta, ci_text, count_text = data.condition_summary(metric, condition_row)
                columns[index % 5].metric(
                    metric.label,
                    data.format_value(metric, replicate_row.get(metric.column)),
                    delta=delta,
                    delta_color="off",
                    delta_arrow="off",
                    delta_description=ci_text,
                    help=f"{metric.help}\n\n{count_text}",
                )
    if not reliability:
        st.caption(
            ":material/verified: No invalid outputs, fallbacks, timeouts or errors in any "
            "match of this condition."
        )


def _match_record(
    condition: str,
    replicate: int,
    rounds: list[dict],
    names: Mapping[str, str],
    ledger: Sequence[Mapping[str, Any]],
) -> None:
    entry = next(
        (e for e in ledger if e["condition"] == condition and int(e["replicate"]) == replicate),
        {},
    )
    seeds = entry.get("seeds") or {}
    calls = entry.get("calls") or {}
    facts = {
        "rounds played / planned": f"{entry.get('n_rounds', len(rounds))} / "
        f"{entry.get('planned_rounds', '?')}",
        "horizon seed": seeds.get("horizon"),
        "seed A": seeds.get("agent_a"),
        "seed B": seeds.get("agent_b"),
        "provider calls (live / cached)": f"{calls.get('live', 0)} / {calls.get('cached', 0)}",
        "tokens (in / out)": f"{calls.get('input_tokens', 0)} / {calls.get('output_tokens', 0)}",
        "cost $": f"{float(calls.get('cost_usd') or 0):.4f}",
        "finished (UTC)": entry.get("finished_utc"),
    }
    st.dataframe(
        pd.DataFrame({"fact": list(facts), "value": [str(v) for v in facts.values()]}),
        hide_index=True,
        width="stretch",
        height=_table_height(len(facts)),
    )
    if entry.get("error"):
        st.error(f"Match error: {entry['error']}")
    flagged = [
        f"round {r['round_index']}: {names[side]} {', '.join(data.round_flags(r, side))}"
        for r in rounds
        for side in data.SIDES
        if data.round_flags(r, side)
    ]
    if flagged:
        st.warning(
            "Flagged rounds (see the Round inspector):\n\n" + "\n".join(f"- {f}" for f in flagged)
        )


def _timeline_chart(frame: pd.DataFrame) -> alt.Chart:
    order = list(dict.fromkeys(frame["agent"]))
    n_rounds = int(frame["round"].max()) if not frame.empty else 0
    base = alt.Chart(frame).encode(
        x=alt.X(
            "round:O",
            title="Round",
            axis=alt.Axis(
                labelAngle=0,
                labelOverlap="greedy",
                ticks=False,
                domain=False,
                values=_round_ticks(n_rounds),
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
        alt.Tooltip("action:N"),
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
                labelExpr="datum.label == 'C' ? 'C  cooperate' : 'D  defect'",
            ),
        ),
        tooltip=tooltip,
    )
    flagged = (
        base.transform_filter("datum.flagged")
        .mark_rect(filled=False, stroke="#111111", strokeWidth=3, cornerRadius=3)
        .encode(tooltip=tooltip)
    )
    layers = [cells, flagged]
    if n_rounds <= 80:
        layers.append(
            base.mark_text(
                color="white", fontWeight="bold", fontSize=13 if n_rounds <= 40 else 9
            ).encode(text="label:N", tooltip=tooltip)
        )
    return alt.layer(*layers).properties(height=alt.Step(40))


def _round_ticks(n_rounds: int) -> list[int] | Any:
    """Every round up to 40; beyond, round 1 and every 10th (50th) so the labels stay legible."""
    if n_rounds <= 40:
        return alt.Undefined
    step = 10 if n_rounds <= 300 else 50
    return [1, *range(step, n_rounds + 1, step)]


def _payoff_chart(frame: pd.DataFrame, names: Mapping[str, str]) -> alt.Chart:
    series = list(dict.fromkeys(frame["series"]))
    colors = [A_COLOR, B_COLOR] + [REFERENCE_COLOR] * (len(series) - 2)
    dashes = [[1, 0], [6, 3]] + [[2, 3]] * (len(series) - 2)
    widths = [2.5, 2.5] + [1.2] * (len(series) - 2)
    n_rounds = int(frame["round"].max()) if not frame.empty else 1
    return (
        alt.Chart(frame)
        .mark_line(point=alt.OverlayMarkDef(size=22) if n_rounds <= 60 else False)
        .encode(
            x=alt.X("round:Q", title="Round", scale=alt.Scale(domain=[1, max(n_rounds, 2)])),
            y=alt.Y("cumulative payoff:Q", title="Cumulative payoff"),
            color=alt.Color(
                "series:N",
                scale=alt.Scale(domain=series, range=colors),
                legend=alt.Legend(title=None, orient="top", labelLimit=300, columns=2),
            ),
            strokeDash=alt.StrokeDash(
                "series:N", scale=alt.Scale(domain=series, range=dashes), legend=None
            ),
            strokeWidth=alt.StrokeWidth(
                "series:N", scale=alt.Scale(domain=series, range=widths), legend=None
            ),
            tooltip=["series:N", "round:Q", alt.Tooltip("cumulative payoff:Q", format=".1f")],
        )
        .properties(height=340)
    )


# --- conditions tab ----------------------------------------------------------------------------


def _conditions(
    aggregates: Aggregates,
    manifest: Mapping[str, Any],
    ledger: Sequence[Mapping[str, Any]],
    selected: str,
) -> None:
    conditions = aggregates.conditions
    st.subheader("All conditions", anchor=False)
    st.caption(
        "Means over each condition's replicates. Rates are undefined (empty) where their "
        "denominator is zero; the collapse round is the mean over the replicates that collapsed."
    )
    table = data.comparison_table(conditions, manifest, ledger)
    rate = st.column_config.NumberColumn(format="%.2f")
    payoff = st.column_config.NumberColumn(format="%.1f")
    st.dataframe(
        table,
        hide_index=True,
        width="stretch",
        key="comparison_table",
        column_config={
            "condition": st.column_config.TextColumn("condition", pinned=True),
            "cooperation": st.column_config.ProgressColumn(
                "cooperation", min_value=0.0, max_value=1.0, format="%.2f", color=C_COLOR
            ),
            "rounds": payoff,
            **{
                name: rate
                for name in table.columns
                if name.startswith(("cooperation ", "retaliation", "forgiveness"))
                and name != "coop 95% CI"
            },
            **{name: payoff for name in ("gap A", "gap B", "total A", "total B", "collapse round")},
            **{
                name: st.column_config.NumberColumn(name, format="%.2f", help="per match, A + B")
                for name in ("invalid outputs", "fallbacks", "timeouts", "errors")
            },
            "cost $": st.column_config.NumberColumn(format="%.4f"),
        },
    )
    order = list(conditions["condition"])
    left, right = st.columns(2, gap="large")
    with left:
        st.markdown("##### Cooperation rate, mean and 95% CI")
        st.altair_chart(
            _ci_chart(
                data.cooperation_ci_frame(conditions),
                data.replicate_points_frame(aggregates.replicates),
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
            _over_time_chart(data.over_time_frame(conditions), order, selected), width="stretch"
        )
        st.caption(
            "Share of C among both agents' actions in each round, averaged over the replicates "
            "that reached the round (hover for how many did). The condition chosen in the "
            "sidebar is drawn strongest."
        )


def _ci_chart(ci: pd.DataFrame, points: pd.DataFrame, order: list[str]) -> alt.LayerChart:
    series = list(data.CI_SERIES.values())
    series_scale = alt.Scale(domain=series, range=[BOTH_COLOR, A_COLOR, B_COLOR])
    y = alt.Y("condition:N", sort=order, title=None, axis=alt.Axis(labelLimit=260))
    y_offset = alt.YOffset("series:N", sort=series, scale=alt.Scale(paddingOuter=0.3))
    x_scale = alt.Scale(domain=[0, 1], clamp=True)
    color = alt.Color("series:N", scale=series_scale, legend=alt.Legend(title=None, orient="top"))
    tooltip = [
        "condition:N",
        "series:N",
        alt.Tooltip("mean:Q", format=".3f"),
        alt.Tooltip("ci_low:Q", format=".3f", title="95% CI low"),
        alt.Tooltip("ci_high:Q", format=".3f", title="95% CI high"),
        "n:Q",
    ]
    base = alt.Chart(ci).encode(y=y, yOffset=y_offset, color=color)
    bars = base.mark_rule(strokeWidth=2.5).encode(
        x=alt.X("ci_low:Q", scale=x_scale, title="Cooperation rate"),
        x2="ci_high:Q",
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
                "condition:N",
                "series:N",
                "replicate:Q",
                alt.Tooltip("value:Q", format=".3f"),
            ],
        )
    )
    height = max(160, 75 * len(order) + 40)
    # The means layer comes first so that the legend shows filled dots.
    return alt.layer(means, bars, replicates).properties(height=height)


def _over_time_chart(frame: pd.DataFrame, order: list[str], selected: str) -> alt.Chart:
    return (
        alt.Chart(frame)
        .mark_line(strokeWidth=2, point=alt.OverlayMarkDef(size=14))
        .encode(
            x=alt.X(
                "round:Q",
                title="Round",
                scale=alt.Scale(domain=[1, max(2, int(frame["round"].max() or 2))], nice=False),
            ),
            y=alt.Y("cooperation:Q", title="Share of C", scale=alt.Scale(domain=[0, 1])),
            color=alt.Color(
                "condition:N",
                sort=order,
                scale=alt.Scale(scheme="tableau10"),
                legend=alt.Legend(title=None, orient="top", labelLimit=300, columns=2),
            ),
            opacity=alt.condition(alt.datum.condition == selected, alt.value(1.0), alt.value(0.55)),
            tooltip=[
                "condition:N",
                "round:Q",
                alt.Tooltip("cooperation:Q", format=".3f"),
                alt.Tooltip("replicates:Q", title="replicates reaching the round"),
            ],
        )
        .properties(height=max(160, 75 * len(order) + 40))
    )


# --- round inspector ---------------------------------------------------------------------------


def _inspector(
    condition: str,
    replicate: int,
    rounds: list[dict],
    names: Mapping[str, str],
    manifest: Mapping[str, Any],
    config: Mapping[str, Any] | None,
) -> None:
    st.subheader(f"Round inspector · {condition} · replicate {replicate}", anchor=False)
    if not rounds:
        st.warning("No stored rounds for this match.")
        return
    indices = [int(r["round_index"]) for r in rounds]
    flagged = {
        int(r["round_index"])
        for r in rounds
        if any(data.round_flags(r, side) for side in data.SIDES)
    }
    index = st.select_slider(
        "Round",
        options=indices,
        format_func=lambda i: f"{i} ⚠" if i in flagged else str(i),
        key=f"round::{condition}::{replicate}",
    )
    if flagged:
        st.caption(
            ":material/warning: Rounds with invalid outputs, fallbacks, timeouts or errors: "
            + ", ".join(str(i) for i in sorted(flagged))
        )
    record = rounds[indices.index(index)]
    with st.container(horizontal=True, gap="medium"):
        for side in data.SIDES:
            action = record[f"agent_{side}_action"]
            st.metric(
                f"{names[side]} · round {index}",
                f"{action} · {'cooperate' if action == 'C' else 'defect'}",
                delta=f"payoff {record[f'agent_{side}_payoff']:g}, "
                f"total {record[f'agent_{side}_cum_payoff']:g}",
                delta_color="off",
                delta_arrow="off",
                border=True,
            )
    store_prompts = data.store_prompts_of(manifest, condition)
    columns = st.columns(2, gap="large")
    for column, side in zip(columns, data.SIDES, strict=True):
        with column:
            agent_type = ((config or {}).get(f"agent_{side}") or {}).get("type")
            _agent_round(record, side, names[side], agent_type, store_prompts)
    with st.expander("The stored round record (JSON)"):
        st.json(record, expanded=False)


def _agent_round(
    record: Mapping[str, Any],
    side: str,
    name: str,
    agent_type: str | None,
    store_prompts: bool | str | None,
) -> None:
    st.markdown(f"##### {name}")
    flags = data.round_flags(record, side)
    if flags:
        with st.container(horizontal=True, gap="small"):
            for flag in flags:
                color = "red" if "invalid" in flag or flag == "error" else "orange"
                st.badge(flag, color=color, icon=":material/warning:")
    error = record.get(f"agent_{side}_error")
    if error:
        st.error("Error recorded for this round:")
        st.code(str(error), language=None, wrap_lines=True)
    attempts = data.attempts_of(record, side)
    if not attempts:
        if agent_type == "policy":
            st.caption("A policy: it decides in Python, without prompts.")
        elif store_prompts is False:
            st.caption("Prompts and answers were not stored (run.store_prompts=false).")
        else:
            st.caption("No attempts were stored for this round.")
        return
    for attempt in attempts:
        _attempt(attempt, len(attempts))


def _attempt(attempt: Mapping[str, Any], total: int) -> None:
    valid = attempt.get("valid")
    with st.container(border=True):
        with st.container(horizontal=True, gap="small", vertical_alignment="center"):
            st.markdown(f"**Attempt {attempt.get('attempt', '?')} of {total}**")
            if valid is True:
                st.badge("valid", color="green", icon=":material/check:")
            elif valid is False:
                st.badge("invalid", color="red", icon=":material/close:")
        usage = _usage(attempt)
        if usage:
            st.caption(usage)
        if valid is False:
            reason = attempt.get("reason")
            st.markdown(
                f":red[**{attempt.get('error') or 'invalid answer'}**]"
                + (f" · {reason}" if reason else "")
            )
        shown = {"attempt", "valid", "error", "reason", "input_tokens", "output_tokens", "cost_usd"}
        if "system" in attempt:
            with st.expander("System prompt"):
                st.code(str(attempt["system"]), language=None, wrap_lines=True)
        for key, title in (("prompt", "Prompt"), ("raw", "Raw response"), ("response", "Response")):
            if key in attempt:
                st.markdown(f"**{title}**")
                value = attempt[key]
                text = value if isinstance(value, str) else orjson.dumps(value).decode()
                st.code(text if text != "" else "(empty)", language=None, wrap_lines=True)
        hashes = {k: v for k, v in attempt.items() if k.endswith("_sha256")}
        if hashes:
            st.caption("Stored as hashes (run.store_prompts=hash):")
            st.code("\n".join(f"{k}: {v}" for k, v in hashes.items()), language=None)
        shown |= {"system", "prompt", "raw", "response", *hashes}
        others = {k: v for k, v in attempt.items() if k not in shown}
        if others:
            st.caption(" · ".join(f"{k}: {v}" for k, v in others.items()))


def _usage(attempt: Mapping[str, Any]) -> str:
    parts = []
    if attempt.get("input_tokens") is not None:
        parts.append(f"{attempt['input_tokens']} input tokens")
    if attempt.get("output_tokens") is not None:
        parts.append(f"{attempt['output_tokens']} output tokens")
    if attempt.get("cost_usd") is not None:
        parts.append(f"${float(attempt['cost_usd']):.6f}")
    return " · ".join(parts)


# --- run facts ---------------------------------------------------------------------------------


def _run_facts(manifest: Mapping[str, Any], ledger: Sequence[Mapping[str, Any]]) -> None:
    st.subheader("Run facts", anchor=False)
    calls = manifest.get("provider_calls") or {}
    matches = manifest.get("matches") or {}
    with st.container(horizontal=True, gap="medium"):
        st.metric("Status", str(manifest.get("status", "unknown")), border=True)
        st.metric(
            "Matches finished",
            f"{matches.get('completed', len(ledger))} / {matches.get('planned', '?')}",
            border=True,
        )
        st.metric("Live calls", calls.get("live", 0), border=True)
        st.metric("Cached calls", calls.get("cached", 0), border=True)
        st.metric(
            "Tokens in / out",
            f"{calls.get('input_tokens', 0)} / {calls.get('output_tokens', 0)}",
            border=True,
        )
        st.metric(
            "Cost",
            f"${float(calls.get('cost_usd') or 0):.4f}",
            delta=f"${float(calls.get('cost_usd_saved') or 0):.4f} saved by the cache",
            delta_color="off",
            delta_arrow="off",
            border=True,
        )
    if manifest.get("error"):
        st.error(f"Run error: {manifest['error']}")
    failed = matches.get("failed") or []
    if failed:
        st.warning(f"{len(failed)} failed match(es):")
        st.json(failed, expanded=False)

    left, right = st.columns([1, 1], gap="large")
    with left:
        st.markdown("##### Run")
        git = manifest.get("git") or {}
        collapse = manifest.get("collapse") or {}
        facts = {
            "run id": manifest.get("run_id"),
            "kind": manifest.get("kind") or "experiment",
            "status": manifest.get("status"),
            "started (UTC)": manifest.get("started_utc"),
            "updated (UTC)": manifest.get("updated_utc"),
            "command": manifest.get("pdbench_command"),
            "config": manifest.get("config_source"),
            "config hash": manifest.get("config_hash"),
            "run seed": manifest.get("run_seed"),
            "replicates": manifest.get("replicates"),
            "collapse k / threshold": f"{collapse.get('k')} / {collapse.get('threshold')}",
            "git commit": git.get("commit"),
            "uncommitted changes": git.get("dirty"),
            "python": manifest.get("python_version"),
            "platform": manifest.get("platform"),
        }
        st.dataframe(
            pd.DataFrame(
                {
                    "fact": list(facts),
                    "value": ["" if v is None else str(v) for v in facts.values()],
                }
            ),
            hide_index=True,
            width="stretch",
            height=_table_height(len(facts)),
            key="run_facts_table",
        )
    with right:
        st.markdown("##### Seeds of every match")
        seeds = pd.DataFrame(manifest.get("seeds") or [])
        if not seeds.empty:
            for column in ("horizon", "agent_a", "agent_b"):
                if column in seeds:
                    seeds[column] = seeds[column].astype(str)  # 64-bit seeds: keep every digit
            first = [c for c in ("condition", "replicate", "n_rounds") if c in seeds]
            seeds = seeds[first + [c for c in seeds.columns if c not in first]]
        st.dataframe(
            seeds,
            hide_index=True,
            width="stretch",
            height=_table_height(len(seeds), limit=12),
            key="seeds_table",
        )
        by_condition = manifest.get("provider_calls_by_condition") or {}
        if by_condition:
            st.markdown("##### Provider calls by condition")
            st.dataframe(
                pd.DataFrame.from_dict(by_condition, orient="index").rename_axis("condition"),
                width="stretch",
            )
    with st.expander("Config snapshot (resolved)"):
        st.json(manifest.get("config") or {}, expanded=2)
    with st.expander("Overrides and package versions"):
        st.json(
            {
                "overrides": manifest.get("overrides"),
                "hydra_overrides": manifest.get("hydra_overrides"),
                "packages": manifest.get("packages"),
            },
            expanded=True,
        )


main()
