"""The Round inspector tab: one round's actions, and every attempt's prompt and raw answer."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import orjson
import streamlit as st

from pdbench.analysis.metrics.catalog import SIDES
from pdbench.core.seats import stored_seat_agents
from pdbench.storage.manifest import RunManifest
from pdbench.ui.facts import action_words, attempts_of, round_flags, store_prompts_of, usage_text


def render(
    condition: str,
    replicate: int,
    rounds: list[dict],
    names: Mapping[str, str],
    manifest: RunManifest,
    config: Mapping[str, Any] | None,
) -> None:
    st.subheader(f"Round inspector · {condition} · replicate {replicate}", anchor=False)
    if not rounds:
        st.warning("No stored rounds for this match.")
        return
    indices = [int(r["round_index"]) for r in rounds]
    flagged = {int(r["round_index"]) for r in rounds if any(round_flags(r, side) for side in SIDES)}
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
    words = action_words(config)
    with st.container(horizontal=True, gap="medium"):
        for side in SIDES:
            action = record[f"agent_{side}_action"]
            st.metric(
                f"{names[side]} · round {index}",
                _action_shown(action, words),
                delta=f"payoff {record[f'agent_{side}_payoff']:g}, "
                f"total {record[f'agent_{side}_cum_payoff']:g}",
                delta_color="off",
                delta_arrow="off",
                border=True,
            )
    store_prompts = store_prompts_of(manifest, condition)
    columns = st.columns(2, gap="large")
    for column, side in zip(columns, SIDES, strict=True):
        with column:
            # An agent's stored config names a provider exactly when it asks a model.
            asks_model = "provider" in (stored_seat_agents(config or {}).get(f"agent_{side}") or {})
            _agent_round(record, side, names[side], asks_model, store_prompts)
    with st.expander("The stored round record (JSON)"):
        st.json(record, expanded=False)


def _action_shown(action: str, words: Mapping[str, str]) -> str:
    """'C · cooperate', or the game's word beside the stored letter: 'split (C)'."""
    if words.get(action, action) == action:
        return f"{action} · {'cooperate' if action == 'C' else 'defect'}"
    return f"{words[action]} ({action})"


def _agent_round(
    record: Mapping[str, Any],
    side: str,
    name: str,
    asks_model: bool,
    store_prompts: bool | str | None,
) -> None:
    st.markdown(f"##### {name}")
    flags = round_flags(record, side)
    if flags:
        with st.container(horizontal=True, gap="small"):
            for flag in flags:
                color: Literal["red", "orange"] = (
                    "red" if "invalid" in flag or flag == "error" else "orange"
                )
                st.badge(flag, color=color, icon=":material/warning:")
    error = record.get(f"agent_{side}_error")
    if error:
        st.error("Error recorded for this round:")
        st.code(str(error), language=None, wrap_lines=True)
    attempts = attempts_of(record, side)
    if not attempts:
        if not asks_model:
            st.caption("This agent asks no model: it decides without prompts.")
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
        usage = usage_text(attempt)
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
