"""The 2x2 games on the turn contract play exactly the rounds of today's two paths (issue 43
stage C, step 2): `pdbench.games.matrix` through the turn loop (`runners.turns`, each agent
seated by `games.matrix.seat.MatrixSeat`) gives, round by round, the actions intended and played,
the payoffs and the running totals that the reference match loop (tests/reference_loop.py) and
the numpy fast path (`runners.batch`) give for the same planned match, and the same stored
lines, ledger counts and aggregation columns: every 2x2 preset, classic policies without and with a trembling hand. Each agent is also shown the same
observations, call for call, on both loops. (Split or steal's talk and aborted matches:
test_matrix_talk_equivalence.py.)"""

from __future__ import annotations

import asyncio
import itertools
import re
from pathlib import Path

import numpy as np
import pytest
from helpers import TEST_DEAL
from matrix_loops import (
    Recording,
    Row,
    loop_rows,
    play_on_loop,
    play_on_turns,
    stored_lines,
    turn_rows,
    turn_stored_lines,
)

from pdbench.agents.policy import make_policy_agent
from pdbench.config.schema import ExperimentSpec
from pdbench.games.matrix.records import RECORDS
from pdbench.runners.batch import match_lines, play_batch
from pdbench.runners.plan import PlannedMatch, plan_matches
from pdbench.strategies import POLICIES

PROJECT = Path(__file__).resolve().parents[2]
NAMES = sorted(POLICIES)


def _spec(game: str, noise: float, pairs: list[tuple[str, str]], horizon: dict) -> ExperimentSpec:
    return ExperimentSpec.model_validate(
        {
            "run": {"seed": 29, "replicates": 2},
            "conditions": [
                {
                    "name": f"{a}_vs_{b}",
                    "game": {"id": game, "noise": noise},
                    "horizon": horizon,
                    "agent_a": {"type": "policy", "policy": a},
                    "agent_b": {"type": "policy", "policy": b},
                }
                for a, b in pairs
            ],
        }
    )


def _times_blank(blob: bytes) -> list[bytes]:
    return [
        re.sub(rb'"timestamp_utc":"[^"]*"', b'"timestamp_utc":""', line)
        for line in blob.splitlines()
    ]


def _batch_rows(arrays) -> list[Row]:  # type: ignore[no-untyped-def]
    def moves(cooperated: np.ndarray) -> list[str]:
        return ["C" if c else "D" for c in cooperated.tolist()]

    intended_a = arrays.coop_a if arrays.intended_a is None else arrays.intended_a
    intended_b = arrays.coop_b if arrays.intended_b is None else arrays.intended_b
    return list(
        zip(
            moves(intended_a),
            moves(intended_b),
            moves(arrays.coop_a),
            moves(arrays.coop_b),
            arrays.payoff_a.tolist(),
            arrays.payoff_b.tolist(),
            np.cumsum(arrays.payoff_a).tolist(),
            np.cumsum(arrays.payoff_b).tolist(),
            strict=True,
        )
    )


def _pairs(offset: int) -> list[tuple[str, str]]:
    """A third of all ordered pairs (every policy meets five opponents in each seat), a
    different third for each game, so the five games together cover every pair."""
    return [
        (a, b)
        for (i, a), (j, b) in itertools.product(enumerate(NAMES), repeat=2)
        if (i + 2 * j + offset) % 3 == 0
    ]


CASES = [
    ("pd", {"type": "fixed", "rounds": 12}),
    ("stag_hunt", {"type": "geometric", "stop_prob": 0.15, "max_rounds": 20}),
    ("chicken", {"type": "fixed", "rounds": 9}),
    ("battle_of_the_sexes", {"type": "geometric", "stop_prob": 0.1, "max_rounds": 15}),
    ("split_or_steal", {"type": "fixed", "rounds": 8}),
]


