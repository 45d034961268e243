"""The Streamlit viewer, driven headless by streamlit.testing (no browser).

Real runs are made once per module (policies, mock LLM agents and a two-condition Hydra sweep);
the viewer must load each of them, let every condition and replicate be selected, and show metric
values equal to the ones in aggregates.parquet. Copies of those runs check the edge cases:
no aggregates.parquet, a sweep whose shards are not merged, a damaged manifest, a non-run dir,
invalid answers and fallbacks. The viewer must never write into the run dir.
"""

from __future__ import annotations

import math
import os
import re
import shutil
from pathlib import Path

import orjson
import pandas as pd
import pytest
from in_process import run_front_door
from project_copy import copy_project
from streamlit.testing.v1 import AppTest
from streamlit_scan import components_scanned_once  # noqa: F401 (a fixture)

from pdbench.analysis.metrics.aggregate import aggregate_run
from pdbench.analysis.metrics.catalog import DECIMALS, MetricColumn
from pdbench.games.matrix.stored import as_rounds
from pdbench.runners.experiment import run_experiment
from pdbench.runners.prepare import load
from pdbench.storage.reader import RunReader
from pdbench.ui.display import HEADLINE_METRICS
from pdbench.ui.loaders import RUN_DIR_ENV

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "pdbench" / "ui" / "app.py"
TIMEOUT = 60  # seconds per script run: the first one imports pandas, pyarrow and altair

# each test runs the whole Streamlit app (5-15 s under load); Streamlit's scan of the installed
# packages for components is made once (tests/streamlit_scan.py)
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("components_scanned_once")]


# --- runs made for the tests -------------------------------------------------------------------


def make_run(
    project: Path, config: str, overrides: list[str], output_dir: Path, run_id: str, **kwargs
) -> Path:
    """`config` of the project copy (never the user's edited conf/), run into output_dir."""
    loaded = load(
        project / config,
        [
            *overrides,
            f"run.output_dir={output_dir}",
            f"run.run_id={run_id}",
            f"run.cache.dir={output_dir / 'cache'}",
        ],
        project_root=project,
        **kwargs,
    )
    outcome = run_experiment(loaded)
    assert outcome.status == "complete", outcome.error
    return outcome.run_dir


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """The committed project: conf/experiment.yaml as shipped, whatever the user edited."""
    return copy_project(tmp_path_factory.mktemp("project"))


@pytest.fixture(scope="module")
def runs_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("runs")


@pytest.fixture(scope="module")
def single_run(project, runs_dir) -> Path:
    """GTFT vs ALLD, one condition, 3 replicates."""
    return make_run(project, "conf/config.yaml", ["agent_a=gtft", "agent_b=alld"], runs_dir, "t")


@pytest.fixture(scope="module")
def llm_run(project, runs_dir) -> Path:
    """conf/experiment.yaml: 4 conditions, two with mock LLM agents whose prompts are stored."""
    return make_run(project, "conf/experiment.yaml", [], runs_dir, "llm", replicates=2)


@pytest.fixture(scope="module")
def sweep_run(project, runs_dir) -> Path:
    """A Hydra multirun over agent_a=tft,grim: one run dir with 2 conditions (merged shards).

    `python -m pdbench -m ...` through its entry function in this process (tests/in_process.py):
    the sweep's files are what the viewer reads; no test here is about the process."""
    done = run_front_door(
        "module",
        [
            "-m",
            "agent_a=tft,grim",
            f"run.output_dir={runs_dir}",
            "run.run_id=s",
            f"run.cache.dir={runs_dir / 'cache'}",
            f"hydra.sweep.dir={runs_dir / 'hydra'}",
        ],
        cwd=project,
        env={
            k: v for k, v in os.environ.items() if k not in ("PDBENCH_SWEEP_ID", "PDBENCH_RUN_DIR")
        },
        wall_limit_s=300,
    )
    assert done.code == 0, done.stderr[-3000:]
    return runs_dir / "s"


