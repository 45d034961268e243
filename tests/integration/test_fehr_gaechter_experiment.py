"""conf/experiment/pgg_fehr_gaechter2002.yaml runs (issue 44's last preset): 28 seats filled by
a population, perfect strangers within each 6-period part over all 28 (nobody shares a group
twice), the punish phase in periods 1-6 in one condition and 7-12 in the other, and the file's
options exactly the preset's (published.py holds every number's source)."""

from __future__ import annotations

import os
from collections import Counter
from itertools import combinations
from pathlib import Path

import orjson

from pdbench.core.seats import player_seats
from pdbench.games.public_goods.published import FEHR_GAECHTER_2002
from pdbench.runners.prepare import load
from tests.in_process import run_front_door

ROOT = Path(__file__).resolve().parents[2]
FILE = ROOT / "conf" / "experiment" / "pgg_fehr_gaechter2002.yaml"
SEATS = player_seats(28)  # a .. z, za, zb


def test_the_file_plays_the_presets_options_with_a_population_of_28():
    conditions = load(FILE, project_root=ROOT).spec.conditions
    assert [c.name for c in conditions] == list(FEHR_GAECHTER_2002.variants)
    for condition in conditions:
        assert condition.game.build_turn() == FEHR_GAECHTER_2002.rules(condition.name)
        assert list(condition.players) == [f"agent_{seat}" for seat in SEATS]
        kinds = Counter(spec.policy for spec in condition.players.values())  # type: ignore[union-attr]
        # Fischbacher, Gaechter & Fehr 2001's shares (the file's comment): half, a third, rest
        assert kinds == {"pgg_conditional_cooperator": 14, "pgg_free_rider": 9, "pgg_hump": 5}


def test_it_runs_perfect_strangers_over_28_seats_in_both_treatment_orders(tmp_path):
    env = {**os.environ, "PDBENCH_CACHE_DIR": str(tmp_path / "cache")}
    done = run_front_door(
        "cli",
        ["run", str(FILE), "run.replicates=2", "run.run_id=fg", f"run.output_dir={tmp_path}"],
        cwd=ROOT,
        env=env,
    )
    assert done.code == 0, done.stderr
    lines = [
        orjson.loads(line) for line in (tmp_path / "fg" / "rounds.jsonl").read_bytes().splitlines()
    ]
    assert {line["condition"] for line in lines} == {"punishment_first", "punishment_second"}
    for (condition, replicate), match in _matches(lines).items():
        assert [match[0][f"agent_{seat}"] for seat in ("a", "n", "o", "w", "x", "zb")] == [
            "PGG_CONDITIONAL_COOPERATOR",
            "PGG_CONDITIONAL_COOPERATOR",
            "PGG_FREE_RIDER",
            "PGG_FREE_RIDER",
            "PGG_HUMP",
            "PGG_HUMP",
        ]
        # the treatment order: a punish phase in periods 1-6 first, or in 7-12
        punished = sorted({line["round"] for line in match if line["phase"] == "punish"})
        part = [1, 2, 3, 4, 5, 6]
        assert punished == (part if condition == "punishment_first" else [r + 6 for r in part])
        # perfect strangers: every period 7 groups of 4 over all 28 seats, and within each
        # 6-period part no pair of seats in one group twice
        groups = {
            line["round"]: line["revealed"]["groups"]
            for line in match
            if line["phase"] == "contribute"
        }
        assert sorted(groups) == list(range(1, 13))
        for period in groups.values():
            assert len(period) == 7 and sorted(s for g in period for s in g) == sorted(SEATS)
        for first in (1, 7):
            met = Counter(
                pair
                for period in range(first, first + 6)
                for group in groups[period]
                for pair in combinations(sorted(group), 2)
            )
            assert len(met) == 7 * 6 * 6 and max(met.values()) == 1, (condition, replicate)
        assert match[-1]["outcome"]["error"] is None
        assert list(match[-1]["outcome"]["scores"]) == list(SEATS)


def _matches(lines: list[dict]) -> dict[tuple[str, int], list[dict]]:
    found: dict[tuple[str, int], list[dict]] = {}
    for line in lines:
        found.setdefault((line["condition"], line["replicate"]), []).append(line)
    assert len(found) == 4
    return found


def test_validate_names_the_population_and_the_seats_each_entry_fills(tmp_path):
    env = {**os.environ, "PDBENCH_CACHE_DIR": str(tmp_path / "cache")}
    done = run_front_door("cli", ["validate", str(FILE)], cwd=ROOT, env=env)
    assert done.code == 0, done.stderr
    assert (
        "punishment_first: population of 28: 14 x PGG_CONDITIONAL_COOPERATOR (a-n), "
        "9 x PGG_FREE_RIDER (o-w), 5 x PGG_HUMP (x-zb) | public_goods"
    ) in done.stdout
