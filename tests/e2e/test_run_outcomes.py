"""Issue 26: what a run says when it ends, on both front doors.

A run in which a condition has no finished match (every match aborted) is not `complete`: it
has its own status (`aborted`) and exit code (6), so a script can tell. Re-running a complete
run says that nothing was played.

The exit code 6 of an aborted run is checked from a real process on each front door; the other
runs call the same entry functions in this process (tests/in_process.py).
"""

from __future__ import annotations

import json
import socket
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from silently_wrong_helpers import console_command, in_process, module_command, run_process

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

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration"))
from openai_stub_server import StubServer  # noqa: E402

# A turn game whose LLM seat needs many calls before its first match ends.
TURN_GAME_LLM = ["game=liars_dice", "agent_a=llm_default", "agent_b=liars_random"]


def _hydra_single(tmp_path: Path) -> list[str]:
    return ["run.run_id=r", f"hydra.run.dir={tmp_path / 'hydra'}"]


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
        "module",
        [
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
        "cli",
        [
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
    run = ["run", "conf/config.yaml", f"run.output_dir={runs}", *RUN_ID]
    hydra = [f"run.output_dir={runs}", *_hydra_single(tmp_path)]
    first = in_process("cli", run, tmp_path)
    assert first.returncode == 0, first.stderr
    assert "nothing to play" not in first.stdout
    for entry, args in (("cli", run), ("module", hydra)):
        again = in_process(entry, args, tmp_path)
        assert again.returncode == 0, again.stderr
        assert "nothing to play: all 3 matches were already stored" in again.stdout, again.stdout


# --- a run that stored no match (issue 40) ------------------------------------------------------


def _closed_port() -> int:
    """A port on 127.0.0.1 nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _assert_ended_without_a_match(done, runs: Path, status: str, code: int, last: str) -> None:
    assert done.returncode == code, done
    assert "Traceback" not in done.stderr, done
    assert _manifest(runs / "r")["status"] == status
    assert done.stderr.strip().splitlines()[-1].endswith(last), done.stderr
    aggregates = pq.read_table(runs / "r" / "aggregates.parquet").to_pandas()
    assert len(aggregates) == 0 and "condition" in aggregates.columns


@pytest.mark.parametrize("overrides", [TURN_GAME_LLM, ["agent_a=llm_default", "agent_b=tft"]])
def test_a_run_whose_every_server_is_down_is_incomplete_not_a_crash(tmp_path, overrides):
    runs = tmp_path / "runs"
    server = f"http://127.0.0.1:{_closed_port()}/v1"
    done = in_process(
        "cli",
        [
            "run",
            "conf/config.yaml",
            *overrides,
            "provider=local",
            f"provider.api_base={server}",
            "provider.max_attempts=1",
            "run.replicates=1",
            f"run.output_dir={runs}",
            *RUN_ID,
        ],
        tmp_path,
    )
    _assert_ended_without_a_match(
        done, runs, "incomplete", 3, "run the same command again to resume them"
    )


def test_a_budget_spent_before_the_first_match_ends_stops_the_run(tmp_path):
    runs = tmp_path / "runs"
    with StubServer() as stub:
        stub.state.prompt_tokens = 100_000  # $0.015 a call at gpt-4o-mini's price
        done = in_process(
            "cli",
            [
                "run",
                "conf/config.yaml",
                *TURN_GAME_LLM,
                "provider=litellm",
                "provider.model=openai/gpt-4o-mini",
                f"provider.api_base={stub.api_base}",
                "run.max_cost_usd=0.01",
                "run.replicates=1",
                f"run.output_dir={runs}",
                *RUN_ID,
            ],
            tmp_path,
        )
    assert len(stub.state.requests) == 1  # the one call that spent the budget
    _assert_ended_without_a_match(
        done, runs, "stopped", 4, "raise run.max_cost_usd and run the same command again"
    )