def copy_run(run_dir: Path, tmp_path: Path, name: str | None = None) -> Path:
    target = tmp_path / (name or run_dir.name)
    shutil.copytree(run_dir, target)
    return target


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file under `folder` with its mtime and size: the viewer must change none of them."""
    return {
        str(p.relative_to(folder)): (p.stat().st_mtime_ns, p.stat().st_size)
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


# --- driving the app ---------------------------------------------------------------------------


def open_app(monkeypatch, run_dir: Path | str) -> AppTest:
    # AppTest runs the script with pytest's argv, so the run dir goes through the environment.
    monkeypatch.setenv(RUN_DIR_ENV, str(run_dir))
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT).run()
    assert_no_exception(at)
    return at


def assert_no_exception(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def select(at: AppTest, condition: str, replicate: int) -> AppTest:
    """Choose `condition` and `replicate` in the sidebar. A box that already shows the value is
    left alone: choosing it again would rerun the script on the same widget state, and the page
    it draws is the one already shown (checked below as it stands)."""
    if at.selectbox(key="condition").value != condition:
        at.selectbox(key="condition").set_value(condition).run()
        assert_no_exception(at)
    assert at.selectbox(key="condition").value == condition
    if at.selectbox(key=f"replicate::{condition}").value != replicate:
        at.selectbox(key=f"replicate::{condition}").set_value(replicate).run()
        assert_no_exception(at)
    assert at.selectbox(key=f"replicate::{condition}").value == replicate
    return at


def assert_shown(text: str, value, metric: MetricColumn, where: str) -> None:
    """`text` is `value` rounded as the viewer rounds it (null shows as n/a or 'no collapse')."""
    if value is None or pd.isna(value):
        assert text in ("n/a", "no collapse"), f"{where}: shows {text!r} for a null value"
        return
    tolerance = 0.5 * 10 ** -DECIMALS[metric.kind] + 1e-9
    assert abs(float(text) - float(value)) <= tolerance, f"{where}: shows {text}, stored {value}"


def check_metrics(at: AppTest, table: pd.DataFrame, condition: str, replicate: int) -> None:
    """Every headline card shows the replicate's value, the condition mean and its 95% CI."""
    replicates = table[table["level"] == "replicate"]
    rep = replicates[
        (replicates["condition"] == condition) & (replicates["replicate"] == replicate)
    ].iloc[0]
    cond = table[(table["level"] == "condition") & (table["condition"] == condition)].iloc[0]
    cards = {m.label: m for m in at.metric}
    for metric in HEADLINE_METRICS:
        card = cards[metric.label]
        where = f"{condition} r{replicate} {metric.label}"
        assert_shown(card.value, rep[metric.column], metric, where)
        assert card.delta.startswith("mean "), card.delta
        assert_shown(card.delta.removeprefix("mean "), cond[metric.column], metric, where + " mean")
        description = card.proto.delta_description
        low, high = cond[f"{metric.column}_ci_low"], cond[f"{metric.column}_ci_high"]
        if pd.isna(low):
            assert description.startswith("no CI"), description
        else:
            found = re.fullmatch(r"95% CI (-?[\d.]+)–(-?[\d.]+)", description)
            assert found, description
            assert_shown(found[1], low, metric, where + " CI low")
            assert_shown(found[2], high, metric, where + " CI high")

    # The full table beside the cards holds the stored numbers themselves, unrounded.
    full = next(df.value for df in at.dataframe if "condition_mean" in df.value.columns)
    for _, row in full.iterrows():
        column = row["column"]
        for shown, stored in (
            (row["replicate"], rep[column]),
            (row["condition_mean"], cond[column]),
            (row["ci_low"], cond[f"{column}_ci_low"]),
            (row["ci_high"], cond[f"{column}_ci_high"]),
            (row["n"], cond[f"{column}_n"]),
        ):
            assert same_number(shown, stored), (
                f"{condition} r{replicate} {column}: {shown} != {stored}"
            )


def same_number(a, b) -> bool:
    a_missing = a is None or pd.isna(a)
    b_missing = b is None or pd.isna(b)
    return a_missing == b_missing and (a_missing or math.isclose(float(a), float(b), abs_tol=1e-12))


