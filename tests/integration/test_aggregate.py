"""aggregates.parquet against hand-computed values, and `pdbench aggregate` as a pure, idempotent
function of rounds.jsonl + run_manifest.json (torn last lines included).

The experiment (tests/fixtures/experiments/metrics.yaml) plays classic policies whose moves are
known: TFT vs ALLD, WSLS vs ALLD, GRIM vs TFT, ALLC vs ALLC over 10 rounds, and GTFT vs ALLD over
10 rounds and over a geometric horizon, 5 replicates each, collapse k=3, threshold=0.1. Expected
numbers are written out by hand, or (for GTFT, which is random) computed here from its stored moves
with this file's own loops, never with pdbench.analysis.metrics.behaviour.
"""

from __future__ import annotations

import math
import shutil
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
import orjson
import pandas as pd
import pyarrow.parquet as pq
import pytest

from pdbench.games.matrix.stored import as_rounds
from pdbench.runners.experiment import run_experiment
from pdbench.runners.prepare import load

ROOT = Path(__file__).resolve().parents[2]
METRICS = ROOT / "tests" / "fixtures" / "experiments" / "metrics.yaml"
REPLICATES = 5
K, THRESHOLD = 3, 0.1
T_975_DF4 = 2.7764451051977987  # Student t quantile, 0.975, 4 degrees of freedom
Z_975 = 1.959963984540054  # the normal quantile
PD = {("C", "C"): (3, 3), ("C", "D"): (0, 5), ("D", "C"): (5, 0), ("D", "D"): (1, 1)}


# --- helpers -----------------------------------------------------------------------------------


def run_cli(monkeypatch, *args: str) -> int:
    """`pdbench <args>` through the console entry point, in this process; returns the exit code."""
    from pdbench.cli import main

    monkeypatch.setattr(sys, "argv", ["pdbench", *args])
    try:
        main()
    except SystemExit as done:
        return done.code or 0
    return 0


def read_rounds(run_dir: Path) -> list[dict]:
    """Its rounds as round records (a 2x2 run's turn lines through the readers' projection)."""
    data = (run_dir / "rounds.jsonl").read_bytes()
    return list(as_rounds(orjson.loads(line) for line in data.split(b"\n") if line))


def moves(run_dir: Path) -> dict[tuple[str, int], tuple[str, str]]:
    """(condition, replicate) -> (a's moves, b's moves) as strings like "CDD"."""
    found: dict[tuple[str, int], list[dict]] = defaultdict(list)
    for record in read_rounds(run_dir):
        found[(record["condition"], record["replicate"])].append(record)
    out = {}
    for key, records in found.items():
        records.sort(key=lambda r: r["round_index"])
        out[key] = (
            "".join(r["agent_a_action"] for r in records),
            "".join(r["agent_b_action"] for r in records),
        )
    return out


def aggregate_rows(run_dir: Path) -> list[dict]:
    """The parquet rows as Python values: a null stays None (a NaN would stay NaN)."""
    return pq.read_table(run_dir / "aggregates.parquet").to_pylist()


def replicate_row(rows: list[dict], condition: str, replicate: int) -> dict:
    found = [
        r
        for r in rows
        if r["level"] == "replicate" and r["condition"] == condition and r["replicate"] == replicate
    ]
    assert len(found) == 1, f"{len(found)} replicate rows for {condition}/{replicate}"
    return found[0]


def condition_row(rows: list[dict], condition: str) -> dict:
    found = [r for r in rows if r["level"] == "condition" and r["condition"] == condition]
    assert len(found) == 1, f"{len(found)} condition rows for {condition}"
    return found[0]


