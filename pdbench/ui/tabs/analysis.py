"""The Analysis tab: which strategy each agent plays, and how conditions compare, from
analysis.parquet (written by `pdbench analyze`; the viewer never computes it)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from pdbench.analysis.per_run.analysis_files import DEFAULT_NAME
from pdbench.ui import analysis_frames as frames
from pdbench.ui import charts
from pdbench.ui.loaders import LoadedRun


def render(run: LoadedRun, selected: str) -> None:
    st.subheader("Which strategy does each agent play?", anchor=False)
    run_dir = run.reader.run_dir
    names = run.analyses()
    name = names[0] if names else None
    if len(names) > 1:
        name = st.selectbox(
            "Analysis",
            names,
            key=f"analysis_name::{run.key}",
            format_func=lambda n: (
                "analysis.parquet (default options)"
                if n == DEFAULT_NAME
                else f"analysis-{n}.parquet"
            ),
            help="Each `pdbench analyze` with other --factor, --reference or --metric (or a "
            "--name) keeps its own file; pick the one to show.",
        )
    analysis = run.analysis(name)
    if analysis is None:
        st.info(
            "No analysis.parquet in this run yet: run "
            f"`uv run pdbench analyze {run_dir}` and this tab shows the agents' fingerprints, "
            "strategy estimates (SFEM), behavioural profiles and the comparisons between "
            "conditions. The viewer reads it; it never computes it.",
            icon=":material/info:",
        )
        return
    scopes = frames.analysis_scopes(analysis)
    scope = st.selectbox(
        "Agents of",
        scopes,
        index=scopes.index(selected) if selected in scopes else 0,
        key=f"analysis_scope::{selected}",  # follows the condition chosen in the sidebar
        help="A condition's two agents, or (in a tournament) each player over all its matches.",
    )
    st.markdown("##### Memory-one fingerprint")
    fingerprint = frames.fingerprint_frame(analysis, scope)
    st.altair_chart(charts.fingerprint_chart(fingerprint), width="stretch")
    st.caption(
        "P(C) after each outcome of the previous round (own move first: CD = the agent "
        "cooperated, its opponent defected) and in round 1, with 95% Wilson intervals. "
        "TFT is (1, 0, 1, 0), WSLS (1, 0, 0, 1); a missing bar never happened."
    )
    st.markdown("##### Behavioural profile")
    profile = frames.profile_table(analysis)
    st.dataframe(
        _readable(profile[profile["agent"].isin(fingerprint["agent"])]),
        hide_index=True,
        width="stretch",
        key="profile_scope",
    )
    st.caption(
        "Niceness, forgiveness, retaliation, troublemaking and emulation (Fontana et al. 2025), "
        "averaged over the matches where each is defined (– where it never is); definitions in "
        "docs/analyze.md."
    )
    st.markdown("##### Strategy estimates (SFEM) for every agent")
    sfem = frames.sfem_table(analysis)
    strategies = [c for c in sfem.columns if c not in ("agent", "nearest", "tremble")]
    st.dataframe(
        sfem,
        hide_index=True,
        width="stretch",
        key="sfem_table",
        column_config={
            "tremble": st.column_config.NumberColumn(format="%.3f"),
            **{
                name: st.column_config.ProgressColumn(
                    name, min_value=0.0, max_value=1.0, format="%.2f", color=charts.C_COLOR
                )
                for name in strategies
            },
        },
    )
    st.caption(
        "Mixture weights of the candidate strategies with one common tremble (maximum "
        "likelihood); nearest: the single candidate that fits best, a=b when the data cannot "
        "tell them apart. Bootstrap standard errors are in analysis.parquet."
    )
    st.markdown("##### Fingerprints of every agent")
    st.dataframe(
        _readable(frames.fingerprint_table(analysis)),
        hide_index=True,
        width="stretch",
        key="fingerprints",
    )
    st.markdown("##### Comparison between conditions")
    comparisons = frames.comparison_frame(analysis)
    if comparisons.empty:
        st.caption("Nothing to compare: the run has one condition.")
    else:
        st.dataframe(
            comparisons,
            hide_index=True,
            width="stretch",
            key="analysis_comparisons",
            column_config={
                name: st.column_config.NumberColumn(format="%.3f")
                for name in ("mean A", "mean B", "B − A", "CI low", "CI high")
            }
            | {name: st.column_config.NumberColumn(format="%.4f") for name in ("p", "p (Holm)")},
        )
        st.caption(frames.comparison_caption(analysis))


def _readable(table: pd.DataFrame) -> pd.DataFrame:
    """Rates with two decimals and "–" where undefined (never a misleading 0 or "None")."""
    shown = table.copy()
    for column in shown.columns:
        if column not in ("agent", "matches") and pd.api.types.is_float_dtype(shown[column]):
            shown[column] = shown[column].map(lambda v: "–" if pd.isna(v) else f"{v:.2f}")
    return shown