def check_every_selection(at: AppTest, run_dir: Path, table: pd.DataFrame | None = None) -> None:
    table = pd.read_parquet(run_dir / "aggregates.parquet") if table is None else table
    replicates = table[table["level"] == "replicate"]
    conditions = list(table.loc[table["level"] == "condition", "condition"])
    assert at.selectbox(key="condition").options == conditions
    for condition in conditions:
        for replicate in replicates.loc[replicates["condition"] == condition, "replicate"]:
            select(at, condition, int(replicate))
            check_metrics(at, table, condition, int(replicate))
            assert vega_charts(at) >= 2  # the action timeline and the cumulative payoffs
    # Across conditions: the comparison table lists every condition's mean cooperation.
    comparison = next(df.value for df in at.dataframe if "matchup" in df.value.columns)
    assert list(comparison["condition"]) == conditions
    stored = table[table["level"] == "condition"].set_index("condition")
    for _, row in comparison.iterrows():
        assert same_number(row["cooperation"], stored.loc[row["condition"], "cooperation_rate"])


def vega_charts(at: AppTest) -> int:
    return len(at.get("vega_lite_chart"))


def markdown_text(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


# --- the tests -------------------------------------------------------------------------------


def test_single_run_every_replicate_shows_the_stored_metrics(monkeypatch, single_run):
    at = open_app(monkeypatch, single_run)
    assert at.title[0].value == "Run t"
    assert not at.error
    check_every_selection(at, single_run)
    # Text beside the colours: the action sequence of both agents as letters.
    rounds = RunReader.open(single_run).match_rounds("agent_a=gtft,agent_b=alld", 2)
    sequence = " ".join(r["agent_b_action"] for r in rounds)
    assert any(sequence in code.value for code in at.code)
    assert vega_charts(at) == 4  # timeline, payoffs, CI chart, cooperation over time


def test_sweep_with_two_conditions(monkeypatch, sweep_run):
    assert (sweep_run / "shards").is_dir()
    at = open_app(monkeypatch, sweep_run)
    assert len(at.selectbox(key="condition").options) == 2
    assert "sweep" in markdown_text(at)
    check_every_selection(at, sweep_run)


def test_llm_run_metrics_and_round_inspector(monkeypatch, llm_run):
    at = open_app(monkeypatch, llm_run)
    check_every_selection(at, llm_run)

    condition = "llm_cooperative_vs_tft"
    select(at, condition, 1)
    rounds = RunReader.open(llm_run).match_rounds(condition, 1)
    for index in (1, 7):
        at.select_slider(key=f"round::{condition}::1").set_value(index).run()
        assert_no_exception(at)
        attempt = rounds[index - 1]["agent_a_attempts"][0]
        codes = [c.value for c in at.code]
        assert attempt["prompt"] in codes
        assert attempt["system"] in codes
        assert attempt["raw"] in codes
        assert ":green-badge[:material/check: valid]" in markdown_text(at)
    assert "This agent asks no model: it decides without prompts" in "\n".join(
        c.value for c in at.caption
    )


def test_invalid_answers_fallbacks_timeouts_and_errors_are_marked(monkeypatch, llm_run, tmp_path):
    run_dir = copy_run(llm_run, tmp_path)
    condition, replicate, index = "llm_exploitative_vs_grim", 0, 3

    def spoil(record: dict) -> dict:
        """Round 3's commit turn (record version 2) says a's answer was twice invalid and a
        fallback, and b timed out."""
        where = (record["condition"], record["replicate"], record["round"], record["phase"])
        if where != (condition, replicate, index, "commit"):
            return record
        decisions = record["decisions"]
        first = dict(decisions["a"]["attempts"][0])
        bad = {**first, "raw": "I will cooperate, probably", "valid": False}
        bad |= {"error": "no action found", "reason": "the answer names no single action"}
        retry = {**bad, "attempt": 2, "raw": "maybe"}
        spoiled_a = {
            **decisions["a"],
            "attempts": [bad, retry],
            "invalid_outputs": 2,
            "fallback": True,
            "error": "no valid action after 2 attempts; played the fallback D",
        }
        return {**record, "decisions": {**decisions, "a": spoiled_a, "b": {"timeout": True}}}

    rewrite_rounds(run_dir, spoil)
    before = snapshot(run_dir)
    at = open_app(monkeypatch, run_dir)
    # The ledger covers the same matches, so aggregates.parquet is still used as stored.
    assert not any("computed in memory" in i.value for i in at.info)
    select(at, condition, replicate)
    assert any(f"round {index}:" in w.value and "fallback" in w.value for w in at.warning)
    at.select_slider(key=f"round::{condition}::{replicate}").set_value(index).run()
    assert_no_exception(at)
    text = markdown_text(at)
    for badge in (
        ":red-badge[:material/warning: 2 invalid outputs]",
        ":orange-badge[:material/warning: fallback]",
        ":red-badge[:material/warning: error]",
        ":orange-badge[:material/warning: timeout]",
        ":red-badge[:material/close: invalid]",
    ):
        assert badge in text, badge
    assert "no action found" in text
    codes = [c.value for c in at.code]
    assert "I will cooperate, probably" in codes and "maybe" in codes
    assert "no valid action after 2 attempts; played the fallback D" in codes
    assert snapshot(run_dir) == before


def rewrite_rounds(run_dir: Path, change) -> None:
    """Rewrite rounds.jsonl through `change` and move the ledger's byte offsets along."""
    lines = (run_dir / "rounds.jsonl").read_bytes().splitlines(keepends=True)
    ledger = [orjson.loads(x) for x in (run_dir / "matches.jsonl").read_bytes().splitlines()]
    ends = {}
    out = b""
    for line in lines:
        record = change(orjson.loads(line))
        out += orjson.dumps(record) + b"\n"
        ends[(record["condition"], record["replicate"])] = len(out)
    (run_dir / "rounds.jsonl").write_bytes(out)
    for entry in ledger:
        entry["rounds_end_offset"] = ends[(entry["condition"], entry["replicate"])]
    (run_dir / "matches.jsonl").write_bytes(b"".join(orjson.dumps(e) + b"\n" for e in ledger))


def test_hashed_prompts_show_their_hashes(monkeypatch, project, runs_dir):
    run_dir = make_run(
        project,
        "conf/experiment.yaml",
        ["run.store_prompts=hash"],
        runs_dir,
        "hashed",
        replicates=1,
    )
    at = open_app(monkeypatch, run_dir)
    condition = "llm_cooperative_vs_tft"
    select(at, condition, 0)
    attempt = RunReader.open(run_dir).match_rounds(condition, 0)[0]["agent_a_attempts"][0]
    assert "prompt" not in attempt
    hashes = "\n".join(c.value for c in at.code)
    assert f"prompt_sha256: {attempt['prompt_sha256']}" in hashes
    assert f"raw_sha256: {attempt['raw_sha256']}" in hashes


def test_without_aggregates_parquet_metrics_are_computed_in_memory(
    monkeypatch, single_run, tmp_path
):
    run_dir = copy_run(single_run, tmp_path)
    (run_dir / "aggregates.parquet").unlink()
    before = snapshot(run_dir)
    at = open_app(monkeypatch, run_dir)
    assert any(
        "no aggregates.parquet" in i.value.lower() and "in memory" in i.value for i in at.info
    )
    check_every_selection(at, run_dir, table=aggregate_run(run_dir))
    # Read-only: no aggregates.parquet (or anything else) was written.
    assert snapshot(run_dir) == before


def test_unmerged_sweep_is_read_from_its_shards(monkeypatch, sweep_run, tmp_path):
    run_dir = copy_run(sweep_run, tmp_path)
    for name in ("rounds.jsonl", "matches.jsonl", "run_manifest.json", "aggregates.parquet"):
        (run_dir / name).unlink()
    before = snapshot(run_dir)
    at = open_app(monkeypatch, run_dir)
    assert any("not merged" in i.value for i in at.info)
    # Same numbers as the merged sweep.
    check_every_selection(at, run_dir, table=pd.read_parquet(sweep_run / "aggregates.parquet"))
    assert snapshot(run_dir) == before


def test_stale_aggregates_are_recomputed(monkeypatch, single_run, tmp_path):
    """A ledger listing matches the parquet lacks (the run went on): compute in memory."""
    run_dir = copy_run(single_run, tmp_path)
    table = pd.read_parquet(run_dir / "aggregates.parquet")
    table[~((table["level"] == "replicate") & (table["replicate"] == 2))].to_parquet(
        run_dir / "aggregates.parquet"
    )
    at = open_app(monkeypatch, run_dir)
    assert any("covers 2 matches but the ledger lists 3" in i.value for i in at.info)
    check_every_selection(at, run_dir, table=aggregate_run(run_dir))


@pytest.mark.parametrize("kind", ["empty", "missing", "file", "parent"])
def test_a_non_run_dir_gets_a_clear_error(monkeypatch, tmp_path, single_run, kind):
    target = {
        "empty": tmp_path,
        "missing": tmp_path / "nope",
        "file": single_run / "rounds.jsonl",
        "parent": single_run.parent,
    }[kind]
    at = open_app(monkeypatch, target)
    assert len(at.error) == 1
    message = at.error[0].value
    expected = {
        "empty": "is not a pdbench run dir (no run_manifest.json)",
        "missing": "does not exist",
        "file": "is not a directory",
        "parent": "it holds runs: ",
    }[kind]
    assert expected in message
    assert not at.metric


def test_no_run_dir_given(monkeypatch):
    monkeypatch.delenv(RUN_DIR_ENV, raising=False)
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT).run()
    assert_no_exception(at)
    assert "No run dir given" in at.error[0].value


