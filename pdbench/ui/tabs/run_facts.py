"""The Run facts tab: status, calls and cost, seeds, git commit and the config snapshot."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import streamlit as st

from pdbench.storage.ledger import LedgerEntry
from pdbench.storage.manifest import RunManifest
from pdbench.ui import frames
from pdbench.ui.display import table_height
from pdbench.ui.facts import cost_text, run_facts


def render(manifest: RunManifest, ledger: Sequence[LedgerEntry]) -> None:
    st.subheader("Run facts", anchor=False)
    calls = manifest.provider_calls
    matches = manifest.matches
    with st.container(horizontal=True, gap="medium"):
        st.metric("Status", manifest.status, border=True)
        st.metric(
            "Matches finished",
            f"{matches.completed or len(ledger)} / {matches.planned or '?'}",
            border=True,
        )
        st.metric("Live calls", calls.live, border=True)
        st.metric("Cached calls", calls.cached, border=True)
        st.metric("Tokens in / out", f"{calls.input_tokens} / {calls.output_tokens}", border=True)
        st.metric(
            "Spent",
            cost_text(manifest.spend),
            delta=f"${calls.cost_usd_saved:.4f} saved by the cache",
            delta_color="off",
            delta_arrow="off",
            border=True,
        )
    if manifest.error:
        st.error(f"Run error: {manifest.error}")
    failed = matches.failed
    if failed:
        st.warning(f"{len(failed)} failed match(es):")
        st.json([f.model_dump() for f in failed], expanded=False)

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
        by_condition = {
            name: counts.to_json() for name, counts in manifest.provider_calls_by_condition.items()
        }
        if by_condition:
            st.markdown("##### Provider calls by condition")
            st.dataframe(
                pd.DataFrame.from_dict(by_condition, orient="index").rename_axis("condition"),
                width="stretch",
            )
    with st.expander("Config snapshot (resolved)"):
        st.json(manifest.config, expanded=2)
    with st.expander("Overrides and package versions"):
        st.json(
            {
                "overrides": manifest.overrides,
                "hydra_overrides": manifest.hydra_overrides,
                "packages": manifest.packages,
            },
            expanded=True,
        )
