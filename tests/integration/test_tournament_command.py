"""Tournaments end to end: conf/experiment/tournament_classic.yaml played by pdbench ranks as
Axelrod 4.14 did (recorded in tests/fixtures/axelrod_reference/matches.json, not a live
dependency) with the same payoffs wherever play is deterministic; a tournament with a mock LLM
agent (the Hydra form) runs its dynamics and analysis without a single provider call."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from helpers import only_run_dir
from in_process import Ran, run_front_door
from project_copy import shared_copy

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = json.loads(
    (ROOT / "tests" / "fixtures" / "axelrod_reference" / "matches.json").read_text()
)["tournament"]


def pdbench(*args: str, module: bool = False, cwd: Path | None = None) -> Ran:
    """pdbench in a copy of the committed project (never the user's edited conf/), or in `cwd`:
    in this process (tests/in_process.py), as `pdbench ...` or `python -m pdbench ...` would run
    it (same entry, argv, working folder and environment; exit code, stdout and stderr). What
    these tests check is what the commands compute and print, not the process; the one property
    that needs a fresh process (no provider module imported) keeps its subprocess below."""
    return run_front_door(
        "module" if module else "cli", list(args), cwd=cwd or shared_copy(), env=dict(os.environ)
    )


def table(run_dir: Path, name: str) -> pd.DataFrame:
    frame = pd.read_parquet(run_dir / "tournament.parquet")
    return frame[frame["table"] == name].dropna(axis=1, how="all").reset_index(drop=True)


pytestmark = pytest.mark.slow  # whole round robins through the command line


@pytest.fixture(scope="module")
def classic(tmp_path_factory) -> Path:
    output = tmp_path_factory.mktemp("classic")
    done = pdbench(
        "run",
        "conf/experiment/tournament_classic.yaml",
        "--run-id",
        "classic",
        "-q",
        f"run.output_dir={output}",
    )
    assert done.code == 0, done.stderr
    return output / "classic"


def test_the_classic_tournament_ranks_and_pays_as_axelrod(classic):
    assert REFERENCE["turns"] == 200 and REFERENCE["repetitions"] == 5 and REFERENCE["seed"] == 1
    done = pdbench("tournament", str(classic), "--runs", "300")
    assert done.code == 0, done.stderr
    ranking = table(classic, "ranking")
    assert list(ranking["player"]) == REFERENCE["ranking"]
    players = REFERENCE["players"]
    payoff = table(classic, "payoff").pivot(
        index="player", columns="opponent", values="mean_payoff"
    )
    ours = payoff.loc[players, players].to_numpy()
    stochastic = np.array(REFERENCE["stochastic"])
    expected = np.array(REFERENCE["mean_payoff_matrix"])
    np.testing.assert_allclose(ours[~stochastic], expected[~stochastic], rtol=0, atol=1e-12)
    # Where GTFT draws, its own stream differs from Axelrod's: same expectation, other draws.
    np.testing.assert_allclose(ours[stochastic], expected[stochastic], atol=0.15)
    # Deterministic players score exactly Axelrod's median normalised score.
    median = ranking.set_index("player")["median_score"]
    for player in ("allc", "tft", "grim", "wsls"):
        assert median[player] == pytest.approx(
            REFERENCE["median_normalised_score"][player], abs=1e-3
        )
    assert "Ranking" in done.stdout and "Moran process" in done.stdout
    assert done.stdout.index("Ranking") < done.stdout.index("Replicator dynamics")


def test_dynamics_on_the_classic_payoffs_follow_theory(classic):
    done = pdbench("tournament", str(classic), "--runs", "400", "--payne", "--generations", "30")
    assert done.code == 0, done.stderr
    moran = table(classic, "moran").set_index(["mutant", "resident"])
    neutral = moran["neutral"].iloc[0]
    # ALLD invades ALLC; TFT resists ALLD (200 rounds); TFT and GRIM are neutral to each other.
    assert moran.loc[("alld", "allc"), "ci_low"] > neutral
    assert moran.loc[("alld", "tft"), "fixation_probability"] == 0
    tft_grim = moran.loc[("tft", "grim")]
    assert tft_grim["ci_low"] <= neutral <= tft_grim["ci_high"]
    assert tft_grim["exact"] == pytest.approx(neutral)
    assert (
        tft_grim["selection"] == "neutral"
        and moran.loc[("alld", "allc"), "selection"] == "favoured"
    )
    replicator = table(classic, "replicator")
    totals = replicator.groupby("generation")["share"].sum()
    np.testing.assert_allclose(totals, 1.0)
    alld = replicator[replicator["player"] == "alld"]["share"].to_numpy()
    assert alld[0] == pytest.approx(1 / 6) and alld[-1] < 0.01  # defection dies out
    payne = table(classic, "payne")
    assert (payne.groupby("generation")["count"].sum() == 12).all()
    assert "Payne generations" in done.stdout


def test_a_tournament_with_a_mock_llm_runs_its_dynamics_without_provider_calls(tmp_path):
    output = tmp_path / "runs"
    cache = tmp_path / "cache"
    done = pdbench(
        "tournament.agents=[tft,alld,llm_default]",
        "run.replicates=3",
        "horizon.rounds=12",
        f"run.output_dir={output}",
        f"run.cache.dir={cache}",
        module=True,
    )
    assert done.code == 0, done.stderr
    run_dir = only_run_dir(output)
    manifest = json.loads((run_dir / "run_manifest.json").read_text())
    assert manifest["conditions"][:3] == ["tft_vs_tft", "tft_vs_alld", "tft_vs_llm_default"]
    assert manifest["factors"]["alld_vs_llm_default"] == {
        "player_a": "alld",
        "player_b": "llm_default",
    }
    assert manifest["provider_calls"]["live"] > 0
    before = _snapshot(run_dir, cache)
    probe = (
        "import sys\n"
        "from pdbench.cli import main\n"
        "for args in (['tournament', sys.argv[1], '--runs', '50', '--mutation', '0.05',"
        " '--generations', '5'], ['analyze', sys.argv[1], '--bootstrap', '20']):\n"
        "    sys.argv = ['pdbench', *args]\n"
        "    try:\n"
        "        main()\n"
        "    except SystemExit as done:\n"
        "        assert not done.code, done.code\n"
        "print('PROVIDERS', sorted(m for m in sys.modules if m.startswith("
        "('pdbench.providers', 'litellm'))))\n"
    )
    checked = subprocess.run(
        [sys.executable, "-c", probe, str(run_dir)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env=os.environ,
    )
    assert checked.returncode == 0, checked.stderr
    assert "PROVIDERS []" in checked.stdout
    assert _snapshot(run_dir, cache) == before  # manifest, rounds, ledger and cache untouched
    ranking = table(run_dir, "ranking")
    assert set(ranking["player"]) == {"tft", "alld", "llm_default"}
    assert len(table(run_dir, "moran_shares")) == 6 * 3  # generations 0..5 x 3 players


def _snapshot(run_dir: Path, cache: Path) -> dict[str, tuple[int, int, bytes | None]]:
    """Every file of the cache with its size and mtime, and the run's stored artifacts' bytes."""
    files = {
        str(path): (path.stat().st_size, path.stat().st_mtime_ns, None)
        for path in sorted(cache.rglob("*"))
        if path.is_file()
    }
    for name in ("run_manifest.json", "rounds.jsonl", "matches.jsonl", "aggregates.parquet"):
        path = run_dir / name
        files[str(path)] = (path.stat().st_size, path.stat().st_mtime_ns, path.read_bytes())
    return files


def test_tournament_refuses_a_run_that_is_no_tournament(tmp_path):
    output = tmp_path / "runs"
    done = pdbench("run", "conf/config.yaml", "--run-id", "plain", f"run.output_dir={output}")
    assert done.code == 0, done.stderr
    refused = pdbench("tournament", str(output / "plain"))
    assert refused.code == 2
    assert refused.stderr.startswith("error: ") and "is not a tournament run" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
