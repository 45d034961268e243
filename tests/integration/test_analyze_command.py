"""`pdbench analyze` on real runs: each classic policy played through pdbench against RANDOM(0.5)
is named by SFEM (weight >= 0.95) and has its textbook memory-one vector; the mock model's
policy-like strategies are named the same way through the LLM path; analysis.parquet is the same
file twice; aborted matches are left out and counted; factor levels are compared paired.

The LLM path covers the mock's own rules (cooperate = ALLC, defect = ALLD, reciprocate = TFT).
GRIM, WSLS and the other rules need a mock that answers as any policy, which does not exist in
this branch yet; they are identified through the policy path.
"""

from __future__ import annotations

import contextlib
import io
import math
import sys
from pathlib import Path

import pandas as pd
import pytest

from pdbench.runners.experiment import run_experiment
from pdbench.runners.prepare import load

ROOT = Path(__file__).resolve().parents[2]
CANDIDATES = ("allc", "alld", "tft", "stft", "grim", "wsls", "tf2t", "alternator")
# Textbook memory-one vectors (P(C) after CC, CD, DC, DD; own move first). ALLC never has an
# own D before a round, ALLD never an own C: those outcomes never occur (NaN).
MEMORY_ONE = {
    "tft": (1, 0, 1, 0),
    "wsls": (1, 0, 0, 1),
    "allc": (1, 1, math.nan, math.nan),
    "alld": (math.nan, math.nan, 0, 0),
}


def run_cli(monkeypatch, *args: str) -> int:
    from pdbench.cli import main

    monkeypatch.setattr(sys, "argv", ["pdbench", *args])
    try:
        main()
    except SystemExit as done:
        return int(done.code or 0)
    return 0


def play(tmp_path: Path, body: str, *, name: str = "experiment") -> Path:
    """Run an experiment file (run settings prepended) into tmp_path; return its run dir."""
    path = tmp_path / f"{name}.yaml"
    path.write_text(
        "run:\n"
        f"  run_id: {name}\n"
        f"  output_dir: {tmp_path / 'runs'}\n"
        "  seed: 3\n"
        "  store_prompts: false\n" + body
    )
    outcome = run_experiment(load(path, project_root=ROOT))
    return outcome.run_dir


def analysis(run_dir: Path, table: str, name: str = "analysis.parquet") -> pd.DataFrame:
    frame = pd.read_parquet(run_dir / name)
    return frame[frame["table"] == table].dropna(axis=1, how="all")


def sfem_weights(
    run_dir: Path, condition: str, side: str = "a", name: str = "analysis.parquet"
) -> dict[str, float]:
    rows = analysis(run_dir, "sfem", name)
    rows = rows[(rows["condition"] == condition) & (rows["side"] == side)]
    return dict(zip(rows["strategy"], rows["weight"], strict=True))


def nearest(run_dir: Path, condition: str, side: str = "a") -> str:
    rows = analysis(run_dir, "sfem")
    rows = rows[(rows["condition"] == condition) & (rows["side"] == side) & rows["nearest"]]
    return str(rows["strategy"].iloc[0])


def fingerprint(run_dir: Path, condition: str, side: str = "a") -> list[float]:
    rows = analysis(run_dir, "fingerprint")
    rows = rows[(rows["condition"] == condition) & (rows["side"] == side)].set_index("outcome")
    return [float(rows.loc[outcome, "p_c"]) for outcome in ("CC", "CD", "DC", "DD")]


def assert_vector(got: list[float], want: tuple[float, ...], where: str) -> None:
    for outcome, g, w in zip(("CC", "CD", "DC", "DD"), got, want, strict=True):
        assert (math.isnan(g) and math.isnan(w)) or g == w, f"{where} P(C|{outcome}) = {g}, not {w}"


@pytest.fixture(scope="module")
def policies_vs_random(tmp_path_factory) -> Path:
    """Every deterministic SFEM candidate against RANDOM(0.5): 20 matches of 40 rounds each."""
    tmp_path = tmp_path_factory.mktemp("identify")
    conditions = "".join(
        f"  - {{name: {policy}_vs_random, agent_a: {policy}, agent_b: random}}\n"
        for policy in CANDIDATES
    )
    run_dir = play(
        tmp_path,
        "  replicates: 20\n"
        "game: {id: pd}\n"
        "horizon: {type: fixed, rounds: 40}\n"
        "conditions:\n" + conditions,
    )
    return run_dir


# The module run's default analysis (analysis.parquet), made once and read by the tests below;
# each test that analyses the run again with the same options must write the same bytes.
DEFAULT_ANALYSIS = ("--bootstrap", "10", "--seed", "7")


