"""examples/agents/donor_game.py (GAME = "donor-game"), written from the round_state issue 45
gives, plays a seat of a donor game population through the sandbox (arena): it gives exactly
when its recipient's shown image is good, and never falls back."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
from in_process import run_front_door

ROOT = Path(__file__).resolve().parents[2]


def test_the_example_agent_file_plays_a_seat_of_the_population(tmp_path):
    env = {**os.environ, "PDBENCH_CACHE_DIR": str(tmp_path / "cache")}
    done = run_front_door(
        "cli",
        [
            "run",
            "conf/config.yaml",
            "game=donor_game",
            "game.options.players=4",
            "game.options.rounds=5",
            "game.options.norm=stern_judging",
            "agent_a=arena",
            "agent_a.path=examples/agents/donor_game.py",
            "agent_b=donor_never_give",
            "agent_c=donor_always_give",
            "agent_d=donor_random",
            "run.replicates=1",
            "run.run_id=arena",
            f"run.output_dir={tmp_path / 'runs'}",
        ],
        cwd=ROOT,
        env=env,
    )
    assert done.code == 0, done.stderr
    run_dir = tmp_path / "runs" / "arena"
    lines = [orjson.loads(line) for line in (run_dir / "rounds.jsonl").read_bytes().splitlines()]
    assert len(lines) == 5
    for line in lines:
        recipient = line["revealed"]["recipients"]["a"]
        good = line["revealed"]["images_before"][recipient] == 1
        assert line["actions"]["a"] == {"type": "donate", "give": good}
        assert not line["decisions"]["a"]["fallback"]
        assert not line["decisions"]["a"]["invalid_outputs"]
    met = {line["revealed"]["images_before"][line["revealed"]["recipients"]["a"]] for line in lines}
    assert met == {0, 1}  # it met a good recipient and a bad one (run seed 0)
    (log,) = (run_dir / "agent_logs").iterdir()
    assert "round 1: I give to P" in log.read_text()
