"""The Run facts tab: status, calls and cost, seeds, git commit and the config snapshot."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd
import streamlit as st

from pdbench.ui import frames
from pdbench.ui.display import table_height
from pdbench.ui.facts import run_facts


def render(manifest: Mapping[str, Any], ledger: Sequence[Mapping[str, Any]]) -> None:
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
        facts = run_facts(manifest)
        st.dataframe(
            frames.facts_frame(facts),
            hide_index=True,
            width="stretch",
            height=table_height(len(facts)),
            key="run_facts_table",
        )
    with right:
        st.markdown("##### Seeds of every match")
        seeds = frames.seeds_frame(manifest)
        st.dataframe(
            seeds,
            hide_index=True,
            width="stretch",
            height=table_height(len(seeds), limit=12),
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
