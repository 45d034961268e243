"""Issue 45's done-when for mediation and contracting, through the front door: a Hydra sweep
`game=pd,public_goods mechanism=none,mediation,contracting` with an LLM player on the offline
mock (against conf/config.yaml's default seat, tft, which plays its counterpart mech_tft, and in
the group of four two more house players, left out of pd's pairs with a warning) runs offline,
every phase stored as a turn; the aggregates hold the mechanisms' measures; a second sweep replays every
answer from the cache (0 live calls) and stores the same rounds. Run in this process
(tests/in_process.py) in the shared copy of the committed project."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
from in_process import run_front_door
from project_copy import command_env, shared_copy

GRID = [
    "game=pd,public_goods",
    "mechanism=none,mediation,contracting",
    "agent_a=llm_default",
    "agent_c=mech_alld",  # public goods' binary group of four (CoopEval's has three)
    "agent_d=mech_allc",
    "horizon.rounds=2",
    "run.replicates=1",
]


def sweep(tmp_path: Path, name: str) -> Path:
    output = tmp_path / name
    done = run_front_door(
        "module",
        ["-m", *GRID, f"run.output_dir={output}", f"hydra.sweep.dir={tmp_path / 'hydra' / name}"],
        cwd=shared_copy(),
        env=command_env(tmp_path),
    )
    assert done.code == 0, done.stdout + done.stderr
    # pd seats two: the sweep's agent_c and agent_d sit in public goods' groups only, said once
    (left_out,) = [line for line in done.stderr.splitlines() if "leave them out" in line]
    assert "agent_c, agent_d: normal_form seats 2 players" in left_out
    (run_dir,) = [d for d in output.iterdir() if d.is_dir()]
    return run_dir


def rounds(run_dir: Path) -> list[dict]:
    lines = [json.loads(line) for line in (run_dir / "rounds.jsonl").read_text().splitlines()]
    for line in lines:
        line.pop("timestamp_utc"), line.pop("run_id")
    return lines


def calls(run_dir: Path) -> dict[str, int]:
    return json.loads((run_dir / "run_manifest.json").read_text())["provider_calls"]


def test_a_sweep_over_mechanisms_runs_offline_stores_every_phase_and_replays(tmp_path):
    first = sweep(tmp_path, "first")
    stored = rounds(first)
    phases = {(line["condition"], line["phase"]) for line in stored}
    assert {line["game"] for line in stored} == {"normal_form"}  # one family: none plays it too
    for game in ("pd", "public_goods"):
        assert {(c, p) for c, p in phases if c.startswith(f"game={game},")} == {
            (f"game={game},mechanism=none", "play"),
            *((f"game={game},mechanism=mediation", p) for p in ("design", "vote", "play")),
            *(
                (f"game={game},mechanism=contracting", p)
                for p in ("design", "vote", "sign", "play")
            ),
        }
    seats = {line["condition"]: sorted(line["seats"]) for line in stored if line["phase"] == "play"}
    assert {len(s) for c, s in seats.items() if c.startswith("game=pd,")} == {2}
    assert {len(s) for c, s in seats.items() if c.startswith("game=public_goods,")} == {4}
    for line in stored:  # the LLM seat's every phase went through a prompt
        assert line["decisions"]["a"]["attempts"], line
    table = pd.read_parquet(first / "aggregates.parquet")
    conditions = table[table["level"] == "condition"].set_index("condition")
    for game in ("pd", "public_goods"):
        assert conditions.loc[f"game={game},mechanism=mediation", "delegation_rate_a"] == 1.0
        assert conditions.loc[f"game={game},mechanism=contracting", "signing_rate_a"] == 1.0
        assert pd.isna(conditions.loc[f"game={game},mechanism=none", "approval_rate_a"])
    assert conditions.loc["game=pd,mechanism=contracting", "winner_equilibrium_a"] == 1.0
    assert (conditions["cooperation_rate_a"] == 1.0).all()
    assert calls(first)["live"] > 0

    second = sweep(tmp_path, "second")  # the same sweep again, the same cache
    assert calls(second)["live"] == 0
    assert calls(second)["cached"] == calls(first)["live"]
    assert rounds(second) == stored