def hand_metrics(a: str, b: str) -> dict:
    """Every scalar metric of one match, by plain loops over the move strings."""
    n = len(a)
    pay_a = [PD[(x, y)][0] for x, y in zip(a, b, strict=True)]
    pay_b = [PD[(x, y)][1] for x, y in zip(a, b, strict=True)]

    def responses(own: str, other: str) -> tuple[float | None, float | None]:
        provoked = retaliated = 0
        for t in range(1, n):
            if other[t - 1] == "D":
                provoked += 1
                retaliated += own[t] == "D"
        if provoked == 0:
            return None, None
        return retaliated / provoked, (provoked - retaliated) / provoked

    collapse = None
    for t in range(n - K + 1):
        window = a[t : t + K] + b[t : t + K]
        if window.count("C") / (2 * K) <= THRESHOLD:
            collapse = t + 1
            break
    ret_a, forg_a = responses(a, b)
    ret_b, forg_b = responses(b, a)
    return {
        "n_rounds": n,
        "total_payoff_a": sum(pay_a),
        "total_payoff_b": sum(pay_b),
        "cooperation_rate_a": a.count("C") / n,
        "cooperation_rate_b": b.count("C") / n,
        "cooperation_rate": (a + b).count("C") / (2 * n),
        "retaliation_rate_a": ret_a,
        "retaliation_rate_b": ret_b,
        "forgiveness_rate_a": forg_a,
        "forgiveness_rate_b": forg_b,
        "exploitability_payoff_gap_a": sum(pay_b) - sum(pay_a),
        "exploitability_payoff_gap_b": sum(pay_a) - sum(pay_b),
        "time_to_collapse": collapse,
    }


def assert_metrics(row: dict, expected: dict, where: str) -> None:
    for metric, want in expected.items():
        got = row[metric]
        if want is None:
            assert got is None, f"{where} {metric}: expected null, got {got!r}"
        else:
            assert got is not None and not (isinstance(got, float) and math.isnan(got)), (
                f"{where} {metric}: expected {want}, got {got!r}"
            )
            assert got == pytest.approx(want), f"{where} {metric}: expected {want}, got {got}"


# --- the run -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def metrics_run(tmp_path_factory):
    base = tmp_path_factory.mktemp("metrics")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PDBENCH_CACHE_DIR", str(base / "cache"))
        loaded = load(
            METRICS, [f"run.output_dir={base / 'runs'}"], run_id="metrics", project_root=ROOT
        )
        outcome = run_experiment(loaded)
    assert outcome.status == "complete"
    return loaded, base / "runs" / "metrics"


@pytest.fixture(scope="module")
def rows(metrics_run):
    return aggregate_rows(metrics_run[1])


@pytest.fixture
def run_copy(metrics_run, tmp_path):
    """A private copy of the run dir for tests that change files."""
    return shutil.copytree(metrics_run[1], tmp_path / "metrics")


# --- known sequences -------------------------------------------------------------------------

# Ten rounds of CC, which GRIM vs TFT and ALLC vs ALLC both play: the same moves, the same numbers.
NOBODY_DEFECTS = {
    "n_rounds": 10,
    "total_payoff_a": 30.0,
    "total_payoff_b": 30.0,
    "cooperation_rate_a": 1.0,
    "cooperation_rate_b": 1.0,
    "cooperation_rate": 1.0,
    "retaliation_rate_a": None,  # nobody is ever provoked: no denominator
    "forgiveness_rate_a": None,
    "retaliation_rate_b": None,
    "forgiveness_rate_b": None,
    "exploitability_payoff_gap_a": 0.0,
    "exploitability_payoff_gap_b": 0.0,
    "time_to_collapse": None,
}

