"""Issue 44's done-when for LLM players, through the front door: a Hydra sweep `game=public_goods`
of the offline mock as an LLM player against a group of house players, every phase on (talk,
contribute, punish), over two personas, runs offline; the aggregates hold the measures of the
LLM seat; a second sweep replays every answer from the cache (0 live calls) and stores the same
rounds; no contribute prompt holds a contribution of the round in play; the run exports as Inspect logs
(with the inspect group installed); `pdbench validate` passes
and a persona the game has no file for exits 2 naming the field. Run in this process
(tests/in_process.py) in the shared copy of the committed project."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pandas as pd
from in_process import run_front_door
from project_copy import command_env, shared_copy
from sweeps import provider_calls, run_sweep, stored_rounds

from pdbench.games.public_goods.prompts import CONTRIBUTIONS_NOW

GROUP = [
    "game=public_goods",
    "agent_a=llm_default",
    "agent_b=pgg_conditional_cooperator",
    "agent_c=pgg_free_rider",
    "agent_d=pgg_punisher",
    "game.options.rounds=2",
    "game.options.talk=true",
    "game.options.punish=true",
    "run.replicates=1",
]


def sweep(tmp_path: Path, name: str) -> Path:
    run_dir, _ = run_sweep(tmp_path, name, [*GROUP, "persona=cooperative,exploitative"])
    return run_dir


def test_a_sweep_of_an_llm_player_against_house_groups_runs_offline_and_replays(tmp_path):
    first = sweep(tmp_path, "first")
    table = pd.read_parquet(first / "aggregates.parquet")
    conditions = table[table["level"] == "condition"].set_index("condition")
    assert set(conditions.index) == {"persona=cooperative", "persona=exploitative"}
    share = conditions["contribution_share_a"]
    # the cooperative mock cooperates conditionally, the exploitative one rides free
    assert share["persona=exploitative"] == 0.0 < share["persona=cooperative"]
    assert conditions.loc["persona=cooperative", "points_given_a"] > 0
    for measure in ("free_riding_share_a", "points_received_a", "contribution_share_b"):
        assert conditions[measure].notna().all(), measure

    stored = stored_rounds(first)
    for line in stored:
        prompts = [a["prompt"] for a in line.get("decisions", {}).get("a", {}).get("attempts", [])]
        if line["phase"] == "contribute":  # this round's amounts are not in until all are in
            assert prompts and all(CONTRIBUTIONS_NOW.pattern.search(p) is None for p in prompts)
        if line["phase"] == "punish":
            assert all(CONTRIBUTIONS_NOW.pattern.search(p) for p in prompts)
    assert provider_calls(first)["live"] > 0

    if importlib.util.find_spec("inspect_ai") is not None:  # the inspect group is installed
        exported = run_front_door(
            "cli",
            ["export", str(first), "--inspect", str(tmp_path / "inspect")],
            cwd=tmp_path,
            env=command_env(tmp_path),
        )
        assert exported.code == 0, exported.stderr
        assert len(list((tmp_path / "inspect").glob("*.eval"))) == 2  # a log per condition

    second = sweep(tmp_path, "second")  # the same sweep again, the same cache
    assert provider_calls(second)["live"] == 0
    assert provider_calls(second)["cached"] == provider_calls(first)["live"]
    assert stored_rounds(second) == stored


def test_validate_passes_and_a_persona_without_a_file_exits_2_naming_the_field(tmp_path):
    env = command_env(tmp_path)
    good = run_front_door(
        "cli", ["validate", "conf/config.yaml", *GROUP], cwd=shared_copy(), env=env
    )
    assert good.code == 0, good.stderr
    bad = run_front_door(
        "cli",
        ["validate", "conf/config.yaml", *GROUP, "persona=tit_for_tat"],
        cwd=shared_copy(),
        env=env,
    )
    assert bad.code == 2
    (line,) = bad.stderr.strip().splitlines()
    assert "agent_a.persona:" in line and "prompts/public_goods/personas/" in line
