"""Issue 45's done-when for mediation and contracting, through the front door: a Hydra sweep
`game=pd,public_goods mechanism=none,mediation,contracting` with an LLM player on the offline
mock (against conf/config.yaml's default seat, tft, which plays its counterpart mech_tft, and in
the group of four two more house players, left out of pd's pairs with a warning) runs offline,
every phase stored as a turn; the aggregates hold the mechanisms' measures; a second sweep replays every
answer from the cache (0 live calls) and stores the same rounds. Run in this process
(tests/in_process.py) in the shared copy of the committed project."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from sweeps import provider_calls, run_sweep, stored_rounds

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
    run_dir, done = run_sweep(tmp_path, name, GRID)
    # pd seats two: the sweep's agent_c and agent_d sit in public goods' groups only, said once
    (left_out,) = [line for line in done.stderr.splitlines() if "leave them out" in line]
    assert "agent_c, agent_d: normal_form seats 2 players" in left_out
    return run_dir


def test_a_sweep_over_mechanisms_runs_offline_stores_every_phase_and_replays(tmp_path):
    first = sweep(tmp_path, "first")
    stored = stored_rounds(first)
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
    assert provider_calls(first)["live"] > 0

    second = sweep(tmp_path, "second")  # the same sweep again, the same cache
    assert provider_calls(second)["live"] == 0
    assert provider_calls(second)["cached"] == provider_calls(first)["live"]
    assert stored_rounds(second) == stored
