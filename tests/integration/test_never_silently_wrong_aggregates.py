"""Issue 13, the numbers in aggregates.parquet: aborted matches (case 4), collapse censoring and
bounded intervals (10), common random numbers (11), substituted actions (13), WSLS's rule (14),
pooled rates (15) and stable column types (16).

Every xfail test states what is wrong today; the rest hold today and must keep holding.
"""

from __future__ import annotations

import math

import pandas as pd
import pyarrow.dataset as pa_dataset
import pyarrow.parquet as pq
import pytest
from silently_wrong_helpers import (
    FIXTURES,
    aggregates,
    console_command,
    header_texts,
    missing_columns,
    moves,
    open_viewer,
    read_rounds,
    rounds_per_match,
    run_experiment_file,
    run_process,
    viewer_texts,
    write_config,
)

RATE_METRICS = [
    "cooperation_rate",
    "cooperation_rate_a",
    "cooperation_rate_b",
    "retaliation_rate_a",
    "retaliation_rate_b",
    "forgiveness_rate_a",
    "forgiveness_rate_b",
]


# --- runs shared by the tests below -------------------------------------------------------------


@pytest.fixture(scope="module")
def flawed_run(tmp_path_factory):
    """flawed_answers.yaml through the console script: (run dir, the command's stdout)."""
    tmp = tmp_path_factory.mktemp("flawed")
    done = run_process(
        [
            *console_command(),
            "run",
            str(FIXTURES / "flawed_answers.yaml"),
            f"run.output_dir={tmp / 'runs'}",
            "--run-id",
            "flawed",
            "--quiet",
        ],
        tmp,
    )
    # the always_aborts condition has no finished match: the run ends `aborted` (issue 26)
    assert done.returncode == 6, done.stderr
    run_dir = tmp / "runs" / "flawed"
    statuses = {status for status, _ in _expected_status(run_dir, "sometimes_aborts").values()}
    assert statuses == {"finished", "aborted"}, (
        "flawed_answers.yaml no longer gives sometimes_aborts both finished and aborted "
        "matches: change its seed"
    )
    return run_dir, done.stdout


def _expected_status(run_dir, condition, replicates=12, rounds=8):
    """(match_status, aborted_at_round) per replicate, from the rounds actually stored: a match
    aborted in round k stored k - 1 rounds."""
    stored = rounds_per_match(run_dir)
    expected = {}
    for replicate in range(replicates):
        n = stored.get((condition, replicate), 0)
        expected[replicate] = ("finished", None) if n == rounds else ("aborted", n + 1)
    return expected


@pytest.fixture(scope="module")
def collapse_run(tmp_path_factory):
    output = tmp_path_factory.mktemp("collapse")
    outcome = run_experiment_file(FIXTURES / "collapse.yaml", [], output_dir=output, run_id="c")
    assert outcome.status == "complete", outcome.error
    return outcome.run_dir


@pytest.fixture(scope="module")
def crn_run(tmp_path_factory):
    output = tmp_path_factory.mktemp("crn")
    config = FIXTURES / "common_random_numbers.yaml"
    outcome = run_experiment_file(config, [], output_dir=output, run_id="crn")
    assert outcome.status == "complete", outcome.error
    return outcome.run_dir


# --- case 4: aborted matches ---------------------------------------------------------------------


def test_aborted_matches_are_marked_on_replicate_rows(flawed_run):
    run_dir, _ = flawed_run
    replicates, _ = aggregates(run_dir)
    assert not missing_columns(replicates, ["match_status", "aborted_at_round"])
    assert str(replicates["aborted_at_round"].dtype) == "Int64"
    for condition in ("sometimes_aborts", "always_aborts"):
        for replicate, (status, round_) in _expected_status(run_dir, condition).items():
            row = replicates.loc[(condition, replicate)]
            assert row["match_status"] == status, (condition, replicate)
            if round_ is None:
                assert pd.isna(row["aborted_at_round"]), (condition, replicate)
            else:
                assert row["aborted_at_round"] == round_, (condition, replicate)


def test_condition_means_use_finished_matches_and_count_aborted_ones(flawed_run):
    run_dir, _ = flawed_run
    replicates, conditions = aggregates(run_dir)
    expected = _expected_status(run_dir, "sometimes_aborts")
    finished = [r for r, (status, _) in expected.items() if status == "finished"]
    assert "always_aborts" in conditions.index, "a condition whose matches all aborted vanished"
    assert not missing_columns(conditions, ["n_finished", "n_aborted"])

    row = conditions.loc["sometimes_aborts"]
    assert (row["n_finished"], row["n_aborted"]) == (len(finished), 12 - len(finished))
    assert row["n_rounds"] == 8.0  # a fixed 20-round game averages 20 rounds, never 14.3
    finished_rows = replicates.loc[[("sometimes_aborts", r) for r in finished]]
    assert math.isclose(row["cooperation_rate_b"], finished_rows["cooperation_rate_b"].mean())

    empty = conditions.loc["always_aborts"]
    assert (empty["n_finished"], empty["n_aborted"]) == (0, 12)
    assert pd.isna(empty["cooperation_rate"]) and pd.isna(empty["total_payoff_a"])


