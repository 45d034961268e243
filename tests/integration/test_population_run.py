"""A population beyond agent_j plays end to end (issues 44 and 45): `population={...}` fills 12
seats, a to l, and every stored and derived artifact names each seat's agent (the turn lines, the
aggregates, the manifest, the summary, analyze, the ladder, the viewer's Metrics tab); a seat
past j is never dropped."""

from __future__ import annotations

import os
import re
from pathlib import Path

import orjson
import pandas as pd
import pytest

from pdbench.core.seats import player_seats
from tests.in_process import run_front_door

ROOT = Path(__file__).resolve().parents[2]
POPULATION = {"pgg_conditional_cooperator": 6, "pgg_free_rider": 4, "pgg_punisher": 2}
SEATS = player_seats(12)  # a .. l
AGENTS = [name.upper() for name, count in POPULATION.items() for _ in range(count)]


@pytest.fixture(scope="module")
def population_run(tmp_path_factory) -> tuple[Path, dict[str, str], str]:
    tmp = tmp_path_factory.mktemp("population")
    env = {**os.environ, "PDBENCH_CACHE_DIR": str(tmp / "cache"), "COLUMNS": "400"}
    mapping = ",".join(f"{name}:{count}" for name, count in POPULATION.items())
    done = run_front_door(
        "cli",
        [
            "run",
            "conf/config.yaml",
            "game=public_goods",
            f"population={{{mapping}}}",
            "game.options.groups=3",
            "game.options.matching=strangers",
            "game.options.rounds=3",
            "game.options.punish=true",
            "run.replicates=2",
            "run.run_id=population",
            f"run.output_dir={tmp / 'runs'}",
        ],
        cwd=ROOT,
        env=env,
    )
    assert done.code == 0, done.stderr
    return tmp / "runs" / "population", env, done.stdout


def test_every_artifact_names_every_seats_agent(population_run):
    run_dir, _, summary = population_run
    lines = [orjson.loads(line) for line in (run_dir / "rounds.jsonl").read_bytes().splitlines()]
    assert [lines[0][f"agent_{seat}"] for seat in SEATS] == AGENTS
    assert set(lines[0]["actions"]) == set(SEATS)
    outcome = [line for line in lines if line["replicate"] == 0][-1]["outcome"]
    assert list(outcome["scores"]) == list(SEATS)
    table = pd.read_parquet(run_dir / "aggregates.parquet")
    condition = table[table["level"] == "condition"].iloc[0]
    assert [condition[f"agent_{seat}"] for seat in SEATS] == AGENTS
    assert condition["contribution_share_l"] == 1.0  # a punisher gives everything
    assert condition["contribution_share_j"] == 0.0  # the last free rider nothing
    manifest = orjson.loads((run_dir / "run_manifest.json").read_bytes())
    (matchup,) = manifest["matchups"].values()
    assert list(matchup["further_seats"].values()) == AGENTS[2:]
    assert list(matchup["further_seats"])[-1] == "agent_l"
    stored = manifest["config"]["conditions"][0]
    assert [(e["agent"]["policy"], e["count"]) for e in stored["population"]] == list(
        POPULATION.items()
    )
    assert not [key for key in stored if key.startswith("agent_")]
    assert "A/B/C/D/E/F/G/H/I/J/K/L" in summary


def test_analyze_prints_every_seat(population_run):
    run_dir, env, _ = population_run
    done = run_front_door("cli", ["analyze", str(run_dir)], cwd=ROOT, env=env)
    assert done.code == 0, done.stderr
    assert "K · PGG_PUNISHER, L · PGG_PUNISHER" in done.stdout
    cells = [re.split(r"\s{2,}", line.strip()) for line in done.stdout.splitlines()[3:]]
    rows = {row[0]: row[1:] for row in cells}
    assert rows["measure"] == [seat.upper() for seat in SEATS]
    assert rows["contribution_share"][-2:] == ["1.00 same", "1.00 same"]


def test_the_ladder_rates_the_population_seat_by_seat(population_run, tmp_path):
    run_dir, env, _ = population_run
    done = run_front_door(
        "cli", ["ladder", str(run_dir), "--out", str(tmp_path)], cwd=ROOT, env=env
    )
    assert done.code == 0, done.stderr
    assert "2 finished matches counted" in done.stdout
    for name in POPULATION:
        assert name in done.stdout


def test_the_ladders_outcome_rows_hold_all_twelve_seats(population_run):
    from pdbench.ladder.readers import read_outcomes

    run_dir, _, _ = population_run
    outcomes = read_outcomes(run_dir)
    per_match = outcomes.table.groupby("match_id")["seat"].apply(list)
    assert len(per_match) == 2 and all(seats == list(SEATS) for seats in per_match)
    assert len(outcomes.agents) == len(POPULATION)


def test_a_hydra_sweep_over_populations_of_different_sizes(tmp_path):
    """`python -m pdbench -m population=...,...`: one condition per population, each its own
    number of seats, and the summary says "-" for a seat a condition does not have."""
    env = {**os.environ, "PDBENCH_CACHE_DIR": str(tmp_path / "cache"), "COLUMNS": "300"}
    done = run_front_door(
        "module",
        [
            "-m",
            "game=public_goods",
            "population={pgg_free_rider:2,pgg_hump:2},{pgg_random:3}",
            "game.options.rounds=2",
            "run.replicates=1",
            f"run.output_dir={tmp_path / 'runs'}",
            f"hydra.sweep.dir={tmp_path / 'hydra'}",
        ],
        cwd=ROOT,
        env=env,
    )
    assert done.code == 0, done.stderr
    (run_dir,) = (tmp_path / "runs").glob("sweep-*")
    manifest = orjson.loads((run_dir / "run_manifest.json").read_bytes())
    seats = {name: len(m.get("further_seats", {})) + 2 for name, m in manifest["matchups"].items()}
    assert sorted(seats.values()) == [3, 4]
    assert "PGG_RANDOM vs PGG_RANDOM vs PGG_RANDOM vs -" in " ".join(done.stdout.split())
    assert "nan" not in done.stdout
