"""The Run facts tab: status, calls and cost, the command, the run's settings, one condition's
seeds and calls, the config snapshot. Laid out in one column and wrapped, so nothing is cut in a
1024 px window."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from pdbench.storage.ledger import LedgerEntry
from pdbench.storage.manifest import RunManifest
from pdbench.ui import frames
from pdbench.ui.display import table_height
from pdbench.ui.fact_table import facts_html
from pdbench.ui.facts import cost_text, run_command, run_facts


def render_nothing_finished(
    manifest: RunManifest, ledger: Sequence[LedgerEntry], *, turn_game: bool = False
) -> None:
    """A game's page of a run none of whose matches has finished: a note, and the run's facts."""
    st.warning("No match of this run has finished yet: there is nothing to show.")
    render(manifest, ledger, turn_game=turn_game)


def render(
    manifest: RunManifest,
    ledger: Sequence[LedgerEntry],
    *,
    condition: str | None = None,
    turn_game: bool = False,
) -> None:
    """`condition`: the one whose seeds and calls are shown first (default: the run's first)."""
    st.subheader("Run facts", anchor=False)
    calls = manifest.provider_calls
    matches = manifest.matches
    # cards as wide as their text, wrapping to the next line: nothing is cut at any width
    with st.container(horizontal=True, gap="small"):
        for label, value in (
            ("Status", manifest.status),
            ("Matches finished", f"{matches.completed or len(ledger)} / {matches.planned or '?'}"),
            ("Live calls", calls.live),
            ("Cached calls", calls.cached),
            ("Tokens in / out", f"{calls.input_tokens} / {calls.output_tokens}"),
        ):
            st.metric(label, value, border=True, width="content")
        st.metric(
            "Spent",
            cost_text(manifest.spend),
            delta=f"${calls.cost_usd_saved:.4f} saved by the cache",
            delta_color="off",
            delta_arrow="off",
            border=True,
            width="content",
        )
    if manifest.error:
        st.error(f"Run error: {manifest.error}")
    failed = matches.failed
    if failed:
        st.warning(f"{len(failed)} failed match(es):")
        st.json([f.model_dump() for f in failed], expanded=False)

    st.markdown("##### Command")
    command, note = run_command(manifest)
    if command is not None:
        st.code(command, language="bash", wrap_lines=True)
    if note:
        st.caption(f"The command: {note}.")
    st.markdown("##### Run")
    st.markdown(facts_html(run_facts(manifest, turn_game=turn_game)), unsafe_allow_html=True)

    st.markdown("##### Seeds and calls of each match")
    names = list(manifest.conditions) or list(dict.fromkeys(s.condition for s in manifest.seeds))
    if names:
        chosen = st.selectbox(
            "Condition",
            names,
            index=names.index(condition) if condition in names else 0,
            key=f"facts_condition::{manifest.run_id}",
        )
        seeds = frames.seeds_frame(manifest, ledger, chosen, turn_game=turn_game)
        st.dataframe(
            seeds,
            hide_index=True,
            width="stretch",
            height=table_height(len(seeds), limit=12),
            key="seeds_table",
        )
        counts = manifest.provider_calls_by_condition.get(chosen)
        if counts is not None:
            st.markdown(
                facts_html(
                    {
                        "provider calls (live / cached)": f"{counts.live} / {counts.cached}",
                        "tokens (in / out)": f"{counts.input_tokens} / {counts.output_tokens}",
                        "spent": cost_text(counts),
                    }
                ),
                unsafe_allow_html=True,
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
