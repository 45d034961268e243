"""An LLM-vs-policy experiment run twice through the CLI: the second run makes zero live calls
and writes the same rounds (issue 5's end-to-end replay check)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from pdbench.games.matrix.stored import as_rounds

PROJECT = Path(__file__).resolve().parents[2]
PDBENCH = [str(Path(sys.executable).with_name("pdbench"))]


def _rounds(run_dir: Path) -> list[dict]:
    stored = (run_dir / "rounds.jsonl").read_text().splitlines()
    records = list(as_rounds(json.loads(line) for line in stored))  # as the readers read them
    for record in records:
        record.pop("timestamp_utc")
        record.pop("run_id")
    return records


def test_second_run_is_free_and_identical(tmp_path):
    experiment = tmp_path / "llm.yaml"
    experiment.write_text(
        f"""
run: {{seed: 5, replicates: 3, output_dir: {tmp_path / "runs"}, max_concurrency: 4}}
horizon: {{type: fixed, rounds: 8}}
provider: {{name: mock, model: mock, mock: {{strategy: random, cooperate_prob: 0.6, invalid_rate: 0.2}}}}
persona: cooperative
conditions:
  - name: llm_vs_tft
    agent_a: {{ref: "agent/llm_default.yaml", overrides: {{temperature: 0.8, on_invalid: fallback}}}}
    agent_b: tft
  - name: llm_json_vs_grim
    agent_a: {{ref: "agent/llm_default.yaml", overrides: {{response_format: json, persona: exploitative}}}}
    agent_b: grim
"""
    )
    cache = tmp_path / "cache"
    env = {"PDBENCH_CACHE_DIR": str(cache), "PATH": str(Path(sys.executable).parent)}
    manifests = []
    for run_id in ("first", "second"):
        done = subprocess.run(
            [*PDBENCH, "run", str(experiment), "--run-id", run_id, "-q"],
            cwd=PROJECT,
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        manifests.append(json.loads((tmp_path / "runs" / run_id / "run_manifest.json").read_text()))
    first, second = manifests
    assert first["provider_calls"]["live"] > 0 and first["provider_calls"]["cached"] == 0
    assert second["provider_calls"]["live"] == 0
    assert second["provider_calls"]["cached"] == first["provider_calls"]["live"]
    assert _rounds(tmp_path / "runs" / "first") == _rounds(tmp_path / "runs" / "second")
    # The invalid answers the mock produced were retried, and every attempt is on the round.
    rounds = _rounds(tmp_path / "runs" / "first")
    assert any(r["agent_a_invalid_outputs"] > 0 for r in rounds)
    assert all(r["agent_a_attempts"] for r in rounds)

    # --offline replays from the cache; against an empty cache it stops at the first miss.
    offline = subprocess.run(
        [*PDBENCH, "run", str(experiment), "--run-id", "offline", "--offline", "-q"],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**env, "PDBENCH_CACHE_DIR": str(tmp_path / "empty-cache")},
    )
    assert offline.returncode == 2
    assert "no cached answer" in offline.stderr and "Traceback" not in offline.stderr
