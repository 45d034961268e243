"""The viewer's frame and Streamlit entry script: `uv run pdbench ui data/runs/<run_id>`.

The page below the header is the run's games' own (their entries' `view`,
`pdbench.ui.game_views`): the 2x2 games' page shows the whole run in its own sidebar and tabs
(Match, Conditions, Round inspector, Run facts, Analysis, Tournament:
`pdbench.games.matrix.view`); a turn game's run (one line per turn) is shown one match at a time,
its game's transcript and measures per condition beside Run facts (pdbench.ui.turn_view).

Opened on a folder holding a ladder.parquet (`pdbench ladder`), it shows the Ladder page instead
(pdbench.ui.tabs.ladder).

The run dir comes from `--run-dir DIR` after `--` or from $PDBENCH_RUN_DIR. Nothing is written:
missing aggregates are computed in memory.
"""

from __future__ import annotations

from typing import Literal

import pandas as pd
import streamlit as st

from pdbench.core.errors import PdbenchError
from pdbench.storage.shards import sweep_of
from pdbench.ui.facts import cost_text, short_commit
from pdbench.ui.game_views import run_page
from pdbench.ui.loaders import LoadedRun, default_run_dir, ladder_file, load_ladder, load_run
from pdbench.ui.tabs import ladder
from pdbench.ui.tally import tally
from pdbench.ui.turn_view import render_turn_run

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
    # the games the run's conditions play (named when the run starts, before any match ends)
    games = [m.game for m in run.manifest.matchups.values()]
    page = run_page(games or run.aggregates.conditions["game"].astype(str))
    if page is not None:  # the games' own page of a whole run (the 2x2 games': games/matrix/view)
        page.render_run(run)
    else:  # one transcript per match, each its game's page (ui/turn_view.py)
        render_turn_run(run)


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