def test_a_run_with_no_finished_match_says_so(monkeypatch, single_run, tmp_path):
    run_dir = tmp_path / "fresh"
    run_dir.mkdir()
    manifest = orjson.loads((single_run / "run_manifest.json").read_bytes())
    manifest |= {"status": "started", "matches": {"planned": 3, "completed": 0, "failed": []}}
    (run_dir / "run_manifest.json").write_bytes(orjson.dumps(manifest))
    before = snapshot(run_dir)
    at = open_app(monkeypatch, run_dir)
    assert any("No match of this run has finished yet" in w.value for w in at.warning)
    assert any("status is **started**" in w.value for w in at.warning)
    assert {m.label: m.value for m in at.metric}["Matches finished"] == "0 / 3"
    assert snapshot(run_dir) == before


def test_a_damaged_manifest_is_an_error_not_a_traceback(monkeypatch, single_run, tmp_path):
    run_dir = copy_run(single_run, tmp_path)
    (run_dir / "run_manifest.json").write_text("{not json")
    at = open_app(monkeypatch, run_dir)
    assert "run_manifest.json: not valid JSON" in at.error[0].value


def test_match_rounds_come_from_the_ledger_offsets(single_run, sweep_run, llm_run):
    for run_dir in (single_run, sweep_run, llm_run):
        stored = (run_dir / "rounds.jsonl").read_bytes().splitlines()
        every = list(as_rounds(orjson.loads(x) for x in stored))  # a 2x2 run's rounds
        reader = RunReader.open(run_dir)
        for entry in reader.ledger():
            expected = [
                r
                for r in every
                if (r["condition"], r["replicate"]) == (entry.condition, entry.replicate)
            ]
            got = reader.match_rounds(entry.condition, entry.replicate)
            assert got == expected
            assert len(got) == entry.n_rounds


