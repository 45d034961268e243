"""The viewer's frame and Streamlit entry script: `uv run pdbench ui data/runs/<run_id>`.

The sidebar picks a condition and a replicate; the header says what the run is and whether it is
complete; four tabs (pdbench.ui.tabs) show it:

- Match: headline metrics of the replicate beside the condition mean and its 95% CI, the actions
  of both agents round by round, and their cumulative payoffs;
- Conditions: every condition side by side, cooperation with CI error bars, cooperation over time;
- Round inspector: the prompts and raw answers of every attempt in one round, with invalid
  answers, fallbacks, timeouts and errors marked;
- Run facts: status, calls and cost, the command, seeds, git commit and the config snapshot from
  the manifest;
- Analysis: fingerprints, strategy estimates, profiles and comparisons from analysis.parquet
  (`pdbench analyze`), or a note saying how to make it;
- Tournament (only when tournament.parquet exists, `pdbench tournament`): payoff-matrix heatmap,
  ranking, population shares over generations.

A turn game's run (one line per turn) has its own tabs instead: the game's transcript, its
measures per condition and Run facts (pdbench.ui.turn_view).

Opened on a folder holding a ladder.parquet (`pdbench ladder`), it shows the Ladder page instead
(pdbench.ui.tabs.ladder).

The run dir comes from `--run-dir DIR` after `--` or from $PDBENCH_RUN_DIR. Nothing is written:
missing aggregates are computed in memory.
"""

from __future__ import annotations

from typing import Literal

import pandas as pd
import streamlit as st

from pdbench.analysis.metrics.turn_aggregates import is_turn_run as plays_turn_game
from pdbench.analysis.per_run.aggregates import Aggregates
from pdbench.core.errors import PdbenchError
from pdbench.storage.manifest import RunManifest
from pdbench.storage.shards import sweep_of
from pdbench.ui.display import JOINT_METRICS, format_value
from pdbench.ui.facts import condition_caption, condition_config, cost_text, short_commit
from pdbench.ui.loaders import LoadedRun, default_run_dir, ladder_file, load_ladder, load_run
from pdbench.ui.tabs import analysis, conditions, inspector, ladder, match, run_facts, tournament
from pdbench.ui.tally import tally
from pdbench.ui.turn_view import is_turn_run, render_turn_run

BadgeColor = Literal["green", "orange", "red", "gray"]
STATUS_COLORS: dict[str, BadgeColor] = {
    "complete": "green",
    "started": "orange",
    "stopped": "orange",
    "failed": "red",
}
STATUS_ICONS = {"complete": ":material/check_circle:", "failed": ":material/error:"}


def main() -> None:
    st.set_page_config(page_title="pdbench viewer", page_icon=":material/grid_view:", layout="wide")
    run_dir = _sidebar_run_dir()
    if not run_dir:
        st.error(
            "No run dir given. Start the viewer with `uv run pdbench ui data/runs/<run_id>`, "
            "or type a run dir in the sidebar."
        )
        st.stop()
    ladder_path = ladder_file(run_dir)
    if ladder_path is not None:  # a folder written by `pdbench ladder`: the Ladder page
        ladder.render(load_ladder(str(ladder_path), ladder_path.stat().st_mtime_ns), run_dir)
        st.stop()
    try:
        run = load_run(run_dir)
    except PdbenchError as error:
        st.error(f"Cannot open this run: {error}")
        st.stop()
    except Exception as error:  # a damaged file: say which, never show a traceback
        st.error(f"Cannot read the run dir {run_dir}: {type(error).__name__}: {error}")
        st.stop()

    sweep = sweep_of(run.reader.run_dir)
    if sweep is not None:
        st.warning(
            f"This folder is one job (shard) of the sweep `{sweep.name}`: it holds only "
            f"{', '.join(run.manifest.conditions) or 'one job'}. Open the sweep folder "
            f"`{sweep}` to see every condition of the sweep together.",
            icon=":material/call_split:",
        )
    _header(run)
    aggregates = run.aggregates
    if aggregates.conditions.empty:
        st.warning("No match of this run has finished yet: there is nothing to show.")
        run_facts.render(run.manifest, run.ledger, turn_game=plays_turn_game(run.manifest))
        st.stop()

    if is_turn_run(run):  # one line per turn: the game's own transcript (ui/turn_view.py)
        render_turn_run(run)
        st.stop()
    condition, replicate = _sidebar_selection(aggregates, run.manifest)
    conditions_table = aggregates.conditions
    condition_row = conditions_table[conditions_table["condition"] == condition].iloc[0]
    replicates = aggregates.replicates
    replicate_row = replicates[
        (replicates["condition"] == condition) & (replicates["replicate"] == replicate)
    ].iloc[0]
    try:
        rounds = run.match(condition, replicate)
    except Exception as error:
        st.error(f"Cannot read the rounds of {condition} replicate {replicate}: {error}")
        st.stop()
    names = {"a": f"A · {replicate_row['agent_a']}", "b": f"B · {replicate_row['agent_b']}"}
    config = condition_config(run.manifest, condition)

    tournament_table = run.tournament()
    tab_names = ["Match", "Conditions", "Round inspector", "Run facts", "Analysis"]
    tabs = st.tabs(tab_names + (["Tournament"] if tournament_table is not None else []))
    match_tab, conditions_tab, inspector_tab, facts_tab, analysis_tab = tabs[:5]
    with match_tab:
        match.render(
            condition,
            replicate,
            replicate_row,
            condition_row,
            rounds,
            names,
            config,
            run.ledger,
            tally(replicates, run.ledger, run.manifest.replicates or 0, condition),
        )
    with conditions_tab:
        conditions.render(aggregates, run.manifest, run.ledger, condition)
    with inspector_tab:
        inspector.render(condition, replicate, rounds, names, run.manifest, config)
    with facts_tab:
        run_facts.render(run.manifest, run.ledger, condition=condition)
    with analysis_tab:
        analysis.render(run, condition)
    if tournament_table is not None:
        with tabs[5]:
            tournament.render(tournament_table)