KNOWN = {
    # TFT: C then copies D: CDDDDDDDDD vs DDDDDDDDDD.
    "tft_vs_alld": {
        "n_rounds": 10,
        "total_payoff_a": 9.0,  # 0 + 9 x 1
        "total_payoff_b": 14.0,  # 5 + 9 x 1
        "cooperation_rate_a": 0.1,
        "cooperation_rate_b": 0.0,
        "cooperation_rate": 0.05,
        "retaliation_rate_a": 1.0,  # 9 of 9
        "forgiveness_rate_a": 0.0,
        "retaliation_rate_b": 1.0,  # a defected at rounds 2..9: b answered D 8 of 8
        "forgiveness_rate_b": 0.0,
        "exploitability_payoff_gap_a": 5.0,
        "exploitability_payoff_gap_b": -5.0,
        "time_to_collapse": 2,  # rounds 1-3 hold 1 C in 6 (> 0.1); rounds 2-4 hold none
    },
    # WSLS loses every round against ALLD, so it switches every round: CDCDCDCDCD.
    "wsls_vs_alld": {
        "n_rounds": 10,
        "total_payoff_a": 5.0,  # 5 x 0 + 5 x 1
        "total_payoff_b": 30.0,  # 5 x 5 + 5 x 1
        "cooperation_rate_a": 0.5,
        "cooperation_rate_b": 0.0,
        "cooperation_rate": 0.25,
        "retaliation_rate_a": 5 / 9,  # D at rounds 2, 4, 6, 8, 10 of 9 provocations
        "forgiveness_rate_a": 4 / 9,
        "retaliation_rate_b": 1.0,  # a's D at rounds 2, 4, 6, 8 (the one at 10 has no reply)
        "forgiveness_rate_b": 0.0,
        "exploitability_payoff_gap_a": 25.0,
        "exploitability_payoff_gap_b": -25.0,
        "time_to_collapse": None,  # every 3 rounds hold a C of 6 actions: 1/6 > 0.1
    },
    "grim_vs_tft": NOBODY_DEFECTS,
    "allc_vs_allc": NOBODY_DEFECTS,
}
KNOWN_MOVES = {
    "tft_vs_alld": ("C" + "D" * 9, "D" * 10),
    "wsls_vs_alld": ("CD" * 5, "D" * 10),
    "grim_vs_tft": ("C" * 10, "C" * 10),
    "allc_vs_allc": ("C" * 10, "C" * 10),
}


@pytest.mark.parametrize("condition", sorted(KNOWN))
def test_known_sequences_give_hand_computed_metrics(metrics_run, rows, condition):
    played = moves(metrics_run[1])
    expected = KNOWN[condition]
    for replicate in range(REPLICATES):
        assert played[(condition, replicate)] == KNOWN_MOVES[condition]
        assert_metrics(
            replicate_row(rows, condition, replicate), expected, f"{condition}/{replicate}"
        )
        # My own loops agree with the numbers written out above.
        assert hand_metrics(*KNOWN_MOVES[condition]) == pytest.approx(expected)
    # Identical replicates: the mean is the value, the spread is 0, n counts defined values.
    row = condition_row(rows, condition)
    assert row["n_replicates"] == REPLICATES
    for metric, want in expected.items():
        if want is None:
            assert row[metric] is None, f"{condition} {metric}: a rate with no denominator is null"
            assert row[f"{metric}_n"] == 0
            assert row[f"{metric}_std"] is None
            assert row[f"{metric}_ci_low"] is None and row[f"{metric}_ci_high"] is None
        else:
            assert row[metric] == pytest.approx(want), (condition, metric)
            assert row[f"{metric}_n"] == REPLICATES
            assert row[f"{metric}_std"] == pytest.approx(0.0, abs=1e-12)
            low, high = _equal_values_interval(metric, want)
            assert row[f"{metric}_ci_low"] == pytest.approx(low), (condition, metric)
            assert row[f"{metric}_ci_high"] == pytest.approx(high), (condition, metric)


def _equal_values_interval(metric: str, value: float) -> tuple[float, float]:
    """Every replicate gave `value`: no spread, so a zero-width interval, except for a rate at 0
    or 1, where the replicates cannot show the spread a share may have: Wilson's interval for
    REPLICATES Bernoulli values (issue 42)."""
    from pdbench.analysis.metrics.catalog import metric as catalog_metric

    if catalog_metric(metric).kind != "rate" or 0 < value < 1:
        return value, value
    edge = Z_975**2 / (REPLICATES + Z_975**2)
    return (0.0, edge) if value == 0 else (1 - edge, 1.0)


