"""Arena agents through the CLI: validation errors exit 2 with one line; a match runs and its
failures are recorded on the rounds and counted in the aggregates."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd

from pdbench.games.matrix.stored import as_rounds

PROJECT = Path(__file__).resolve().parents[2]
PDBENCH = str(Path(sys.executable).with_name("pdbench"))


def _experiment(tmp_path: Path, agent_file: Path, game: str = "pd") -> Path:
    path = tmp_path / "arena.yaml"
    path.write_text(
        f"""
run: {{seed: 1, replicates: 2, output_dir: {tmp_path / "runs"}}}
game: {{id: {game}}}
horizon: {{type: fixed, rounds: 6}}
conditions:
  - name: mine_vs_alld
    agent_a: {{type: arena, path: {agent_file}, timeout_s: 1.0}}
    agent_b: alld
"""
    )
    return path


def _run(config: Path, tmp_path: Path, run_id: str) -> Path:
    """`pdbench run` the experiment; return its run dir."""
    done = subprocess.run(
        [PDBENCH, "run", str(config), "--run-id", run_id, "-q"],
        cwd=PROJECT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return tmp_path / "runs" / run_id


def _validate(config: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [PDBENCH, "validate", str(config)], cwd=PROJECT, capture_output=True, text=True, timeout=60
    )


def test_game_mismatch_is_one_clear_line(tmp_path):
    agent = tmp_path / "splitter.py"
    agent.write_text(
        'class Agent:\n    GAME = "split-or-steal"\n\n'
        '    def on_turn(self, state):\n        return {"type": "commit", "choice": "split"}\n'
    )
    done = _validate(_experiment(tmp_path, agent, game="pd"))
    assert done.returncode == 2
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "split-or-steal" in lines[0] and "prisoners-dilemma" in lines[0]
    assert "Traceback" not in done.stderr


def test_file_without_agent_class_is_one_clear_line(tmp_path):
    agent = tmp_path / "nothing.py"
    agent.write_text("def on_turn(state):\n    return {}\n")
    done = _validate(_experiment(tmp_path, agent))
    assert done.returncode == 2
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Agent" in lines[0] and "nothing.py" in lines[0]


def test_example_agent_runs_and_a_raising_agent_is_recorded(tmp_path):
    raiser = tmp_path / "raiser.py"
    raiser.write_text(
        "class Agent:\n    def on_turn(self, state):\n"
        "        if state['round'] == 2:\n            raise RuntimeError('boom')\n"
        "        return {'type': 'commit', 'choice': 'D'}\n"
    )
    run_dir = _run(_experiment(tmp_path, raiser), tmp_path, "r")
    stored = (run_dir / "rounds.jsonl").read_text().splitlines()
    rounds = list(as_rounds(json.loads(line) for line in stored))  # as the readers read them
    second = [r for r in rounds if r["round_index"] == 2]
    assert all(r["agent_a_fallback"] and "boom" in r["agent_a_error"] for r in second)
    assert all(r["agent_a_action"] == "C" for r in second)  # the cooperative default
    aggregates = pd.read_parquet(run_dir / "aggregates.parquet")
    per_match = aggregates[aggregates["level"] == "replicate"]
    assert (per_match["fallbacks_a"] == 1).all() and (per_match["errors_a"] == 1).all()
    assert (run_dir / "agent_logs").is_dir()


def test_agent_process_does_not_inherit_secrets(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-should-not-leak")
    snoop = tmp_path / "snoop.py"
    snoop.write_text(
        "import os\n\nclass Agent:\n    def on_turn(self, state):\n"
        "        print('key:', os.environ.get('OPENAI_API_KEY'))\n"
        "        return {'type': 'commit', 'choice': 'C'}\n"
    )
    run_dir = _run(_experiment(tmp_path, snoop), tmp_path, "s")
    logs = "".join(p.read_text() for p in (run_dir / "agent_logs").iterdir())
    assert "key: None" in logs and "sk-should-not-leak" not in logs


def test_a_sweeps_agent_logs_are_where_the_readme_says(tmp_path):
    """Issue 26: the README names shards/<job>/agent_logs/ for a sweep (each job writes only its
    own shard folder), one log per match and side, holding what the agent printed."""
    done = subprocess.run(
        [
            sys.executable, "-m", "pdbench", "-m",
            "agent_a=arena", f"agent_a.path={PROJECT / 'examples' / 'agents' / 'tit_for_tat.py'}",
            "agent_b=tft,alld", "horizon.rounds=3", "run.replicates=1",
            f"run.output_dir={tmp_path / 'runs'}", "run.run_id=swept",
            f"hydra.sweep.dir={tmp_path / 'hydra'}",
        ],
        cwd=PROJECT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    shards = sorted((tmp_path / "runs" / "swept" / "shards").iterdir())
    assert len(shards) == 2
    for shard in shards:
        logs = sorted(p.name for p in (shard / "agent_logs").iterdir())
        assert len(logs) == 1 and logs[0].endswith("__rep0__a.log"), logs
    assert not (tmp_path / "runs" / "swept" / "agent_logs").exists()
