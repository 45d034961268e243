"""The Match tab: one replicate's metrics beside its condition's, its actions and its payoffs."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd
import streamlit as st

from pdbench.analysis.metrics.catalog import MetricColumn
from pdbench.storage.ledger import LedgerEntry
from pdbench.ui import charts, frames
from pdbench.ui.display import (
    AGENT_METRICS,
    JOINT_METRICS,
    RELIABILITY_METRICS,
    TALK_METRICS,
    condition_summary,
    format_value,
    is_missing,
)
from pdbench.ui.fact_table import facts_html
from pdbench.ui.facts import (
    action_words,
    flagged_rounds,
    ledger_entry,
    match_facts,
    payoff_reference,
)
from pdbench.ui.tally import Tally


def render(
    condition: str,
    replicate: int,
    replicate_row: pd.Series,
    condition_row: pd.Series,
    rounds: list[dict],
    names: Mapping[str, str],
    config: Mapping[str, Any] | None,
    ledger: Sequence[LedgerEntry],
    counted: Tally,
) -> None:
    st.subheader(f"{condition} · replicate {replicate}", anchor=False)
    st.caption(
        f"{names['a']} vs {names['b']} · {len(rounds)} rounds · each value is this replicate's; "
        f"below it the mean over the condition's {int(condition_row['n_replicates'])} "
        "replicates and its 95% CI"
    )
    _headline_metrics(replicate_row, condition_row, names, counted)
    if not rounds:
        st.warning(
            "No round of this match was stored: it ended before its first round was played "
            "(the reason is below)."
        )
        _match_record(condition, replicate, rounds, names, ledger)
        return

    st.markdown("##### Actions per round")
    words = action_words(config)
    timeline = frames.timeline_frame(rounds, names, words)
    st.altair_chart(charts.timeline_chart(timeline, words), width="stretch")
    st.code(frames.action_text(rounds, names, words=words), language=None)
    if timeline["flipped"].any():
        st.caption(
            f"Noise flipped {int(timeline['flipped'].sum())} moves (dashed outline, '~'): the "
            "action shown is the one played and scored; hover a cell for the one intended."
        )

    talk = frames.conversation_frame(rounds, names)
    if len(talk):
        _conversation(talk, rounds, names)

    # one above the other: side by side, a 1024 px window cut the payoff legend and left the
    # match's facts a column one digit wide
    st.markdown("##### Cumulative payoff")
    reference = payoff_reference(config)
    st.altair_chart(
        charts.payoff_chart(frames.payoff_frame(rounds, names, reference)), width="stretch"
    )
    st.markdown("##### This match")
    _match_record(condition, replicate, rounds, names, ledger)

    with st.expander("All metrics of this replicate beside the condition's mean, std and 95% CI"):
        st.dataframe(
            frames.metric_table(replicate_row, condition_row),
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


def _conversation(talk: pd.DataFrame, rounds: list[dict], names: Mapping[str, str]) -> None:
    """Each round's negotiation beside what the two agents then played."""
    st.markdown("##### Conversation per round")
    st.caption(
        "What each agent said before committing, in the order said, and what both then played. "
        "Marks: cut (longer than the limit), silent (an empty message), timeout, invalid (the "
        "answer was not a message), promise (holds a promise phrase)."
    )
    colors = {"a": charts.A_COLOR, "b": charts.B_COLOR}
    with st.container(height=min(600, 140 + 120 * len(rounds)), border=True):
        for round_index, said in talk.groupby("round", sort=True):
            first = said.iloc[0]
            played, talked = st.columns([1, 4], gap="medium")
            played.markdown(
                f"**Round {round_index}**  \n{html.escape(names['a'])}: "
                f"`{first['action_a']}`  \n{html.escape(names['b'])}: `{first['action_b']}`"
            )
            lines = []
            for message in said.itertuples():
                text = html.escape(str(message.text)) if message.text else "<i>(nothing)</i>"
                marks = (
                    f" <small>[{html.escape(str(message.marks))}]</small>" if message.marks else ""
                )
                lines.append(
                    f"<div><b style='color:{colors[str(message.side)]}'>"
                    f"{html.escape(str(message.speaker))}</b>: {text}{marks}</div>"
                )
            talked.markdown("".join(lines), unsafe_allow_html=True)


def _headline_metrics(
    replicate_row: pd.Series, condition_row: pd.Series, names: Mapping[str, str], counted: Tally
) -> None:
    """Cards in rows of five: both agents, A, B, and what went wrong if anything did."""
    substituted = {
        side
        for side in ("a", "b")
        if not is_missing(condition_row[f"substituted_share_{side}"])
        and float(condition_row[f"substituted_share_{side}"]) > 0
    }
    reliability = [
        m
        for m in RELIABILITY_METRICS
        # the cooperation of valid answers only matters where some actions were substituted
        if (m.metric.stem != "valid_cooperation_rate" or m.side in substituted)
        and not is_missing(condition_row[m.column])
        and float(condition_row[m.column]) > 0
    ]
    rows: list[tuple[str, list[MetricColumn], str]] = [
        ("Both agents", JOINT_METRICS, charts.BOTH_COLOR),
        (names["a"], AGENT_METRICS["a"], charts.A_COLOR),
        (names["b"], AGENT_METRICS["b"], charts.B_COLOR),
    ]
    talked = [m for m in TALK_METRICS if not is_missing(condition_row.get(m.column))]
    if talked:
        rows.append(("What they said", talked, charts.BOTH_COLOR))
    if reliability:
        rows.append(
            ("Invalid outputs, substituted actions, timeouts, errors", reliability, charts.D_COLOR)
        )
    with st.container(border=True):
        for title, metrics, color in rows:
            st.markdown(
                f"<div style='color:{color};font-weight:600;border-bottom:2px solid {color}33;"
                f"margin-bottom:0.2rem'>{html.escape(title)}</div>",
                unsafe_allow_html=True,
            )
            # cards as wide as their text, wrapping to the next line: a label or an interval
            # is never cut ("95% CI 60.0–6..."), whatever the window's width
            with st.container(horizontal=True, gap="small"):
                for metric in metrics:
                    delta, ci_text, count_text = condition_summary(metric, condition_row)
                    st.metric(
                        metric.label,
                        format_value(metric, replicate_row.get(metric.column)),
                        delta=delta,
                        delta_color="off",
                        delta_arrow="off",
                        delta_description=ci_text,
                        help=f"{metric.help}\n\n{count_text}",
                        width="content",
                    )
    if counted.clean:
        st.caption(
            ":material/verified: No invalid outputs, fallbacks, timeouts or errors in any "
            "match of this condition."
        )
    else:
        st.caption(f":material/error: In this condition: {counted.text()}.")


def _match_record(
    condition: str,
    replicate: int,
    rounds: list[dict],
    names: Mapping[str, str],
    ledger: Sequence[LedgerEntry],
) -> None:
    """The match's seeds, calls and cost from the ledger, and its flagged rounds."""
    entry = ledger_entry(ledger, condition, replicate)
    facts = match_facts(entry, len(rounds))
    st.markdown(facts_html(facts), unsafe_allow_html=True)
    if entry is not None and entry.error:
        st.error(f"Match error: {entry.error}")
    flagged = flagged_rounds(rounds, names)
    if flagged:
        st.warning(
            "Flagged rounds (see the Round inspector):\n\n" + "\n".join(f"- {f}" for f in flagged)
        )
