"""The Analysis and Tournament tabs, driven headless by streamlit.testing: a note (and no
computation) before `pdbench analyze`, the tables after it, the Tournament tab only for a run with
tournament.parquet, and nothing written into the run dir."""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from pdbench.runners.experiment import run_experiment
from pdbench.runners.prepare import load
from pdbench.ui.loaders import RUN_DIR_ENV

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "pdbench" / "ui" / "app.py"


def cli(monkeypatch, *args: str) -> None:
    from pdbench.cli import main

    monkeypatch.setattr(sys, "argv", ["pdbench", *args])
    try:
        main()
    except SystemExit as done:
        assert not done.code, done.code


def open_viewer(monkeypatch, run_dir: Path) -> AppTest:
    monkeypatch.setenv(RUN_DIR_ENV, str(run_dir))
    app = AppTest.from_file(str(APP), default_timeout=90)
    app.run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def listing(run_dir: Path) -> dict[str, tuple[int, int]]:
    return {
        str(p.relative_to(run_dir)): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in sorted(run_dir.rglob("*"))
    }


@pytest.fixture
def tournament_run(tmp_path) -> Path:
    loaded = load(
        ROOT / "conf" / "experiment" / "tournament_classic.yaml",
        [
            "tournament.agents=[tft,alld,wsls]",
            "run.replicates=2",
            "horizon.rounds=30",
            f"run.output_dir={tmp_path}",
            "run.run_id=small",
        ],
    )
    return run_experiment(loaded).run_dir


def test_before_analyze_the_tab_says_how_and_computes_nothing(monkeypatch, tournament_run):
    before = listing(tournament_run)
    app = open_viewer(monkeypatch, tournament_run)
    assert [tab.label for tab in app.tabs] == [
        "Match",
        "Conditions",
        "Round inspector",
        "Run facts",
        "Analysis",
    ]
    assert any("pdbench analyze" in info.value for info in app.info)
    assert listing(tournament_run) == before


def test_after_analyze_and_tournament_both_tabs_show_their_tables(monkeypatch, tournament_run):
    cli(monkeypatch, "analyze", str(tournament_run), "--bootstrap", "20")
    cli(monkeypatch, "tournament", str(tournament_run), "--runs", "50", "--payne")
    before = listing(tournament_run)
    app = open_viewer(monkeypatch, tournament_run)
    assert [tab.label for tab in app.tabs][-2:] == ["Analysis", "Tournament"]
    assert not any("pdbench analyze" in info.value for info in app.info)
    (scopes,) = [box for box in app.selectbox if box.label == "Agents of"]
    assert scopes.value == "tft_vs_tft"  # the condition chosen in the sidebar
    assert scopes.options[-1] == "all matches"  # a tournament's players, pooled
    analysis_tab, tournament_tab = app.tabs[4], app.tabs[5]
    profile, sfem, fingerprints, comparisons = (frame.value for frame in analysis_tab.dataframe)
    assert list(profile["agent"]) == ["tft_vs_tft · A · tft", "tft_vs_tft · B · tft"]
    assert "P(C) after CC" in fingerprints
    assert len(comparisons) == 15  # 6 conditions, every pair
    assert sfem.set_index("agent").loc["all matches · wsls", "nearest"] == "wsls"
    stored = pd.read_parquet(tournament_run / "tournament.parquet")
    stored_ranking = stored[stored["table"] == "ranking"]["player"]
    ranking, moran = (frame.value for frame in tournament_tab.dataframe)
    assert list(ranking["player"]) == list(stored_ranking)
    assert len(moran) == 6  # every (mutant, resident) pair of 3 players
    assert app.radio(key="tournament_dynamics").options[1].startswith("Payne")
    assert listing(tournament_run) == before


def test_two_analyses_of_one_run_are_both_kept_and_the_tab_chooses(monkeypatch, tournament_run):
    """Issue 26: `analyze` with another --reference writes its own file; the Analysis tab offers
    both and shows the comparisons of the one chosen."""
    cli(monkeypatch, "analyze", str(tournament_run), "--bootstrap", "20")
    cli(
        monkeypatch,
        "analyze",
        str(tournament_run),
        "--bootstrap",
        "20",
        "--reference",
        "tft_vs_alld",
    )
    assert (tournament_run / "analysis.parquet").is_file()
    assert (tournament_run / "analysis-ref-tft_vs_alld.parquet").is_file()
    app = open_viewer(monkeypatch, tournament_run)
    box = app.selectbox(key=f"analysis_name::{tournament_run.resolve()}")
    assert box.options == [
        "analysis.parquet (default options)",
        "analysis-ref-tft_vs_alld.parquet",
    ]
    comparisons = app.tabs[4].dataframe[-1].value
    assert len(comparisons) == 15  # the default: every pair of 6 conditions
    box.set_value("ref-tft_vs_alld").run()
    assert not app.exception, [e.value for e in app.exception]
    comparisons = app.tabs[4].dataframe[-1].value
    assert len(comparisons) == 5  # every other condition against the reference
    assert set(comparisons["A"]) == {"tft_vs_alld"}