def _bounded_rate_interval(values: list[float]) -> tuple[float, float]:
    """Wilson's interval at the effective sample size p(1 - p) / var(mean), scaled by
    (z / t_{n-1})^2 (pdbench.analysis.stats.bounded), written out."""
    n = len(values)
    p = sum(values) / n
    variance = sum((v - p) ** 2 for v in values) / (n - 1) / n
    n_star = p * (1 - p) / variance * (Z_975 / T_975_DF4) ** 2
    z2 = Z_975**2
    centre = (p + z2 / (2 * n_star)) / (1 + z2 / n_star)
    half = Z_975 / (1 + z2 / n_star) * math.sqrt(p * (1 - p) / n_star + z2 / (4 * n_star**2))
    return centre - half, centre + half


def test_rates_with_zero_denominator_are_null_never_zero(metrics_run):
    """ALLC vs ALLC: nobody is ever provoked, so retaliation and forgiveness are undefined."""
    table = pq.read_table(metrics_run[1] / "aggregates.parquet")
    conditions = table.column("condition").to_pylist()
    for metric in (
        "retaliation_rate_a",
        "retaliation_rate_b",
        "forgiveness_rate_a",
        "forgiveness_rate_b",
    ):
        column = table.column(metric)
        for index, condition in enumerate(conditions):
            if condition == "allc_vs_allc":
                assert not column[index].is_valid, (
                    f"{metric} of allc_vs_allc row {index} is {column[index]}, not null"
                )


def test_gtft_plays_its_seeded_draws(metrics_run):
    """GTFT's stored moves follow its documented rule on the seed the manifest records: C in
    round 1, then (ALLD always defects) C exactly when the round's uniform draw is < 1/3."""
    manifest = orjson.loads((metrics_run[1] / "run_manifest.json").read_bytes())
    seeds = {(s["condition"], s["replicate"]): s["agent_a"] for s in manifest["seeds"]}
    played = moves(metrics_run[1])
    for condition in ("gtft_vs_alld", "gtft_vs_alld_geometric"):
        for replicate in range(REPLICATES):
            a, b = played[(condition, replicate)]
            assert set(b) == {"D"}
            draws = np.random.Generator(np.random.PCG64(seeds[(condition, replicate)])).random(
                len(a)
            )
            expected = "C" + "".join("C" if d < 1 / 3 else "D" for d in draws[1:])
            assert a == expected, (condition, replicate)


@pytest.mark.parametrize("condition", ["gtft_vs_alld", "gtft_vs_alld_geometric"])
def test_gtft_vs_alld_metrics_match_hand_computation_from_stored_moves(
    metrics_run, rows, condition
):
    played = moves(metrics_run[1])
    per_replicate = []
    for replicate in range(REPLICATES):
        expected = hand_metrics(*played[(condition, replicate)])
        per_replicate.append(expected)
        assert_metrics(
            replicate_row(rows, condition, replicate), expected, f"{condition}/{replicate}"
        )
    row = condition_row(rows, condition)
    for metric in per_replicate[0]:
        defined = [m[metric] for m in per_replicate if m[metric] is not None]
        assert row[f"{metric}_n"] == len(defined), (condition, metric)
        if defined:
            assert row[metric] == pytest.approx(sum(defined) / len(defined)), (condition, metric)
        else:
            assert row[metric] is None, (condition, metric)