def test_summary_counts_finished_matches(flawed_run):
    run_dir, stdout = flawed_run
    finished = sum(
        s == "finished" for s, _ in _expected_status(run_dir, "sometimes_aborts").values()
    )
    lines = {line.split()[0]: line for line in stdout.splitlines() if line.strip()}
    assert "always_aborts" in lines, stdout
    assert "finished" in stdout.split("always_aborts")[0], stdout  # the column's header
    assert " 0/12 " in lines["always_aborts"], stdout
    assert f" {finished}/12 " in lines["sometimes_aborts"], stdout


def test_viewer_flags_aborted_replicates_at_the_top(flawed_run, tmp_path, monkeypatch):
    run_dir, _ = flawed_run
    header = header_texts(open_viewer(run_dir, tmp_path, monkeypatch))
    assert any("aborted" in text.lower() for text in header), header


# --- case 13: substituted actions ----------------------------------------------------------------

SUBSTITUTION_COLUMNS = [
    f"{name}_{side}"
    for name in ("valid_cooperation_rate", "substituted_actions", "substituted_share")
    for side in ("a", "b")
]


def test_valid_answers_are_reported_apart_from_substituted_actions(flawed_run):
    run_dir, _ = flawed_run
    replicates, conditions = aggregates(run_dir)
    assert not missing_columns(replicates, SUBSTITUTION_COLUMNS)
    assert not missing_columns(conditions, SUBSTITUTION_COLUMNS)
    rounds = [r for r in read_rounds(run_dir) if r["condition"] == "fallback_often"]
    shares = []
    for replicate in range(12):
        mine = [r for r in rounds if r["replicate"] == replicate]
        substituted = sum(bool(r["agent_a_fallback"]) for r in mine)
        row = replicates.loc[("fallback_often", replicate)]
        assert row["substituted_actions_a"] == substituted
        assert math.isclose(row["substituted_share_a"], substituted / len(mine))
        # Every valid answer was C; only the substituted fallbacks were D.
        if substituted < len(mine):
            assert row["valid_cooperation_rate_a"] == 1.0
        assert math.isclose(row["cooperation_rate_a"], 1 - substituted / len(mine))
        assert row["substituted_actions_b"] == 0 and row["substituted_share_b"] == 0
        assert row["valid_cooperation_rate_b"] == row["cooperation_rate_b"]
        shares.append(substituted / len(mine))
    assert max(shares) > 0, "flawed_answers.yaml: fallback_often substituted nothing"
    condition = conditions.loc["fallback_often"]
    assert condition["valid_cooperation_rate_a"] == 1.0
    assert min(shares) <= condition["substituted_share_a"] <= max(shares)


def test_summary_shows_the_substituted_share(flawed_run):
    _, stdout = flawed_run
    assert "subst" in stdout.lower(), stdout


def test_viewer_shows_the_substituted_share(flawed_run, tmp_path, monkeypatch):
    run_dir, _ = flawed_run
    shown = viewer_texts(open_viewer(run_dir, tmp_path, monkeypatch))
    assert any("substituted" in text.lower() for text in shown), shown


# --- case 10: collapse censoring and bounded intervals -------------------------------------------


def test_collapse_is_censored_when_a_match_is_too_short(collapse_run):
    replicates, conditions = aggregates(collapse_run)
    assert not missing_columns(replicates, ["collapse_determinable", "collapsed"])
    assert not missing_columns(conditions, ["collapse_rate"])
    for replicate in range(4):
        short = replicates.loc[("too_short", replicate)]
        assert not short["collapse_determinable"] and pd.isna(short["collapsed"])
        collapsed = replicates.loc[("collapses", replicate)]
        assert collapsed["collapse_determinable"] and collapsed["collapsed"]
        never = replicates.loc[("never_collapses", replicate)]
        assert never["collapse_determinable"] and not never["collapsed"]
    assert pd.isna(conditions.loc["too_short", "collapse_rate"])
    assert conditions.loc["collapses", "collapse_rate"] == 1.0
    assert conditions.loc["never_collapses", "collapse_rate"] == 0.0


def test_time_to_collapse_mean_covers_the_matches_that_collapsed(collapse_run):
    replicates, conditions = aggregates(collapse_run)
    for condition, row in conditions.iterrows():
        values = replicates.loc[condition]["time_to_collapse"].dropna()
        if values.empty:
            assert pd.isna(row["time_to_collapse"]), condition
        else:
            assert math.isclose(row["time_to_collapse"], values.mean()), condition
            assert row["time_to_collapse_n"] == len(values), condition


