"""Runs with deal keys (issue 40), in this process: runs of one workspace deal alike (the README's
promise: the same config and seed give identical rounds under another run id), another
workspace deals otherwise unless its key is pinned (run.deal_key_file), a run folder copied to
another machine resumes with its own key, a lost or contradicted key is one line and exit 2, and
runs made before deal keys (tests/fixtures/legacy_runs, made by the pdbench of commit 8f18a52)
resume dealing exactly as they began."""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
from pathlib import Path

import orjson
import pytest
from in_process import run_front_door

from pdbench.analysis.metrics.aggregate import write_aggregates
from pdbench.core.errors import PdbenchError
from pdbench.runners.deal import WORKSPACE_KEY_ENV
from pdbench.runners.experiment import run_experiment
from pdbench.runners.prepare import load

ROOT = Path(__file__).resolve().parents[2]
LEGACY = ROOT / "tests" / "fixtures" / "legacy_runs"
# Chance everywhere: a geometric length, GTFT's forgiveness, RANDOM's moves, the noise's flips.
EXPERIMENT = """
run: {seed: 42, replicates: 4}
game: {id: pd, noise: 0.1}
horizon: {type: geometric, stop_prob: 0.2, max_rounds: 30}
conditions:
  - {name: gtft_vs_random, agent_a: gtft, agent_b: random}
"""


def rounds_of(run_dir: Path) -> list[dict]:
    """rounds.jsonl without what differs between two runs of one deal (clock, run id)."""
    kept = []
    for line in (run_dir / "rounds.jsonl").read_bytes().splitlines():
        record = orjson.loads(line)
        record.pop("timestamp_utc"), record.pop("run_id")
        kept.append(record)
    return kept


@pytest.fixture
def experiment(tmp_path) -> Path:
    path = tmp_path / "chance.yaml"
    path.write_text(EXPERIMENT)
    return path


def run(experiment: Path, runs: Path, run_id: str, *overrides: str) -> Path:
    loaded = load(
        experiment, [f"run.output_dir={runs}", *overrides], run_id=run_id, project_root=ROOT
    )
    outcome = run_experiment(loaded)
    assert outcome.status == "complete", outcome.error
    return outcome.run_dir


def test_runs_of_one_workspace_share_its_key_and_deal_alike(experiment, tmp_path):
    runs = tmp_path / "runs"
    first, second = run(experiment, runs, "first"), run(experiment, runs, "second")
    assert rounds_of(first) == rounds_of(second)
    workspace = (runs / "deal.key").read_bytes()
    for key in (runs / "deal.key", first / "deal.key", second / "deal.key"):
        assert key.read_bytes() == workspace and stat.S_IMODE(key.stat().st_mode) == 0o600
    manifest = orjson.loads((first / "run_manifest.json").read_bytes())
    fingerprint = hashlib.sha256(bytes.fromhex(workspace.decode().strip())).hexdigest()[:16]
    assert manifest["deal"] == {
        "derivation": "hmac-sha256",
        "file": "deal.key",
        "fingerprint": fingerprint,
    }
    # the key itself is in the key files only
    secret = workspace.strip()
    for path in first.rglob("*"):
        if path.is_file() and path.name != "deal.key":
            assert secret not in path.read_bytes(), path


def test_another_workspace_deals_otherwise_unless_its_key_is_pinned(
    experiment, tmp_path, monkeypatch
):
    monkeypatch.delenv(WORKSPACE_KEY_ENV)  # each workspace makes a key of its own
    here = run(experiment, tmp_path / "here", "r")
    elsewhere = run(experiment, tmp_path / "elsewhere", "r")
    assert rounds_of(elsewhere) != rounds_of(here)  # the same public seed, another key
    pinned = run(
        experiment, tmp_path / "pinned", "r", f"run.deal_key_file={tmp_path / 'here' / 'deal.key'}"
    )
    assert rounds_of(pinned) == rounds_of(here)
    assert (pinned / "deal.key").read_bytes() == (here / "deal.key").read_bytes()
    assert not (tmp_path / "pinned" / "deal.key").exists()  # no workspace key was needed