def test_condition_row_has_mean_std_n_and_t_confidence_interval(metrics_run, rows):
    played = moves(metrics_run[1])
    values = [played[("gtft_vs_alld", r)][0].count("C") / 10 for r in range(REPLICATES)]
    assert len(set(values)) > 1, "GTFT's replicates should differ (own seeds per replicate)"
    mean = sum(values) / REPLICATES
    std = math.sqrt(sum((v - mean) ** 2 for v in values) / (REPLICATES - 1))
    row = condition_row(rows, "gtft_vs_alld")
    assert row["n_replicates"] == REPLICATES
    assert row["cooperation_rate_a"] == pytest.approx(mean)
    assert row["cooperation_rate_a_std"] == pytest.approx(std)
    assert row["cooperation_rate_a_n"] == REPLICATES
    # A rate's interval: Student t's in the interior, bent inside [0, 1] (issue 42).
    low, high = _bounded_rate_interval(values)
    assert row["cooperation_rate_a_ci_low"] == pytest.approx(low)
    assert row["cooperation_rate_a_ci_high"] == pytest.approx(high)
    # A payoff keeps Student's t interval.
    totals = [replicate_row(rows, "gtft_vs_alld", r)["total_payoff_a"] for r in range(REPLICATES)]
    total_mean = sum(totals) / REPLICATES
    total_std = math.sqrt(sum((v - total_mean) ** 2 for v in totals) / (REPLICATES - 1))
    half = T_975_DF4 * total_std / math.sqrt(REPLICATES)
    assert row["total_payoff_a_ci_low"] == pytest.approx(total_mean - half)
    assert row["total_payoff_a_ci_high"] == pytest.approx(total_mean + half)
    assert row["replicate"] is None and row["level"] == "condition"


def test_cooperation_rate_over_time_at_both_levels(metrics_run, rows):
    played = moves(metrics_run[1])
    condition = "gtft_vs_alld_geometric"
    series = []
    for replicate in range(REPLICATES):
        a, b = played[(condition, replicate)]
        expected = [((x == "C") + (y == "C")) / 2 for x, y in zip(a, b, strict=True)]
        stored = orjson.loads(
            replicate_row(rows, condition, replicate)["cooperation_rate_over_time"]
        )
        assert stored == pytest.approx(expected), (condition, replicate)
        series.append(expected)
    lengths = [len(s) for s in series]
    assert len(set(lengths)) > 1, f"geometric replicates should differ in length: {lengths}"

    stored = orjson.loads(condition_row(rows, condition)["cooperation_rate_over_time"])
    assert len(stored) == max(lengths)
    for index, point in enumerate(stored):
        reached = [s[index] for s in series if len(s) > index]
        assert point["round"] == index + 1
        assert point["n"] == len(reached)
        assert point["mean"] == pytest.approx(sum(reached) / len(reached))

    # A fixed horizon: every replicate reaches every round.
    fixed = orjson.loads(condition_row(rows, "tft_vs_alld")["cooperation_rate_over_time"])
    assert [p["round"] for p in fixed] == list(range(1, 11))
    assert [p["n"] for p in fixed] == [REPLICATES] * 10
    assert [p["mean"] for p in fixed] == pytest.approx([0.5] + [0.0] * 9)


def test_collapse_settings_come_from_the_manifest(metrics_run):
    manifest = orjson.loads((metrics_run[1] / "run_manifest.json").read_bytes())
    assert manifest["collapse"] == {"k": K, "threshold": THRESHOLD}


# --- pdbench aggregate ---------------------------------------------------------------------------


def assert_same_aggregates(run_dir: Path, reference: Path) -> None:
    pd.testing.assert_frame_equal(
        pd.read_parquet(run_dir / "aggregates.parquet"),
        pd.read_parquet(reference / "aggregates.parquet"),
    )


def test_aggregate_twice_gives_identical_tables(metrics_run, run_copy, monkeypatch):
    written_by_run = pd.read_parquet(metrics_run[1] / "aggregates.parquet")
    assert run_cli(monkeypatch, "aggregate", str(run_copy)) == 0
    first = pd.read_parquet(run_copy / "aggregates.parquet")
    assert run_cli(monkeypatch, "aggregate", str(run_copy)) == 0
    second = pd.read_parquet(run_copy / "aggregates.parquet")
    pd.testing.assert_frame_equal(first, second)
    pd.testing.assert_frame_equal(first, written_by_run)


