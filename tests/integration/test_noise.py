"""Noise (a trembling hand): each intended action is flipped with the configured probability, from
each side's own seeded stream; both actions are recorded, the metrics count what was played, the
agents see what was played, and noise 0 changes nothing, byte for byte."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import orjson
import pandas as pd
import pytest
from helpers import TEST_DEAL

from pdbench.games.matrix.stored import as_rounds
from pdbench.runners.experiment import run_experiment
from pdbench.runners.prepare import load

ROOT = Path(__file__).resolve().parents[2]
LLM = "{ref: agent/llm_default.yaml, overrides: {persona: none, provider: {mock: {strategy: cooperate}}}}"


def run(tmp_path: Path, name: str, body: str) -> list[dict]:
    """Run `body` in its own runs folder `name`, dealt with the fixed test key (the runs of a
    test compare their flips: the same seed and key deal the same)."""
    (tmp_path / name).mkdir()
    path = tmp_path / name / "noise.yaml"  # one file name: one run id for one config
    key = tmp_path / name / "deal.key"
    key.write_text(TEST_DEAL.secret.hex() + "\n")
    path.write_text(body.replace("OUT", str(tmp_path / name)).replace("KEY", str(key)))
    outcome = run_experiment(load(path, project_root=ROOT))
    assert outcome.status == "complete"
    lines = (outcome.run_dir / "rounds.jsonl").read_bytes().splitlines()
    return list(as_rounds(orjson.loads(line) for line in lines))  # read as the readers do


def experiment(noise_line: str, *, rounds: int = 70, replicates: int = 5) -> str:
    # 70 rounds (was 200): the flip rates are held to 4 standard errors of their own count
    # (2 x 5 x 70 = 700 trembles a condition), and a correct run fails that check no more often
    # than with 200 rounds: exactly (binomial) 8.7e-5 at noise 0.05 and 6.4e-5 at 0.2, against
    # 9.8e-5 and 6.6e-5 with 2,000 trembles.
    return f"""
run: {{seed: 4, replicates: {replicates}, output_dir: OUT, deal_key_file: KEY}}
game: {{id: pd{noise_line}}}
horizon: {{type: fixed, rounds: {rounds}}}
conditions:
  - {{name: allc_vs_alld, agent_a: allc, agent_b: alld}}
  - {{name: tft_vs_allc, agent_a: tft, agent_b: allc}}
  - {{name: llm_vs_allc, agent_a: {LLM}, agent_b: allc}}
"""


def flips(records: list[dict], side: str) -> int:
    return sum(r[f"agent_{side}_intended"] != r[f"agent_{side}_action"] for r in records)


@pytest.fixture(scope="module")
def noisy(tmp_path_factory):
    """One run per noise level, shared by the tests that read the same experiment (the flip
    frequency at 0.2 and the metrics were two runs of one config)."""
    runs: dict[float, tuple[Path, list[dict]]] = {}

    def get(noise: float) -> tuple[Path, list[dict]]:
        if noise not in runs:
            folder = tmp_path_factory.mktemp(f"noise{noise}")
            runs[noise] = (folder / "noisy", run(folder, "noisy", experiment(f", noise: {noise}")))
        return runs[noise]

    return get


@pytest.mark.parametrize("noise", [0.05, 0.2])
def test_flip_frequency_matches_the_noise_on_both_play_paths(noisy, noise):
    _, records = noisy(noise)
    for condition in ("allc_vs_alld", "llm_vs_allc"):  # the batch path, the match loop
        these = [r for r in records if r["condition"] == condition]
        n = 2 * len(these)  # both sides tremble
        rate = (flips(these, "a") + flips(these, "b")) / n
        assert abs(rate - noise) < 4 * math.sqrt(noise * (1 - noise) / n), condition
        # ALLC and the cooperating mock always intend C, ALLD always D: only the played move varies
        assert {r["agent_b_intended"] for r in these} == {
            "D" if condition == "allc_vs_alld" else "C"
        }


def test_metrics_count_played_actions_and_agents_see_them(noisy):
    run_dir, records = noisy(0.2)
    (aggregates_file,) = run_dir.glob("*/aggregates.parquet")
    aggregates = pd.read_parquet(aggregates_file)
    row = aggregates[(aggregates.condition == "allc_vs_alld") & (aggregates.level == "condition")]
    these = [r for r in records if r["condition"] == "allc_vs_alld"]
    played_c = sum(r["agent_a_action"] == "C" for r in these) / len(these)
    assert row["cooperation_rate_a"].item() == pytest.approx(played_c)
    assert played_c < 0.9  # ALLC intended C every round; what it played is what counts
    # TFT copies the opponent's *played* move of the round before, not its intended one.
    tft = [r for r in records if r["condition"] == "tft_vs_allc" and r["replicate"] == 0]
    for before, now in itertools.pairwise(tft):
        assert now["agent_a_intended"] == before["agent_b_action"]
    assert any(r["agent_b_action"] == "D" for r in tft)  # ALLC's hand did tremble


def test_the_same_seed_trembles_the_same_in_every_condition(tmp_path):
    once = run(tmp_path, "once", experiment(", noise: 0.1", rounds=50))
    twice = run(tmp_path, "twice", experiment(", noise: 0.1", rounds=50))

    def pattern(records, condition):
        return [
            r["agent_a_intended"] != r["agent_a_action"]
            for r in records
            if r["condition"] == condition
        ]

    assert pattern(once, "allc_vs_alld") == pattern(twice, "allc_vs_alld")
    # common random numbers: replicate i's flips are the same whatever the condition
    assert pattern(once, "allc_vs_alld") == pattern(once, "llm_vs_allc")


def test_noise_zero_changes_nothing_byte_for_byte(tmp_path):
    def without_timestamps(records):
        return [orjson.dumps({k: v for k, v in r.items() if k != "timestamp_utc"}) for r in records]

    plain = run(tmp_path, "plain", experiment("", rounds=30, replicates=2))
    zero = run(tmp_path, "zero", experiment(", noise: 0.0", rounds=30, replicates=2))
    assert without_timestamps(plain) == without_timestamps(zero)
    assert all("agent_a_intended" not in r and "agent_b_intended" not in r for r in zero)
    assert list(plain[0])[-1] == "timestamp_utc"  # the policy line ends where it always did