def test_a_run_folder_copied_to_another_machine_resumes_with_its_own_key(experiment, tmp_path):
    made = run(experiment, tmp_path / "here", "r")
    elsewhere = tmp_path / "elsewhere"
    copy = shutil.copytree(made, elsewhere / "r")
    ledger = (copy / "matches.jsonl").read_bytes().splitlines(keepends=True)
    (copy / "matches.jsonl").write_bytes(ledger[0])  # as if killed after its first match
    resumed = run(experiment, elsewhere, "r")
    assert rounds_of(resumed) == rounds_of(made)
    assert not (elsewhere / "deal.key").exists()  # the run's own key, no workspace key


def test_a_lost_or_contradicted_run_key_is_one_line_and_exit_2(experiment, tmp_path):
    runs = tmp_path / "runs"
    made = run(experiment, runs, "r")
    other = tmp_path / "other.key"
    other.write_text(os.urandom(32).hex() + "\n")
    command = ["run", str(experiment), f"run.output_dir={runs}", "--run-id", "r", "-q"]
    pinned = run_front_door(
        "cli", [*command, f"run.deal_key_file={other}"], cwd=ROOT, env=dict(os.environ)
    )
    assert pinned.code == 2, pinned.stderr
    (line,) = pinned.stderr.strip().splitlines()
    assert line.startswith("error: run.deal_key_file: holds deal key") and "--run-id" in line
    (made / "deal.key").unlink()
    lost = run_front_door("cli", command, cwd=ROOT, env=dict(os.environ))
    assert lost.code == 2, lost.stderr
    (line,) = lost.stderr.strip().splitlines()
    assert f"{made / 'deal.key'} is missing" in line and "docs/security.md" in line
    missing = [f"run.output_dir={runs}", f"run.deal_key_file={tmp_path / 'none.key'}"]
    loaded = load(experiment, missing, run_id="new", project_root=ROOT)
    with pytest.raises(PdbenchError, match=r"run\.deal_key_file: .*: no such file"):
        run_experiment(loaded)
    assert not (runs / "new").exists()  # refused before its folder was made


@pytest.mark.parametrize("name", ["matrix", "liars_dice"])
def test_a_run_made_before_deal_keys_resumes_dealing_as_it_began(tmp_path, name):
    """Its manifest has no `deal` record: the unkeyed derivation deals its unfinished matches
    (here all but the first), so it ends as the older pdbench would have ended it."""
    runs = tmp_path / "runs"
    copy = shutil.copytree(LEGACY / name, runs / name)
    ledger = (copy / "matches.jsonl").read_bytes().splitlines(keepends=True)
    (copy / "matches.jsonl").write_bytes(ledger[0])
    resumed = run(LEGACY / f"{name}.yaml", runs, name)
    assert rounds_of(resumed) == rounds_of(LEGACY / name)
    assert not (runs / "deal.key").exists() and not (resumed / "deal.key").exists()
    manifest = orjson.loads((resumed / "run_manifest.json").read_bytes())
    assert manifest["deal"] is None and manifest["matches"]["completed"] == len(ledger)
    table = write_aggregates(resumed)  # `pdbench aggregate`, as before
    assert set(table["condition"]) == set(manifest["conditions"])


def test_a_new_workspace_key_is_a_copy_of_the_one_the_environment_names(experiment, tmp_path):
    """$PDBENCH_WORKSPACE_DEAL (set for the whole test session): two workspaces whose keys are
    copies of it deal alike, and the key file is copied, never linked."""
    here = run(experiment, tmp_path / "here", "r")
    elsewhere = run(experiment, tmp_path / "elsewhere", "r")
    assert rounds_of(elsewhere) == rounds_of(here)
    given = Path(os.environ[WORKSPACE_KEY_ENV]).read_bytes()
    for workspace in ("here", "elsewhere"):
        key_file = tmp_path / workspace / "deal.key"
        assert key_file.read_bytes().strip() == given.strip() and not key_file.is_symlink()