def test_aggregate_needs_only_rounds_and_manifest(metrics_run, run_copy, monkeypatch):
    (run_copy / "aggregates.parquet").unlink()
    (run_copy / "matches.jsonl").unlink()
    (run_copy / "deal.key").unlink()  # the key deals matches; aggregating reads none
    # (.lock is the run dir's writer lock, .pdbench-run its marker: no data)
    kept = sorted(p.name for p in run_copy.iterdir() if p.name not in (".lock", ".pdbench-run"))
    assert kept == ["rounds.jsonl", "run_manifest.json"]
    assert run_cli(monkeypatch, "aggregate", str(run_copy)) == 0
    assert_same_aggregates(run_copy, metrics_run[1])


TORN = b'{"run_id":"metrics","condition":"tft_vs_alld","replicate":0,"round_index":11,"agent_a_ac'


def tear_last_line(run_dir: Path) -> None:
    """What a crash mid-write leaves: rounds.jsonl ending in half a line."""
    with (run_dir / "rounds.jsonl").open("ab") as handle:
        handle.write(TORN)


def run_again(loaded, run_dir: Path, monkeypatch, tmp_path: Path):
    """The same experiment run again into `run_dir`, as the next command would (fresh cache)."""
    monkeypatch.setenv("PDBENCH_CACHE_DIR", str(tmp_path / "cache"))
    outcome = run_experiment(loaded, run_dir=run_dir, run_id=loaded.run_id)
    assert outcome.status == "complete"
    return outcome


def test_a_torn_last_line_is_dropped_by_aggregate(metrics_run, run_copy, monkeypatch):
    tear_last_line(run_copy)
    assert run_cli(monkeypatch, "aggregate", str(run_copy)) == 0
    assert_same_aggregates(run_copy, metrics_run[1])


def test_a_torn_last_line_is_dropped_by_the_next_run(metrics_run, run_copy, monkeypatch, tmp_path):
    loaded, original = metrics_run
    original_bytes = (original / "rounds.jsonl").read_bytes()
    tear_last_line(run_copy)
    outcome = run_again(loaded, run_copy, monkeypatch, tmp_path)
    assert outcome.matches_played == 0
    assert (run_copy / "rounds.jsonl").read_bytes() == original_bytes
    assert_same_aggregates(run_copy, original)


def test_a_torn_line_after_unrecorded_matches_is_dropped_and_they_are_replayed(
    metrics_run, run_copy, monkeypatch, tmp_path
):
    """A crash after the last matches' rounds were written but before the ledger said so, in the
    middle of a further line: the next run cuts back and plays those matches again, once."""
    loaded, original = metrics_run
    ledger = (run_copy / "matches.jsonl").read_bytes().splitlines(keepends=True)
    (run_copy / "matches.jsonl").write_bytes(b"".join(ledger[:-3]))
    tear_last_line(run_copy)
    outcome = run_again(loaded, run_copy, monkeypatch, tmp_path)
    assert outcome.matches_played == 3

    def strip(rounds: list[dict]) -> list[dict]:
        return [{k: v for k, v in r.items() if k != "timestamp_utc"} for r in rounds]

    assert strip(read_rounds(run_copy)) == strip(read_rounds(original))
    assert (run_copy / "rounds.jsonl").read_bytes().endswith(b"\n")
    assert_same_aggregates(run_copy, original)


def test_geometric_rounds_record_their_horizon_and_planned_length(metrics_run):
    manifest = orjson.loads((metrics_run[1] / "run_manifest.json").read_bytes())
    planned = {(s["condition"], s["replicate"]): s["n_rounds"] for s in manifest["seeds"]}
    lengths: dict[tuple[str, int], int] = defaultdict(int)
    for record in read_rounds(metrics_run[1]):
        key = (record["condition"], record["replicate"])
        lengths[key] += 1
        if record["condition"] == "gtft_vs_alld_geometric":
            assert record["horizon_type"] == "geometric"
            assert record["fixed_n"] is None and record["stop_prob"] == 0.15
            assert record["round_index"] <= 40  # max_rounds
        else:
            assert record["horizon_type"] == "fixed"
            assert record["fixed_n"] == 10 and record["stop_prob"] is None
    assert dict(lengths) == planned
