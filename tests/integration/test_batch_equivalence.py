"""The batch path for policy-only conditions must equal the general match loop, byte for byte.

Every policy pair, fixed and geometric horizons, several games: the rounds.jsonl lines written by
`match_lines` (batch, record version 2), read back through the readers' projection
(`games.matrix.stored`), are the reference loop's version-1 lines (`round_lines`) apart from the
timestamp, and the aggregates a run computes from memory equal what `pdbench aggregate` reads
back from disk. (That the batch lines are the turn loop's, byte for byte: test_matrix_equivalence.)
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import orjson
import pandas as pd
import pytest
from helpers import TEST_DEAL
from reference_loop import play_match_sync
from reference_records import round_lines

from pdbench.analysis.metrics.aggregate import aggregate_run
from pdbench.config.schema import ExperimentSpec
from pdbench.games.matrix.records import RECORDS
from pdbench.games.matrix.stored import as_round_lines
from pdbench.runners.batch import match_lines, play_batch
from pdbench.runners.experiment import run_experiment
from pdbench.runners.plan import plan_matches
from pdbench.runners.prepare import load
from pdbench.strategies import POLICIES, make_policy

PROJECT = Path(__file__).resolve().parents[2]


def _batch_round_lines(planned, arrays, bodies) -> bytes:
    """The batch path's lines of one match, as the round records they project to (v1 lines)."""
    return as_round_lines(
        match_lines(
            RECORDS.shared_fields(planned, "r"),
            arrays,
            timestamp="t",
            seed=planned.game_seed,
            options=RECORDS.outcome_options(planned),
            bodies=bodies,
        )
    )


def _without_timestamps(blob: bytes) -> list[dict]:
    records = [orjson.loads(line) for line in blob.splitlines()]
    for record in records:
        record.pop("timestamp_utc")
    return records


def _spec(game: str, horizon: dict) -> ExperimentSpec:
    pairs = itertools.product(sorted(POLICIES), repeat=2)
    return ExperimentSpec.model_validate(
        {
            # 2 replicates (was 4): each pair still plays two seeds (the random policies draw
            # two streams, a geometric horizon two lengths) and the second replicate writes
            # with the line bodies the first one cached, as the runner does.
            "run": {"seed": 11, "replicates": 2},
            "conditions": [
                {
                    "name": f"{a}_vs_{b}",
                    "game": {"id": game},
                    "horizon": horizon,
                    "agent_a": {"type": "policy", "policy": a},
                    "agent_b": {"type": "policy", "policy": b},
                }
                for a, b in pairs
            ],
        }
    )


@pytest.mark.parametrize(
    ("game", "horizon"),
    [
        ("pd", {"type": "fixed", "rounds": 30}),
        ("pd", {"type": "geometric", "stop_prob": 0.15, "max_rounds": 40}),
        ("split_or_steal", {"type": "fixed", "rounds": 12}),
        ("chicken", {"type": "geometric", "stop_prob": 0.3}),
    ],
)
def test_batch_lines_equal_loop_lines_for_every_policy_pair(game, horizon):
    plan = plan_matches(_spec(game, horizon), TEST_DEAL)
    by_condition: dict[str, list] = {}
    for planned in plan:
        by_condition.setdefault(planned.condition.name, []).append(planned)
    for matches in by_condition.values():
        bodies: dict = {}  # shared across the condition's replicates, as the runner does
        for planned, arrays in zip(matches, play_batch(matches), strict=True):
            loop = play_match_sync(
                planned.rules.game,
                planned.n_rounds,
                make_policy(planned.condition.agent_a.policy, planned.rules.game),
                make_policy(planned.condition.agent_b.policy, planned.rules.game),
                seed_a=planned.seed_a,
                seed_b=planned.seed_b,
                disclose_rounds=True,
            )
            loop_blob = b"".join(round_lines(planned, loop, run_id="r", store_prompts=True))
            batch_blob = _batch_round_lines(planned, arrays, bodies)
            assert _without_timestamps(batch_blob) == _without_timestamps(loop_blob), (
                f"{planned.condition.name} replicate {planned.replicate}"
            )
            # Same bytes too, not only the same values (number formatting, key order).
            stripped = [line.split(b',"timestamp_utc"')[0] for line in batch_blob.splitlines()]
            expected = [line.split(b',"timestamp_utc"')[0] for line in loop_blob.splitlines()]
            assert stripped == expected