@pytest.mark.parametrize("noise", [0.0, 0.15])
@pytest.mark.parametrize(("game", "horizon"), CASES, ids=[c[0] for c in CASES])
def test_policies_play_the_same_rounds_on_the_turn_loop_the_match_loop_and_the_batch(
    game, horizon, noise
):
    offset = [c[0] for c in CASES].index(game)
    plan = plan_matches(_spec(game, noise, _pairs(offset), horizon), TEST_DEAL)
    by_condition: dict[str, list[PlannedMatch]] = {}
    for planned in plan:
        by_condition.setdefault(planned.condition.name, []).append(planned)

    def agents(planned: PlannedMatch) -> dict[str, Recording]:
        return {
            side: Recording(
                make_policy_agent(
                    planned.condition.players[f"agent_{side}"],
                    game=planned.rules.game.seen_by(side),
                )
            )
            for side in "ab"
        }

    async def compare_all() -> int:
        compared = 0
        for matches in by_condition.values():
            for planned, arrays in zip(matches, play_batch(matches), strict=True):
                on_loop, on_turns = agents(planned), agents(planned)
                loop = await play_on_loop(planned, on_loop)  # type: ignore[arg-type]
                turns, stored = await play_on_turns(planned, on_turns)  # type: ignore[arg-type]
                where = f"{planned.condition.name} replicate {planned.replicate}"
                assert loop.completed and turns.completed, where
                rows = loop_rows(loop)
                assert turn_rows(turns) == rows, where
                assert _batch_rows(arrays) == rows, where
                assert turn_stored_lines(planned, stored) == stored_lines(planned, loop), where
                # the batch path writes the turn loop's lines, byte for byte (times aside)
                written = stored.stored.lines  # the runner's, run "r", prompts stored
                batch = match_lines(
                    RECORDS.shared_fields(planned, "r"),
                    arrays,
                    timestamp="t",
                    seed=planned.game_seed,
                    options=RECORDS.outcome_options(planned),
                )
                assert _times_blank(batch) == _times_blank(b"".join(written)), where
                for side in "ab":
                    assert on_turns[side].seen == on_loop[side].seen, f"{where}, seat {side}"
                compared += 1
        return compared

    compared = asyncio.run(compare_all())
    assert compared == 2 * len(by_condition) and compared >= 2 * 75


def test_the_runner_plays_a_2x2_match_on_the_turn_loop_unless_the_batch_path_takes_it(
    tmp_path, monkeypatch
):
    """An LLM condition (and one that talks) is played by the turn loop with its game's rules
    (games/matrix's presets); a policy-only condition without talk by the numpy batch path."""
    from pdbench.runners import turn_run
    from pdbench.runners.experiment import run_experiment
    from pdbench.runners.prepare import load

    played: list[str] = []
    original = turn_run.play_turn_match

    async def spy(game, agents, **kwargs):  # type: ignore[no-untyped-def]
        played.append(f"{game.platform_name}: " + " vs ".join(a.name for a in agents.values()))
        return await original(game, agents, **kwargs)

    monkeypatch.setattr(turn_run, "play_turn_match", spy)
    experiment = tmp_path / "routes.yaml"
    experiment.write_text(
        f"""
run: {{seed: 3, replicates: 2, output_dir: {tmp_path / "runs"}}}
horizon: {{type: fixed, rounds: 3}}
provider: {{name: mock, model: mock}}
conditions:
  - {{name: llm_vs_tft, agent_a: {{ref: agent/llm_default.yaml}}, agent_b: tft}}
  - {{name: tft_vs_alld, agent_a: tft, agent_b: alld}}
  - name: talking_policies
    game: {{id: split_or_steal, negotiation: {{exchanges: 1}}}}
    agent_a: grim
    agent_b: tft
"""
    )
    outcome = run_experiment(load(experiment, project_root=PROJECT))
    # each replicate of the LLM condition and of the talking one; TFT vs ALLD never
    assert (
        sorted(played)
        == ["prisoners-dilemma: mock vs TFT"] * 2 + ["split-or-steal: GRIM vs TFT"] * 2
    )
    stored = (outcome.run_dir / "rounds.jsonl").read_text().splitlines()
    # turn lines (record version 2): a commit per round of two replicates of three conditions,
    # and the talking condition's two messages before each commit
    assert len(stored) == 3 * 2 * 3 + 3 * 2 * 2
