"""Two LLM agents in one match, and results that do not depend on the concurrency level."""

from __future__ import annotations

import json
from pathlib import Path

from pdbench.games.matrix.stored import as_rounds
from pdbench.runners.experiment import run_experiment
from pdbench.runners.prepare import load

PROJECT = Path(__file__).resolve().parents[2]


def _experiment(tmp_path: Path) -> Path:
    path = tmp_path / "duel.yaml"
    path.write_text(
        f"""
run: {{seed: 9, replicates: 4, output_dir: {tmp_path / "runs"}}}
horizon: {{type: geometric, stop_prob: 0.2, max_rounds: 12}}
provider: {{name: mock, model: mock, mock: {{strategy: random, cooperate_prob: 0.6, invalid_rate: 0.3}}}}
conditions:
  - name: cooperative_vs_exploitative
    agent_a: {{ref: "agent/llm_default.yaml", overrides: {{persona: cooperative, temperature: 1.0, on_invalid: fallback}}}}
    agent_b: {{ref: "agent/llm_default.yaml", overrides: {{persona: exploitative, temperature: 1.0, on_invalid: fallback, response_format: json}}}}
  - name: llm_vs_gtft
    agent_a: {{ref: "agent/llm_default.yaml", overrides: {{persona: wsls, temperature: 0.5, on_invalid: fallback}}}}
    agent_b: gtft
"""
    )
    return path


def _rounds(run_dir: Path) -> list[dict]:
    records = list(as_rounds(json.loads(line) for line in (run_dir / "rounds.jsonl").open()))
    for record in records:
        record.pop("timestamp_utc")
        record.pop("run_id")
    return records


def test_rounds_do_not_depend_on_concurrency_or_cache(tmp_path, monkeypatch):
    experiment = _experiment(tmp_path)
    results = []
    for index, concurrency in enumerate((1, 3, 16)):
        # A fresh cache each time: every answer is produced live at this concurrency.
        monkeypatch.setenv("PDBENCH_CACHE_DIR", str(tmp_path / f"cache{index}"))
        loaded = load(
            experiment, [f"run.max_concurrency={concurrency}"], run_id=f"c{concurrency}",
            project_root=PROJECT,
        )  # fmt: skip
        outcome = run_experiment(loaded)
        assert outcome.status == "complete"
        results.append(_rounds(outcome.run_dir))
    assert results[0] == results[1] == results[2]
    duel = [r for r in results[0] if r["condition"] == "cooperative_vs_exploitative"]
    assert duel and all(r["agent_a_attempts"] and r["agent_b_attempts"] for r in duel)
    assert any(r["agent_b_invalid_outputs"] for r in duel)  # the JSON side was re-prompted too