def test_in_memory_aggregates_equal_aggregates_read_from_disk(tmp_path):
    experiment = tmp_path / "mixed.yaml"
    experiment.write_text(
        """
run: {seed: 3, replicates: 3, output_dir: OUT}
horizon: {type: geometric, stop_prob: 0.1, max_rounds: 50}
conditions:
  - {name: gtft_vs_wsls, agent_a: gtft, agent_b: wsls}
  - name: llm_vs_tft
    agent_a: {ref: agent/llm_default.yaml, overrides: {persona: exploitative, temperature: 0.7, provider: {mock: {strategy: random, cooperate_prob: 0.4, invalid_rate: 0.2}}, on_invalid: fallback}}
    agent_b: tft
  - {name: alld_vs_grim, agent_a: alld, agent_b: grim}
""".replace("OUT", str(tmp_path / "runs"))
    )
    loaded = load(experiment, project_root=PROJECT)
    outcome = run_experiment(loaded)
    from_memory = pd.read_parquet(outcome.run_dir / "aggregates.parquet")
    from_disk = aggregate_run(outcome.run_dir)
    pd.testing.assert_frame_equal(from_memory, from_disk)
    assert set(from_memory["condition"]) == {"gtft_vs_wsls", "llm_vs_tft", "alld_vs_grim"}


def _noisy_spec(game: str, noise: float) -> ExperimentSpec:
    pairs = itertools.product(sorted(POLICIES), repeat=2)
    return ExperimentSpec.model_validate(
        {
            "run": {"seed": 5, "replicates": 2},  # two seeds a pair, as in _spec
            "conditions": [
                {
                    "name": f"{a}_vs_{b}",
                    "game": {"id": game, "noise": noise},
                    "horizon": {"type": "geometric", "stop_prob": 0.1, "max_rounds": 25},
                    "agent_a": {"type": "policy", "policy": a},
                    "agent_b": {"type": "policy", "policy": b},
                }
                for a, b in pairs
            ],
        }
    )


def _without_timestamp_values(blob: bytes) -> list[bytes]:
    return [
        re.sub(rb'"timestamp_utc":"[^"]*"', b'"timestamp_utc":""', line)
        for line in blob.splitlines()
    ]


@pytest.mark.parametrize(
    ("game", "noise"),
    [("pd", 0.1), ("battle_of_the_sexes", 0.0), ("battle_of_the_sexes", 0.25), ("stag_hunt", 1.0)],
)
def test_noise_and_asymmetric_games_write_the_same_bytes_on_both_paths(game, noise):
    """The trembling hand draws the same flips on both paths (intended and played actions
    written only with noise), and an asymmetric game gives each side its own payoffs."""
    plan = plan_matches(_noisy_spec(game, noise), TEST_DEAL)
    by_condition: dict[str, list] = {}
    for planned in plan:
        by_condition.setdefault(planned.condition.name, []).append(planned)
    for matches in by_condition.values():
        bodies: dict = {}
        for planned, arrays in zip(matches, play_batch(matches), strict=True):
            condition = planned.condition
            loop = play_match_sync(
                planned.rules.game,
                planned.n_rounds,
                make_policy(condition.agent_a.policy, planned.rules.game.seen_by("a")),
                make_policy(condition.agent_b.policy, planned.rules.game.seen_by("b")),
                seed_a=planned.seed_a,
                seed_b=planned.seed_b,
                disclose_rounds=True,
                noise=planned.noise,
                noise_seeds=planned.noise_seeds,
            )
            loop_blob = b"".join(round_lines(planned, loop, run_id="r", store_prompts=True))
            batch_blob = _batch_round_lines(planned, arrays, bodies)
            where = f"{condition.name} replicate {planned.replicate}"
            assert _without_timestamp_values(batch_blob) == _without_timestamp_values(loop_blob), (
                where
            )
            records = [orjson.loads(line) for line in loop_blob.splitlines()]
            assert all(("agent_a_intended" in r) == (noise > 0) for r in records), where
