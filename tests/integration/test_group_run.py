"""A game with more than two seats plays end to end through the front door (issue 43 stage B):
`pdbench run conf/config.yaml game=public_goods agent_a=... agent_b=... agent_c=... agent_d=...`
plays four house players in one group, and stores every seat's turns, outcome, aggregates and
summary; the numbers are the rules' (checked by hand in the first round below)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import orjson
import pandas as pd

from tests.in_process import run_front_door

ROOT = Path(__file__).resolve().parents[2]
GROUP = {
    "a": "pgg_conditional_cooperator",
    "b": "pgg_free_rider",
    "c": "pgg_full_contributor",
    "d": "pgg_punisher",
}


def test_four_house_players_play_a_group_with_artifacts(tmp_path):
    env = {**os.environ, "PDBENCH_CACHE_DIR": str(tmp_path / "cache"), "COLUMNS": "220"}
    done = run_front_door(
        "cli",
        [
            "run",
            "conf/config.yaml",
            "game=public_goods",
            *(f"agent_{seat}={policy}" for seat, policy in GROUP.items()),
            "game.options.rounds=3",
            "game.options.punish=true",
            "run.replicates=2",
            "run.run_id=group",
            f"run.output_dir={tmp_path / 'runs'}",
        ],
        cwd=ROOT,
        env=env,
    )
    assert done.code == 0, done.stderr
    run_dir = tmp_path / "runs" / "group"
    for artifact in ("rounds.jsonl", "matches.jsonl", "aggregates.parquet", "run_manifest.json"):
        assert (run_dir / artifact).is_file(), artifact
    lines = [orjson.loads(line) for line in (run_dir / "rounds.jsonl").read_bytes().splitlines()]
    first = lines[0]
    assert first["agent_c"] == "PGG_FULL_CONTRIBUTOR" and first["agent_d"] == "PGG_PUNISHER"
    assert set(first["actions"]) == set(GROUP)  # every seat contributes at once
    # round 1: a opens with half (10), b gives 0, c and d 20: the pot of 50 x 1.6 pays 20 each;
    # d's 3 points on b cost d 3 and b 9. Rounds 2 and 3: a matches the others' mean (13).
    outcome = [line for line in lines if line["replicate"] == 0][-1]["outcome"]
    assert outcome["scores"] == {"a": 86.4, "b": 95.4, "c": 62.4, "d": 53.4}
    assert outcome["winner"] == "b"
    table = pd.read_parquet(run_dir / "aggregates.parquet")
    condition = table[table["level"] == "condition"].iloc[0]
    assert [condition[f"contribution_share_{seat}"] for seat in "abcd"] == [0.6, 0.0, 1.0, 1.0]
    assert condition["points_given_d"] == 9 and condition["points_received_b"] == 9
    assert condition["agent_d"] == "PGG_PUNISHER"  # the condition row names every seat too
    manifest = orjson.loads((run_dir / "run_manifest.json").read_bytes())
    (matchup,) = manifest["matchups"].values()
    assert matchup["further_seats"] == {
        "agent_c": "PGG_FULL_CONTRIBUTOR",
        "agent_d": "PGG_PUNISHER",
    }
    assert {"agent_c", "agent_d"} <= set(manifest["config"]["conditions"][0])
    # the summary names every seat's agent and shows every seat's measures
    assert "A vs B vs C vs D" in done.stdout
    assert "PGG_FREE_RIDER" in done.stdout and "PGG_PUNISHER" in done.stdout
    # analyze prints every measure of every seat: the two matches are alike (house players)
    done = run_front_door("cli", ["analyze", str(run_dir)], cwd=ROOT, env=env)
    assert done.code == 0, done.stderr
    cells = [re.split(r"\s{2,}", line.strip()) for line in done.stdout.splitlines()[3:]]
    rows = {row[0]: row[1:] for row in cells}
    assert rows["measure"] == ["A", "B", "C", "D"]
    assert rows["contribution_share"] == ["0.60 same", "0.00 same", "1.00 same", "1.00 same"]
    assert rows["points_given"] == ["0.00 same"] * 3 + ["9.00 same"]
    assert rows["points_received"] == ["0.00 same", "9.00 same", "0.00 same", "0.00 same"]
    assert rows["score"] == ["86.40 same", "95.40 same", "62.40 same", "53.40 same"]
    assert rows["free_riding_share (pooled)"] == ["0.00", "1.00", "0.00", "0.00"]
    assert "talk_consistency" not in rows  # no talk: no match measured it


def test_the_example_agent_file_plays_a_seat_of_the_group(tmp_path):
    """examples/agents/public_goods.py (GAME = "public-goods") reads round_state as documented:
    it opens with half, punishes the free rider one point a round, and never falls back."""
    env = {**os.environ, "PDBENCH_CACHE_DIR": str(tmp_path / "cache")}
    done = run_front_door(
        "cli",
        [
            "run",
            "conf/config.yaml",
            "game=public_goods",
            "agent_a=arena",
            "agent_a.path=examples/agents/public_goods.py",
            "agent_b=pgg_free_rider",
            "agent_c=pgg_full_contributor",
            "agent_d=pgg_hump",
            "game.options.rounds=3",
            "game.options.talk=true",
            "game.options.punish=true",
            "run.replicates=1",
            "run.run_id=arena",
            f"run.output_dir={tmp_path / 'runs'}",
        ],
        cwd=ROOT,
        env=env,
    )
    assert done.code == 0, done.stderr
    lines = [
        orjson.loads(line)
        for line in (tmp_path / "runs" / "arena" / "rounds.jsonl").read_bytes().splitlines()
    ]
    mine = {line["phase"]: line["actions"]["a"] for line in lines if "a" in line["actions"]}
    assert mine["talk"]["text"].startswith("I will contribute")
    amounts = [line["actions"]["a"]["amount"] for line in lines if line["phase"] == "contribute"]
    assert amounts[0] == 10  # half of 20, in round 1
    punished = [line["actions"]["a"]["points"] for line in lines if line["phase"] == "punish"]
    assert len(punished) == 3 and all(sum(points.values()) == 1 for points in punished)
    decided = [line["decisions"]["a"] for line in lines if "a" in line.get("decisions", {})]
    assert decided and not any(d["fallback"] or d["invalid_outputs"] for d in decided)


def test_a_pairs_manifest_holds_no_further_seat(tmp_path):
    """The new fields are left out when unbound: a pair's stored config and matchup are as they
    were before groups existed."""
    env = {**os.environ, "PDBENCH_CACHE_DIR": str(tmp_path / "cache")}
    args = ["run", "conf/config.yaml", "horizon.rounds=2", "run.replicates=1", "run.run_id=pair"]
    done = run_front_door("cli", [*args, f"run.output_dir={tmp_path}"], cwd=ROOT, env=env)
    assert done.code == 0, done.stderr
    manifest = orjson.loads((tmp_path / "pair" / "run_manifest.json").read_bytes())
    (matchup,) = manifest["matchups"].values()
    assert "further_seats" not in matchup
    assert not [k for k in manifest["config"]["conditions"][0] if k.startswith("agent_")][2:]


def test_validate_names_every_seats_agent(tmp_path):
    env = {**os.environ, "PDBENCH_CACHE_DIR": str(tmp_path / "cache")}
    group = [f"agent_{seat}={policy}" for seat, policy in GROUP.items()]
    done = run_front_door(
        "cli", ["validate", "conf/config.yaml", "game=public_goods", *group], cwd=ROOT, env=env
    )
    assert done.code == 0, done.stderr
    assert (
        "PGG_CONDITIONAL_COOPERATOR vs PGG_FREE_RIDER vs PGG_FULL_CONTRIBUTOR vs PGG_PUNISHER"
        in done.stdout
    )
