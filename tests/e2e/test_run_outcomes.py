"""Issue 26: what a run says when it ends, on both front doors.

A run in which a condition has no finished match (every match aborted) is not `complete`: it
has its own status (`aborted`) and exit code (6), so a script can tell. Re-running a complete
run says that nothing was played.

The exit code 6 of an aborted run is checked from a real process on each front door; the other
runs call the same entry functions in this process (tests/in_process.py).
"""

from __future__ import annotations

import json
from pathlib import Path

from in_process import run_front_door
from project_copy import shared_copy
from silently_wrong_helpers import (
    Finished,
    console_command,
    module_command,
    run_process,
    subprocess_env,
)

ALL_ABORT = ["agent_a=llm_default", "agent_b=grim", "provider.mock.invalid_rate=1.0"]
# One round, no retry, fresh answers: each match aborts with probability 1/2.
HALF_ABORT = [
    "agent_a=llm_default",
    "agent_b=grim",
    "provider.mock.invalid_rate=0.5",
    "agent_a.max_retries=0",
    "agent_a.temperature=1.0",
    "horizon.rounds=1",
    "run.replicates=12",
]
RUN_ID = ["--run-id", "r"]


def _hydra_single(tmp_path: Path) -> list[str]:
    return ["run.run_id=r", f"hydra.run.dir={tmp_path / 'hydra'}"]


def in_process(command: list[str], tmp_path: Path) -> Finished:
    """`command` (console_command() or module_command() and its arguments) through the same
    front door in this process, in the shared copy of the project, as run_process would."""
    for entry, prefix in (("cli", console_command()), ("module", module_command())):
        if command[: len(prefix)] == prefix:
            ran = run_front_door(
                entry, command[len(prefix) :], cwd=shared_copy(), env=subprocess_env(tmp_path)
            )
            assert ran.code is not None
            return Finished(ran.code, ran.stdout, ran.stderr)
    raise ValueError(f"not a pdbench command: {command}")


def _manifest(run_dir: Path) -> dict:
    return json.loads((run_dir / "run_manifest.json").read_text())


def test_a_run_whose_every_match_aborted_is_not_complete(tmp_path):
    runs = tmp_path / "runs"
    done = run_process(
        [
            *console_command(),
            "run",
            "conf/config.yaml",
            *ALL_ABORT,
            f"run.output_dir={runs}",
            *RUN_ID,
        ],
        tmp_path,
    )
    assert done.returncode == 6, done.stderr
    assert _manifest(runs / "r")["status"] == "aborted"
    last = done.stderr.strip().splitlines()[-1]
    assert "no finished match" in last and "0/3" in last, done.stderr


def test_the_hydra_door_says_aborted_too(tmp_path):
    runs = tmp_path / "runs"
    done = run_process(
        [*module_command(), *ALL_ABORT, f"run.output_dir={runs}", *_hydra_single(tmp_path)],
        tmp_path,
    )
    assert done.returncode == 6, done.stderr
    assert _manifest(runs / "r")["status"] == "aborted"


def test_a_sweep_with_a_condition_without_finished_match_is_aborted(tmp_path):
    runs = tmp_path / "runs"
    done = in_process(
        [
            *module_command(),
            "-m",
            "agent_a=llm_default,tft",  # tft vs grim finishes; the llm side aborts every match
            "agent_b=grim",
            "provider.mock.invalid_rate=1.0",
            f"run.output_dir={runs}",
            "run.run_id=s",
            f"hydra.sweep.dir={tmp_path / 'hydra'}",
        ],
        tmp_path,
    )
    assert done.returncode == 6, done.stderr
    assert _manifest(runs / "s")["status"] == "aborted"


def test_a_run_with_some_aborted_matches_stays_complete(tmp_path):
    runs = tmp_path / "runs"
    done = in_process(
        [
            *console_command(),
            "run",
            "conf/config.yaml",
            *HALF_ABORT,
            f"run.output_dir={runs}",
            *RUN_ID,
        ],
        tmp_path,
    )
    manifest = _manifest(runs / "r")
    assert manifest["matches"]["failed"], "the setting no longer aborts any match"
    assert len(manifest["matches"]["failed"]) < 12
    assert done.returncode == 0, done.stderr
    assert manifest["status"] == "complete"


def test_rerunning_a_complete_run_says_nothing_was_played(tmp_path):
    runs = tmp_path / "runs"
    run = [*console_command(), "run", "conf/config.yaml", f"run.output_dir={runs}", *RUN_ID]
    hydra = [*module_command(), f"run.output_dir={runs}", *_hydra_single(tmp_path)]
    first = in_process(run, tmp_path)
    assert first.returncode == 0, first.stderr
    assert "nothing to play" not in first.stdout
    for command in (run, hydra):
        again = in_process(command, tmp_path)
        assert again.returncode == 0, again.stderr
        assert "nothing to play: all 3 matches were already stored" in again.stdout, again.stdout