def _sidebar_run_dir() -> str:
    with st.sidebar:
        st.markdown("### :material/grid_view: pdbench viewer")
        value = st.text_input(
            "Run dir",
            value=default_run_dir() or "",
            key="run_dir",
            help="A folder under data/runs/, holding run_manifest.json (or a sweep's shards/).",
        )
    return value.strip()


def _sidebar_selection(aggregates: Aggregates, manifest: RunManifest) -> tuple[str, int]:
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
        st.caption(f"{matchups[condition]} · {condition_caption(manifest, condition)}")
        replicates = aggregates.replicates
        mine = replicates[replicates["condition"] == condition]
        cooperation = JOINT_METRICS[0]
        labels: dict[int, str] = {
            int(row["replicate"]): (
                f"{int(row['replicate'])} · {int(row['n_rounds'])} rounds · "
                f"coop {format_value(cooperation, row[cooperation.column])}"
            )
            for _, row in mine.iterrows()
        }
        options: list[int] = list(labels)
        replicate = st.selectbox(
            "Replicate",
            options,
            format_func=lambda number: labels[number],
            key=f"replicate::{condition}",
            help="One match of this condition; its seeds are in Run facts.",
        )
        st.divider()
        st.caption(
            "Read-only: nothing is written into the run dir. Files are re-read when they "
            "change (press R to refresh)."
        )
    return condition, replicate


def _header(run: LoadedRun) -> None:
    manifest, aggregates, run_dir = run.manifest, run.aggregates, run.reader.run_dir
    status = manifest.status
    n_conditions = len(aggregates.conditions)
    kind = "sweep" if manifest.kind == "sweep" else "experiment"
    st.title(f"Run {manifest.run_id or run_dir.name}", anchor=False)
    with st.container(horizontal=True, gap="small"):
        st.badge(
            status,
            color=STATUS_COLORS.get(status, "gray"),
            icon=STATUS_ICONS.get(status, ":material/pending:"),
        )
        st.badge(kind, color="blue")
        st.badge(f"{n_conditions} condition{'s' if n_conditions != 1 else ''}", color="gray")
        st.badge(f"{manifest.replicates or '?'} replicates", color="gray")
        st.badge(
            "aggregates.parquet" if aggregates.source == "file" else "aggregates in memory",
            color="gray" if aggregates.source == "file" else "violet",
        )
    calls = manifest.provider_calls
    st.caption(
        f"`{run_dir}` · started {manifest.started_utc or '?'} · "
        f"git {short_commit(manifest)} · provider calls {calls.live} live / "
        f"{calls.cached} cached · cost spent: {cost_text(manifest.spend)} (every attempt of the run)"
    )
    replicates = aggregates.replicates
    counted = tally(replicates, run.ledger, manifest.matches.planned)
    st.markdown(
        f"{':material/verified:' if counted.clean else ':material/error:'} **What happened:** "
        f"{counted.text()}",
        help="Counted over every match, aborted ones included: an invalid output is an answer "
        "that failed parsing (in a stored round, or in the round that ended an aborted match).",
    )
    if "match_status" in replicates:
        aborted = replicates[replicates["match_status"] == "aborted"]
        if len(aborted):
            where = ", ".join(dict.fromkeys(aborted["condition"].astype(str)))
            st.warning(
                f"{len(aborted)} of {len(replicates)} matches were aborted by an agent (in "
                f"{where}): condition means use finished matches only; the aborted replicates "
                "are marked in the sidebar.",
                icon=":material/warning:",
            )
    substituted = _substituted_shares(aggregates.conditions)
    if substituted:
        st.warning(
            "Some actions were not the agents' own answers but substitutes (fallbacks after "
            "invalid answers, timeouts, crashes); substituted share: "
            + "; ".join(substituted)
            + ". Cooperation over valid answers only is in each condition's metrics.",
            icon=":material/swap_horiz:",
        )

    if aggregates.note:
        st.info(
            f"{aggregates.note[0].upper()}{aggregates.note[1:]} (nothing is written; "
            f"`uv run pdbench aggregate {run_dir}` stores them).",
            icon=":material/info:",
        )
    if status != "complete":
        error = manifest.error
        st.warning(
            f"This run's status is **{status}**: {manifest.matches.completed} of "
            f"{manifest.matches.planned} matches finished"
            + (f". Last error: {error}" if error else ". It may still be running, or was stopped.")
        )


def _substituted_shares(conditions: pd.DataFrame) -> list[str]:
    """'fallback_often A 25%' for every condition and agent whose actions were substituted."""
    shares = []
    for _, row in conditions.iterrows():
        for side in ("a", "b"):
            share = row.get(f"substituted_share_{side}")
            if share is not None and not pd.isna(share) and share > 0:
                shares.append(f"{row['condition']} {side.upper()} {share:.0%}")
    return shares


# Streamlit runs this file as __main__; importing it (tests, the layering check) draws nothing.
if __name__ == "__main__":
    main()