@pytest.fixture(scope="module")
def analysed(policies_vs_random) -> tuple[bytes, str]:
    """`pdbench analyze` of the module run with the default options (10 resamples: the tests
    read point estimates, fingerprints, comparisons and the file's bytes, never an SFEM
    interval, and 10 resamples still exercise the seeded bootstrap): (its bytes, its stdout)."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            code = run_cli(monkeypatch, "analyze", str(policies_vs_random), *DEFAULT_ANALYSIS)
    assert code == 0
    return (policies_vs_random / "analysis.parquet").read_bytes(), printed.getvalue()


def test_every_candidate_policy_is_named_by_sfem_against_random(policies_vs_random, analysed):
    assert (policies_vs_random / "analysis.parquet").read_bytes() == analysed[0]
    for policy in CANDIDATES:
        condition = f"{policy}_vs_random"
        weights = sfem_weights(policies_vs_random, condition)
        assert weights[policy] >= 0.95, f"{policy}: {weights}"
        assert nearest(policies_vs_random, condition) == policy
        tremble = analysis(policies_vs_random, "sfem")
        tremble = tremble[(tremble["condition"] == condition) & (tremble["side"] == "a")]
        assert (tremble["tremble"] < 1e-9).all()  # a policy never trembles
    for policy, vector in MEMORY_ONE.items():
        assert_vector(fingerprint(policies_vs_random, f"{policy}_vs_random"), vector, policy)
    # RANDOM(0.5) itself cooperates about half the time whatever happened before.
    random_side = fingerprint(policies_vs_random, "tft_vs_random", side="b")
    assert all(0.35 < p < 0.65 for p in random_side), random_side


@pytest.mark.slow
def test_analysis_parquet_is_the_same_file_twice(policies_vs_random, analysed, monkeypatch, capsys):
    # the first analysis is the module's (the same options): this is the second, in a later test
    first, first_out = analysed
    assert "Which strategy each agent plays" in first_out and "tft_vs_random" in first_out
    assert run_cli(monkeypatch, "analyze", str(policies_vs_random), *DEFAULT_ANALYSIS) == 0
    assert (policies_vs_random / "analysis.parquet").read_bytes() == first
    out = capsys.readouterr().out
    assert "Which strategy each agent plays" in out and "tft_vs_random" in out
    # Common random numbers: every pair of conditions shares its seeds, so all are paired.
    comparisons = analysis(policies_vs_random, "comparison")
    assert len(comparisons) == len(CANDIDATES) * (len(CANDIDATES) - 1) // 2
    assert comparisons["paired"].all() and (comparisons["n_pairs"] == 20).all()
    assert (comparisons["p_holm"] >= comparisons["p_value"]).all()


def test_the_mock_models_rules_are_named_through_the_llm_path(tmp_path, monkeypatch):
    conditions = "".join(
        f"  - name: mock_{rule}_vs_random\n"
        f"    agent_a: {{ref: agent/llm_default.yaml, overrides: "
        f"{{provider: {{mock: {{strategy: {rule}}}}}}}}}\n"
        "    agent_b: random\n"
        for rule in ("cooperate", "defect", "reciprocate")
    )
    run_dir = play(
        tmp_path,
        "  replicates: 6\n"
        "game: {id: pd}\n"
        "horizon: {type: fixed, rounds: 25}\n"
        "provider: {name: mock, model: mock}\n"
        "conditions:\n" + conditions,
        name="llm_path",
    )
    # 5 resamples, not 30: the rules are named by the point estimates (weight, nearest) and the
    # fingerprint, which no resample changes; 5 still run the bootstrap of every agent
    assert run_cli(monkeypatch, "analyze", str(run_dir), "--bootstrap", "5") == 0
    for rule, policy in (("cooperate", "allc"), ("defect", "alld"), ("reciprocate", "tft")):
        condition = f"mock_{rule}_vs_random"
        assert sfem_weights(run_dir, condition)[policy] >= 0.95
        assert nearest(run_dir, condition) == policy
        assert_vector(fingerprint(run_dir, condition), MEMORY_ONE[policy], condition)


def test_aborted_matches_are_left_out_and_counted(tmp_path, monkeypatch, capsys):
    run_dir = play(
        tmp_path,
        "  replicates: 8\n"
        "game: {id: pd}\n"
        "horizon: {type: fixed, rounds: 15}\n"
        "provider: {name: mock, model: mock}\n"
        "conditions:\n"
        "  - name: flaky_llm_vs_tft\n"
        "    agent_a: {ref: agent/llm_default.yaml, overrides: {max_retries: 0, "
        "provider: {mock: {invalid_rate: 0.05}}}}\n"
        "    agent_b: tft\n"
        "  - {name: tft_vs_tft, agent_a: tft, agent_b: tft}\n",
        name="aborts",
    )
    ledger = pd.read_json(run_dir / "matches.jsonl", lines=True)
    aborted = int(ledger["error"].notna().sum())
    assert 0 < aborted < 8, "the fixture should abort some matches of the flaky condition"
    assert run_cli(monkeypatch, "analyze", str(run_dir), "--bootstrap", "20") == 0
    coverage = analysis(run_dir, "matches").set_index("condition")
    assert coverage.loc["flaky_llm_vs_tft", "matches_used"] == 8 - aborted
    assert coverage.loc["flaky_llm_vs_tft", "matches_left_out"] == aborted
    assert coverage.loc["tft_vs_tft", "matches_left_out"] == 0
    assert "aborted" in coverage.loc["flaky_llm_vs_tft", "note"]
    fingerprints = analysis(run_dir, "fingerprint")
    flaky = fingerprints[(fingerprints["condition"] == "flaky_llm_vs_tft")]
    assert (flaky["n_matches"] == 8 - aborted).all()
    out = capsys.readouterr().out
    assert f"{aborted} left out" in out and "left out of flaky_llm_vs_tft" in out


@pytest.mark.slow
def test_factor_levels_are_compared_paired_within_each_opponent(tmp_path, monkeypatch, capsys):
    conditions = "".join(
        f"  - name: {style}_vs_{opponent}\n"
        f"    factors: {{style: {style}, opponent: {opponent}}}\n"
        f"    agent_a: {{ref: agent/memory_one.yaml, overrides: {{params: {params}}}}}\n"
        f"    agent_b: {opponent}\n"
        for style, params in (
            ("generous", "{after_cc: 1, after_cd: 0.5, after_dc: 1, after_dd: 0.5}"),
            ("stingy", "{after_cc: 1, after_cd: 0.1, after_dc: 1, after_dd: 0.1}"),
        )
        for opponent in ("alld", "random")
    )
    run_dir = play(
        tmp_path,
        "  replicates: 30\n"
        "game: {id: pd}\n"
        "horizon: {type: fixed, rounds: 30}\n"
        "conditions:\n" + conditions,
        name="factors",
    )
    args = ("analyze", str(run_dir), "--factor", "style", "--reference", "generous")
    # 20 bootstrap draws, not 200: the comparisons checked here are sign-flip permutation tests
    # with t intervals (pdbench/analysis/stats/compare.py), which draw nothing from the bootstrap
    assert run_cli(monkeypatch, *args, "--metric", "cooperation_rate_a", "--bootstrap", "20") == 0
    # Named by what it asks (factor, reference, metric), beside any other analysis of the run.
    comparisons = analysis(
        run_dir,
        "comparison",
        "analysis-factor-style_ref-generous_metric-cooperation_rate_a.parquet",
    )
    assert list(zip(comparisons["condition_a"], comparisons["condition_b"], strict=True)) == [
        ("generous_vs_alld", "stingy_vs_alld"),
        ("generous_vs_random", "stingy_vs_random"),
    ]
    assert (comparisons["family"] == "style against style=generous").all()
    assert comparisons["paired"].all()
    # 0.5 vs 0.1 forgiveness is a large difference in cooperation: found in both families.
    assert (comparisons["difference"] < -0.15).all() and (comparisons["p_holm"] < 0.01).all()
    assert "style against style=generous" in capsys.readouterr().out
    # the default 500 resamples: a misspelt factor is refused before any strategy is estimated
    assert run_cli(monkeypatch, "analyze", str(run_dir), "--factor", "stlye") == 2
    assert 'no factor "stlye" (did you mean "style"?)' in capsys.readouterr().err


def test_fontana_options_name_their_estimator_and_add_random(
    policies_vs_random, analysed, monkeypatch
):
    args = ("analyze", str(policies_vs_random), "--sfem", "fontana", "--profile", "fontana")
    assert run_cli(monkeypatch, *args) == 0
    # the default analysis (the module's, made before this one) is left as it was
    assert (policies_vs_random / "analysis.parquet").read_bytes() == analysed[0]
    # another estimator is another question: its own file beside the default analysis
    theirs = "analysis-sfem-fontana_profile-fontana.parquet"
    sfem = analysis(policies_vs_random, "sfem", theirs)
    assert (sfem["estimator"] == "fontana per-match").all()
    assert "random" in set(sfem["strategy"])
    assert sfem_weights(policies_vs_random, "alld_vs_random", name=theirs)["alld"] == 1.0
    assert (
        analysis(policies_vs_random, "profile", theirs)["estimator"] == "fontana undefined as 0"
    ).all()
    assert (analysis(policies_vs_random, "sfem")["estimator"] == "pooled Dal Bo-Frechette").all()
    assert (analysis(policies_vs_random, "profile")["estimator"] == "undefined left out").all()
    assert run_cli(monkeypatch, "analyze", str(policies_vs_random), "--sfem", "fontanna") == 2


def test_identical_conditions_under_common_random_numbers_are_reported_as_such(
    tmp_path, monkeypatch, capsys
):
    conditions = "".join(
        f"  - {{name: {name}, agent_a: gtft, agent_b: random}}\n" for name in ("same_a", "same_b")
    )
    run_dir = play(
        tmp_path,
        "  replicates: 6\n"
        "game: {id: pd}\n"
        "horizon: {type: fixed, rounds: 20}\n"
        "conditions:\n" + conditions,
        name="crn",
    )
    assert run_cli(monkeypatch, "analyze", str(run_dir), "--bootstrap", "10") == 0
    (row,) = analysis(run_dir, "comparison").to_dict("records")
    assert row["paired"] and row["shared_streams"] and row["zero_variance"]
    assert row["interval"] == "Wilson (effective n) on paired differences"  # a rate
    assert "zero variance" in row["note"] and "common random numbers" in row["note"]
    assert "zero variance" in " ".join(capsys.readouterr().out.split())


def test_a_tournament_player_pooled_over_shared_streams_is_warned_about(
    tmp_path, monkeypatch, capsys
):
    run_dir = play(
        tmp_path,
        "  replicates: 4\n"
        "game: {id: pd}\n"
        "horizon: {type: fixed, rounds: 15}\n"
        "tournament:\n"
        "  agents: [tft, gtft, random]\n"
        "  self_play: false\n",
        name="pooled",
    )
    assert run_cli(monkeypatch, "analyze", str(run_dir), "--bootstrap", "10") == 0
    out = " ".join(capsys.readouterr().out.split())
    for name in ("fingerprint", "sfem", "profile"):
        rows = analysis(run_dir, name)
        pooled = rows[rows["scope"] == "player"]
        assert len(pooled) and pooled["note"].str.contains("share random streams").all(), name
        assert rows[rows["scope"] == "condition"]["note"].isna().all() if "note" in rows else True
    assert "warning: gtft (all its matches) pools 2 conditions" in out


def test_analyses_with_other_options_coexist(monkeypatch, capsys, tmp_path):
    """Issue 26: `--factor X` then `--factor Y` (or a --name) no longer overwrite each other;
    the default options keep writing analysis.parquet, as older runs have it."""
    # A run of its own with three conditions (two references and a third to compare them
    # with), not a copy of the 8-condition module run: each of the five analyses below then
    # costs a fraction, and which files coexist does not depend on the run's size.
    rows = "".join(
        f"  - {{name: {policy}_vs_random, agent_a: {policy}, agent_b: random}}\n"
        for policy in ("alld", "tft", "wsls")
    )
    run_dir = play(
        tmp_path,
        "  replicates: 6\ngame: {id: pd}\nhorizon: {type: fixed, rounds: 20}\nconditions:\n" + rows,
        name="coexist",
    )
    assert not list(run_dir.glob("analysis*.parquet"))
    conditions = sorted(pd.read_parquet(run_dir / "aggregates.parquet")["condition"].unique())
    first, second = conditions[0], conditions[1]
    # 2 resamples (the fewest the command takes), not 20: this test reads which files exist and
    # their comparisons (permutation tests), not an SFEM interval
    assert run_cli(monkeypatch, "analyze", str(run_dir), "--bootstrap", "2") == 0
    assert (
        run_cli(monkeypatch, "analyze", str(run_dir), "--bootstrap", "2", "--reference", first) == 0
    )
    assert (
        run_cli(monkeypatch, "analyze", str(run_dir), "--bootstrap", "2", "--reference", second)
        == 0
    )
    assert run_cli(monkeypatch, "analyze", str(run_dir), "--bootstrap", "2", "--name", "mine") == 0
    from pdbench.analysis.per_run.analysis_files import analysis_files

    files = analysis_files(run_dir)
    assert list(files) == ["default", "mine", f"ref-{first}", f"ref-{second}"]
    for reference in (first, second):
        rows = analysis(run_dir, "comparison", files[f"ref-{reference}"].name)
        assert set(rows["condition_a"]) == {reference}  # each file kept its own comparisons
    out = capsys.readouterr().out
    assert f"analysis-ref-{second}.parquet" in out
    assert run_cli(monkeypatch, "analyze", str(run_dir), "--name", "../x") == 2
    assert "--name" in capsys.readouterr().err
    assert not (run_dir.parent / "x.parquet").exists() and not (tmp_path / "x.parquet").exists()
