"""A run stopped by a full disk resumes once there is space (issue 40), whatever write the disk
refused: a run dir pdbench made stays pdbench's, even before its first manifest, and a paid
answer whose records found no space is counted once and never bought again.

The full disk is tests/fault_injection.py's (ENOSPC where the OS would raise it), in this
process (tests/in_process.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fault_injection import full_disk
from in_process import run_front_door
from openai_stub_server import StubServer
from project_copy import command_env
from stub_http import stub_fixtures

ROOT = Path(__file__).resolve().parents[2]
POLICIES = "tests/fixtures/configs/policies.yaml"  # two cheap policy conditions


REPLICATES, ROUNDS = 4, 3

server, stub = stub_fixtures(StubServer, import_litellm=True)


def _run(tmp_path: Path, *extra: str, config: str | Path = POLICIES):
    args = ["run", str(config), f"run.output_dir={tmp_path / 'runs'}", "--run-id", "r", "-q"]
    env = {**command_env(tmp_path), "OPENAI_API_KEY": "dummy"}
    return run_front_door("cli", [*args, *extra], cwd=ROOT, env=env)


def _paid_experiment(folder: Path, api_base: str) -> Path:
    """An LLM at temperature 0.7 (every answer a sample of its own, bought once) against TFT,
    one call at a time: 12 paid calls."""
    path = folder / "paid.yaml"
    path.write_text(
        f"run: {{seed: 1, replicates: {REPLICATES}, max_concurrency: 1}}\n"
        f"horizon: {{type: fixed, rounds: {ROUNDS}}}\n"
        f'provider: {{name: litellm, model: openai/gpt-4o-mini, api_base: "{api_base}", '
        "max_attempts: 1}\n"
        "persona: cooperative\n"
        "conditions:\n"
        "  - name: sampled_vs_tft\n"
        "    agent_a: {ref: agent/llm_default.yaml, overrides: {temperature: 0.7}}\n"
        "    agent_b: tft\n"
    )
    return path


def _manifest(tmp_path: Path) -> dict:
    return json.loads((tmp_path / "runs" / "r" / "run_manifest.json").read_text())


# --- a run dir pdbench made stays resumable ---------------------------------------------------


@pytest.mark.parametrize(
    "first_refused",
    # the run's first writes, in order: its marker, its ledger's first line, its first manifest
    [".pdbench-run", "run_manifest.json.*.tmp", "matches.jsonl"],
)
def test_a_run_stopped_by_a_full_disk_before_its_first_manifest_resumes(tmp_path, first_refused):
    with full_disk(first_refused, 0):
        failed = _run(tmp_path)
    assert failed.code == 5, failed.stderr
    assert "run the same command again" in failed.stderr
    resumed = _run(tmp_path)  # the disk has space again
    assert resumed.code == 0, resumed.stderr
    assert _manifest(tmp_path)["status"] == "complete"


def test_a_run_dir_another_experiment_began_is_still_refused(tmp_path):
    with full_disk("run_manifest.json.*.tmp", 0):
        assert _run(tmp_path).code == 5
    other = _run(tmp_path, "run.seed=4")  # another experiment under the same run id
    assert other.code == 2
    assert "already holds a different experiment" in other.stderr, other.stderr


def test_a_folder_pdbench_did_not_make_is_still_refused(tmp_path):
    folder = tmp_path / "runs" / "r"
    folder.mkdir(parents=True)
    (folder / "notes.txt").write_text("mine")
    refused = _run(tmp_path)
    assert refused.code == 2
    assert "exists and is not a pdbench run" in refused.stderr, refused.stderr
    assert (folder / "notes.txt").read_text() == "mine"


# --- a paid answer on a full disk -------------------------------------------------------------


def test_a_paid_answer_is_kept_when_the_run_folder_and_the_cache_fill_up(tmp_path, stub):
    """The run folder and the replay cache on one disk that fills up while paying: the answer
    the server billed when the disk filled is journaled in the room the run's reserve gives
    back, counted once, and taken from the journal on resume, never bought again (before: 41
    answered, 40 counted, one bought twice)."""
    config = _paid_experiment(tmp_path, stub.api_base)
    # spend line 1, cache 1, spend line 2, cache 2, then call 3's spend line finds no space
    disk = ("spend.jsonl", "cache.db")
    with full_disk(disk, 4, freed_by=(".pdbench-reserve", 8)):
        failed = _run(tmp_path, config=config)
    assert failed.code == 5, failed.stderr
    assert "disk full while writing" in failed.stderr and "spend.jsonl" in failed.stderr
    assert len(stub.state.requests) == 3
    journal = (tmp_path / "runs" / "r" / "spend.jsonl").read_text().splitlines()
    assert len(journal) == 3  # the third answer is journaled, with its answer and cache key
    assert "answer" in json.loads(journal[-1])

    resumed = _run(tmp_path, config=config)  # space again
    assert resumed.code == 0, resumed.stderr
    received = len(stub.state.requests)
    spend = _manifest(tmp_path)["spend"]
    assert received == spend["live"] == REPLICATES * ROUNDS, (received, spend)
    assert not (tmp_path / "runs" / "r" / ".pdbench-reserve").exists()  # given back at the end
