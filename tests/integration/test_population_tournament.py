"""Issue 45: the replicator and Moran analyses run on a population run's payoff matrix as on a
tournament's. `pdbench tournament` on a donor game run of three house types reads each match's
encounters (who donated to whom), and its payoff matrix is recomputed here from rounds.jsonl
alone: per match and pair of seats, what each got per encounter (b per gift received, minus c
per gift made), averaged by type within a replicate, then over replicates. A game whose players
do not meet in pairs (public goods' groups) is refused in one line, and a run whose stored
choices were edited is refused, not analysed."""

from __future__ import annotations

import os
from collections import defaultdict
from itertools import combinations
from pathlib import Path

import numpy as np
import orjson
import pandas as pd
import pytest

from tests.in_process import run_front_door

ROOT = Path(__file__).resolve().parents[2]
POPULATION = "{donor_discriminator:2,donor_always_give:2,donor_never_give:2}"


def _run(tmp: Path, run_id: str, *overrides: str) -> Path:
    env = {**os.environ, "PDBENCH_CACHE_DIR": str(tmp / "cache"), "COLUMNS": "200"}
    done = run_front_door(
        "cli",
        ["run", "conf/config.yaml", *overrides, f"run.run_id={run_id}", f"run.output_dir={tmp}"],
        cwd=ROOT,
        env=env,
    )
    assert done.code == 0, done.stderr
    return tmp / run_id


def _tournament(run_dir: Path, *options: str):
    return run_front_door("cli", ["tournament", str(run_dir), *options], cwd=ROOT, env=os.environ)


@pytest.fixture(scope="module")
def donor_run(tmp_path_factory) -> Path:
    return _run(
        tmp_path_factory.mktemp("donor"),
        "donors",
        "game=donor_game",
        f"population={POPULATION}",
        "game.options.norm=standing",
        "game.options.rounds=6",
        "run.replicates=3",
    )


def expected_matrix(run_dir: Path) -> dict[tuple[str, str], float]:
    """The payoff matrix from the stored turn lines alone, by the rules of the donor game."""
    lines = [orjson.loads(line) for line in (run_dir / "rounds.jsonl").read_bytes().splitlines()]
    by_match: dict[tuple[str, int], list[dict]] = defaultdict(list)
    for line in lines:
        by_match[(line["condition"], line["replicate"])].append(line)
    cells: dict[tuple[str, str, int], list[float]] = defaultdict(list)  # (row, column, rep)
    for (_, replicate), turns in by_match.items():
        options = turns[-1]["outcome"]["options"]
        cost, benefit = options["cost"], options["benefit"]
        kind = {seat: turns[0][f"agent_{seat}"] for seat in turns[-1]["outcome"]["scores"]}
        got: dict[tuple[str, str], list[float]] = defaultdict(list)  # (seat, other) -> payoffs
        for turn in turns:
            for donor, recipient in turn["revealed"]["recipients"].items():
                gave = turn["actions"][donor]["give"]
                got[(donor, recipient)].append(-cost if gave else 0.0)
                got[(recipient, donor)].append(benefit if gave else 0.0)
        for one, other in combinations(sorted(kind), 2):
            n = len(got[(one, other)])
            if n == 0:
                continue
            assert n == len(got[(other, one)])
            mine, theirs = sum(got[(one, other)]) / n, sum(got[(other, one)]) / n
            if kind[one] == kind[other]:  # a self-play pair counts once, with its sides' mean
                cells[(kind[one], kind[one], replicate)].append((mine + theirs) / 2)
            else:
                cells[(kind[one], kind[other], replicate)].append(mine)
                cells[(kind[other], kind[one], replicate)].append(theirs)
    per_replicate: dict[tuple[str, str], list[float]] = defaultdict(list)
    for (row, column, _), values in cells.items():
        per_replicate[(row, column)].append(float(np.mean(values)))
    return {cell: float(np.mean(values)) for cell, values in per_replicate.items()}


def test_a_donor_populations_payoff_matrix_and_dynamics(donor_run):
    done = _tournament(donor_run, "--selection", "0.5", "--runs", "50")
    assert done.code == 0, done.stderr
    assert "population of run donors: 3 types" in done.stdout
    assert "measured at this run's composition" in done.stdout
    table = pd.read_parquet(donor_run / "tournament.parquet")
    payoff = table[table["table"] == "payoff"]
    found = {(row.player, row.opponent): row.mean_payoff for row in payoff.itertuples(index=False)}
    expected = expected_matrix(donor_run)
    assert found.keys() == expected.keys()
    for cell, value in expected.items():
        assert found[cell] == pytest.approx(value), cell
    # never-givers never pay: their row is never negative, and they gain from always-givers
    assert found[("DONOR_NEVER_GIVE", "DONOR_ALWAYS_GIVE")] > 0
    assert set(table["table"]) >= {"ranking", "payoff", "replicator", "moran"}
    ranking = table[table["table"] == "ranking"].set_index("player")
    assert ranking.loc["DONOR_ALWAYS_GIVE", "cooperation_rating"] == 1.0
    assert ranking.loc["DONOR_NEVER_GIVE", "cooperation_rating"] == 0.0


def test_a_selection_the_payoffs_cannot_take_says_the_largest_that_can(donor_run):
    done = _tournament(donor_run, "--runs", "50")  # w = 1 and a payoff below 0
    assert done.code == 2
    assert done.stderr.count("\n") == 1 and "lower w to at most" in done.stderr


def test_a_game_without_pairs_or_an_edited_run_is_refused(donor_run, tmp_path):
    groups = _run(
        tmp_path,
        "groups",
        "game=public_goods",
        "population={pgg_conditional_cooperator:2,pgg_free_rider:2}",
        "game.options.rounds=2",
        "run.replicates=1",
    )
    done = _tournament(groups)
    assert done.code == 2 and "and public_goods does not say who met whom in pairs" in done.stderr
    edited = tmp_path / "edited"
    edited.mkdir()
    for path in donor_run.iterdir():
        if path.is_file():
            (edited / path.name).write_bytes(path.read_bytes())
    rounds = edited / "rounds.jsonl"
    text = rounds.read_text()
    rounds.write_text(text.replace('"give":false', '"give":true', 1))  # one refusal made a gift
    done = _tournament(edited, "--selection", "0.5", "--runs", "50")
    assert done.code == 2 and "the replayed scores differ" in done.stderr
