"""With on_invalid: abort (the default), a model that never answers validly ends its match, and
nothing is hidden: the error is in the ledger and the manifest, the failed round's attempts are
kept, their calls are counted, and the other matches run on."""

from __future__ import annotations

import json
from pathlib import Path

from pdbench.runners.experiment import run_experiment
from pdbench.runners.prepare import load

PROJECT = Path(__file__).resolve().parents[2]


def test_aborted_match_keeps_its_rounds_error_and_attempts(tmp_path):
    experiment = tmp_path / "abort.yaml"
    experiment.write_text(
        f"""
run: {{seed: 3, replicates: 2, output_dir: {tmp_path / "runs"}}}
horizon: {{type: fixed, rounds: 6}}
provider: {{name: mock, model: mock, mock: {{strategy: reciprocate, invalid_rate: 1.0}}}}
conditions:
  - name: mute_llm_vs_tft
    agent_a: {{ref: "agent/llm_default.yaml", overrides: {{max_retries: 2}}}}
    agent_b: tft
  - {{name: tft_vs_alld, agent_a: tft, agent_b: alld}}
"""
    )
    outcome = run_experiment(load(experiment, run_id="abort", project_root=PROJECT))
    # Every match ran, but mute_llm_vs_tft has no finished match: the run says so (issue 26).
    assert outcome.status == "aborted"
    assert "mute_llm_vs_tft" in (outcome.error or "")

    ledger = [json.loads(line) for line in (outcome.run_dir / "matches.jsonl").open()]
    aborted = [entry for entry in ledger if entry["condition"] == "mute_llm_vs_tft"]
    assert len(aborted) == 2
    for entry in aborted:
        assert entry["n_rounds"] == 0 and entry["planned_rounds"] == 6
        assert "no valid action after 3 attempts" in entry["error"]
        attempts = entry["aborted_round_attempts"]
        assert [a["attempt"] for a in attempts] == [1, 2, 3]
        assert all(not a["valid"] and a["raw"] and a["prompt"] for a in attempts)
        assert entry["calls"]["live"] + entry["calls"]["cached"] == 3

    manifest = json.loads((outcome.run_dir / "run_manifest.json").read_text())
    assert {(f["condition"], f["replicate"]) for f in manifest["matches"]["failed"]} == {
        ("mute_llm_vs_tft", 0),
        ("mute_llm_vs_tft", 1),
    }
    rounds = [json.loads(line) for line in (outcome.run_dir / "rounds.jsonl").open()]
    assert {r["condition"] for r in rounds} == {"tft_vs_alld"}
