"""The 2x2 games' page in the viewer (the 2x2 entries' `view`, a `pdbench.ui.game_views.RunPage`):
a run's rounds of C and D shown whole, in its own sidebar and tabs, where a turn game's run
shows one transcript per match (`pdbench.ui.turn_view`).

The sidebar picks a condition and a replicate; the tabs:

- Match (`match`): headline metrics of the replicate beside the condition mean and its 95% CI,
  the actions of both agents round by round, and their cumulative payoffs;
- Conditions (`conditions`): every condition side by side, cooperation with CI error bars,
  cooperation over time;
- Round inspector (`inspector`): the prompts and raw answers of every attempt in one round,
  with invalid answers, fallbacks, timeouts and errors marked;
- Run facts, Analysis (analysis.parquet, `pdbench analyze`) and, when tournament.parquet exists
  (`pdbench tournament`), Tournament: the viewer's own tabs (`pdbench.ui.tabs`).
"""

from __future__ import annotations

import streamlit as st

from pdbench.analysis.per_run.aggregates import Aggregates
from pdbench.games.matrix.view import conditions, inspector, match
from pdbench.storage.manifest import RunManifest
from pdbench.ui.display import JOINT_METRICS, format_value
from pdbench.ui.facts import condition_caption, condition_config
from pdbench.ui.loaders import LoadedRun
from pdbench.ui.tabs import analysis, run_facts, tournament
from pdbench.ui.tally import tally


def render_run(run: LoadedRun) -> None:
    """The page of a run of 2x2 games."""
    aggregates = run.aggregates
    if aggregates.conditions.empty:
        run_facts.render_nothing_finished(run.manifest, run.ledger)
        return
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