def _wilson(successes: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def test_confidence_intervals_stay_within_the_metric_range(collapse_run):
    _, conditions = aggregates(collapse_run)
    outside = []
    for metric in [*RATE_METRICS, "collapse_rate"]:
        if f"{metric}_ci_low" not in conditions.columns:
            outside.append(f"{metric}: no interval columns")
            continue
        for condition, row in conditions.iterrows():
            lo, hi = row[f"{metric}_ci_low"], row[f"{metric}_ci_high"]
            if pd.notna(lo) and not (0 <= lo <= hi <= 1):
                outside.append(f"{condition} {metric} CI {lo:.3f}..{hi:.3f}")
    # A round's interval is at least 1 and unbounded above: the longest match seen is no bound
    # on a mean (issue 42).
    for condition, row in conditions.iterrows():
        lo, hi = row["time_to_collapse_ci_low"], row["time_to_collapse_ci_high"]
        if pd.notna(lo) and not (1 <= lo <= row["time_to_collapse"] <= hi):
            outside.append(f"{condition} time_to_collapse CI {lo:.2f}..{hi:.2f}")
    assert not outside, outside
    for condition, collapsed in (("collapses", 4), ("never_collapses", 0)):
        low, high = _wilson(collapsed, 4)
        row = conditions.loc[condition]
        assert math.isclose(row["collapse_rate_ci_low"], low, abs_tol=1e-9), condition
        assert math.isclose(row["collapse_rate_ci_high"], high, abs_tol=1e-9), condition


# --- case 11: common random numbers --------------------------------------------------------------


def test_geometric_match_lengths_are_common_across_conditions(crn_run):
    replicates, _ = aggregates(crn_run)
    lengths = replicates["n_rounds"].unstack("condition")
    assert lengths.nunique().max() > 1, "the horizon drew one length for every replicate"
    unequal = lengths[lengths.nunique(axis=1) > 1]
    assert unequal.empty, f"replicates whose length differs across conditions:\n{unequal}"


def test_gtft_draws_are_common_across_conditions(crn_run):
    rounds = read_rounds(crn_run)
    different = []
    for replicate in range(8):
        first = moves(rounds, "gtft_vs_alld", replicate)
        again = moves(rounds, "gtft_vs_alld_again", replicate)
        common = min(len(first), len(again))
        if first[:common] != again[:common]:
            different.append(f"replicate {replicate}: {first[:common]} vs {again[:common]}")
    assert not different, different


def test_adding_a_condition_changes_no_other_condition(crn_run, tmp_path):
    alone = write_config(
        tmp_path,
        "alone.yaml",
        (FIXTURES / "common_random_numbers.yaml")
        .read_text()
        .split("  - name: gtft_vs_alld_again")[0],
    )
    # dealt with the grid run's key (another runs folder has a key of its own)
    pinned = [f"run.deal_key_file={crn_run / 'deal.key'}"]
    outcome = run_experiment_file(alone, pinned, output_dir=tmp_path / "runs", run_id="alone")
    assert outcome.status == "complete", outcome.error

    def key(row):
        return (row["replicate"], row["round_index"], row["agent_a_action"], row["agent_b_action"])

    together = [key(r) for r in read_rounds(crn_run) if r["condition"] == "gtft_vs_alld"]
    assert together == [key(r) for r in read_rounds(outcome.run_dir)]


# --- case 15: pooled rates -----------------------------------------------------------------------


def test_condition_rows_carry_pooled_per_round_rates(crn_run):
    _, conditions = aggregates(crn_run)
    pooled = ["cooperation_rate_pooled", "cooperation_rate_a_pooled", "cooperation_rate_b_pooled"]
    assert not missing_columns(conditions, pooled)
    rounds = [r for r in read_rounds(crn_run) if r["condition"] == "gtft_vs_alld"]
    c_a = sum(r["agent_a_action"] == "C" for r in rounds)
    c_b = sum(r["agent_b_action"] == "C" for r in rounds)
    row = conditions.loc["gtft_vs_alld"]
    assert math.isclose(row["cooperation_rate_a_pooled"], c_a / len(rounds))
    assert math.isclose(row["cooperation_rate_b_pooled"], c_b / len(rounds))
    assert math.isclose(row["cooperation_rate_pooled"], (c_a + c_b) / (2 * len(rounds)))


# --- case 16: stable column types ----------------------------------------------------------------


def test_aggregates_of_two_runs_read_together(tmp_path):
    files = []
    for name in ("never_collapses", "always_collapses"):
        outcome = run_experiment_file(
            FIXTURES / f"{name}.yaml", [], output_dir=tmp_path / "runs", run_id=name
        )
        files.append(outcome.run_dir / "aggregates.parquet")
    schemas = [pq.read_schema(path) for path in files]
    differ = [
        f"{a.name}: {a.type} vs {b.type}"
        for a, b in zip(schemas[0], schemas[1], strict=True)
        if a.type != b.type
    ]
    assert not differ, differ
    for ordered in (files, files[::-1]):
        table = pa_dataset.dataset([str(p) for p in ordered], format="parquet").to_table()
        assert table.num_rows == sum(pq.read_metadata(p).num_rows for p in files)