def test_the_match_is_read_without_the_rest_of_the_file(single_run, tmp_path):
    """Garbage outside the match's byte range is never parsed."""
    run_dir = copy_run(single_run, tmp_path)
    ledger = RunReader.open(run_dir).ledger()
    data = bytearray((run_dir / "rounds.jsonl").read_bytes())
    start, end = ledger[0].rounds_end_offset, ledger[1].rounds_end_offset
    data[:start] = b"x" * (start - 1) + b"\n"  # the first match becomes unreadable
    data[end:] = b"y" * (len(data) - end - 1) + b"\n"  # and so does the third
    (run_dir / "rounds.jsonl").write_bytes(bytes(data))
    rounds = RunReader.open(run_dir).match_rounds(ledger[1].condition, 1)
    assert [r["round_index"] for r in rounds] == list(range(1, ledger[1].n_rounds + 1))


def test_moves_flipped_by_noise_are_marked_on_the_match_tab(monkeypatch, project, runs_dir):
    run_dir = make_run(
        project,
        "conf/config.yaml",
        ["agent_a=allc", "agent_b=tft", "game.noise=0.2", "horizon.rounds=30"],
        runs_dir,
        "noisy",
        replicates=1,
    )
    rounds = RunReader.open(run_dir).match_rounds(
        "agent_a=allc,agent_b=tft,game.noise=0.2,horizon.rounds=30", 0
    )
    flips = sum(
        r[f"agent_{side}_intended"] != r[f"agent_{side}_action"] for r in rounds for side in "ab"
    )
    assert flips > 0
    at = open_app(monkeypatch, run_dir)
    assert any(f"Noise flipped {flips} moves" in c.value for c in at.caption)
    assert any("flipped" in c.value for c in at.code)  # the action text's flip line
