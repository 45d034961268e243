"""Issue 13, Hydra sweeps (`python -m pdbench -m ...`) as a user types them from the project root:
sweeps of run and metric keys and sweeps that did not finish (case 8), the budget of a whole sweep
and what its merged manifest keeps (case 6).

Every command points run.output_dir and hydra.sweep.dir into a temp folder.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from helpers import only_run_dir
from in_process import run_front_door
from project_copy import shared_copy
from silently_wrong_helpers import (
    console_command,
    error_lines,
    read_manifest,
    run_process,
    stub_server_class,
    subprocess_env,
)


def sweep(tmp: Path, *overrides: str) -> tuple:
    """`python -m pdbench -m <overrides>` from the committed project, by its entry function run
    in this process (tests/in_process.py: same argv, working folder and environment, exit code
    from its SystemExit; Hydra's basic launcher runs the jobs in the launching process anyway)."""
    output = tmp / "runs"
    args = ["-m", *overrides, f"run.output_dir={output}", f"hydra.sweep.dir={tmp / 'hydra'}"]
    ran = run_front_door("module", args, cwd=shared_copy(), env=subprocess_env(tmp))
    return subprocess.CompletedProcess(args, ran.code, ran.stdout, ran.stderr), output


def only_sweep_dir(output: Path) -> Path:
    run_dir = only_run_dir(output)
    return run_dir


# --- case 8: sweeps of run and metric keys -------------------------------------------------------


@pytest.mark.parametrize("swept", ["run.seed=1,2", "metrics.collapse.threshold=0.1,0.3"])
def test_sweeping_a_run_or_metrics_key_is_refused_before_launching(tmp_path, swept):
    done, output = sweep(tmp_path, swept, "horizon.rounds=3")
    assert done.returncode == 2, done.stderr
    assert not output.exists() or not any(output.iterdir()), "the sweep was launched"
    (line,) = error_lines(done.stderr)
    assert swept.partition("=")[0] in line, line


def test_a_sweep_whose_jobs_did_not_all_finish_is_never_complete(tmp_path):
    done, output = sweep(tmp_path, "horizon.rounds=3,0", "run.replicates=1")
    assert done.returncode != 0, done.stdout
    if not output.exists() or not any(output.iterdir()):
        return  # refused before launching: nothing claims to be complete
    run_dir = only_sweep_dir(output)
    run_process([*console_command(), "aggregate", str(run_dir)], tmp_path)
    assert read_manifest(run_dir)["status"] != "complete"


# --- case 6: money over a whole sweep ------------------------------------------------------------


def test_a_merged_sweep_manifest_keeps_spend_command_and_overrides(tmp_path):
    done, output = sweep(
        tmp_path, "agent_a=llm_default", "agent_b=tft,grim", "horizon.rounds=3", "run.replicates=1"
    )
    assert done.returncode == 0, done.stderr
    run_dir = only_sweep_dir(output)
    merged = read_manifest(run_dir)
    shards = [read_manifest(p.parent) for p in (run_dir / "shards").glob("*/run_manifest.json")]
    assert len(shards) == 2
    missing = [key for key in ("spend", "pdbench_command", "overrides") if key not in merged]
    assert not missing, f"missing from the merged manifest: {missing}"
    assert merged["spend"]["live"] == sum(s["spend"]["live"] for s in shards) > 0
    assert "agent_b=tft,grim" in merged["pdbench_command"]
    assert "agent_b=grim" in json.dumps(merged["overrides"])


@pytest.fixture
def priced_stub():
    """The stub server billing 100,000 prompt tokens per call: $0.015 a call of gpt-4o-mini."""
    with stub_server_class()() as stub:
        stub.state.prompt_tokens = 100_000
        yield stub


def test_the_budget_covers_the_whole_sweep(tmp_path, priced_stub):
    done, _ = sweep(
        tmp_path,
        "agent_a=llm_default",
        "agent_b=tft,grim",
        "provider=litellm",
        "provider.model=openai/gpt-4o-mini",
        f"provider.api_base={priced_stub.api_base}",
        "provider.max_attempts=1",
        "horizon.rounds=5",
        "run.replicates=1",
        "run.max_concurrency=1",
        "run.cache.mode=off",
        "run.max_cost_usd=0.04",
    )
    assert "Traceback" not in done.stderr, done.stderr
    # $0.04 buys 3 calls at $0.015 (the third crosses the line); one more may be in flight.
    calls = len(priced_stub.state.requests)
    assert 3 <= calls <= 4, f"{calls} calls (${0.015 * calls:.3f}) on a $0.04 budget"
