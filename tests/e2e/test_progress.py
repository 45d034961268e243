"""Issue 26: progress moves. The calls and matches a run reports grow while it plays (they sat
at 0 until the end: a mock answering at once never let the loop breathe), and without a
terminal a one-line status is printed every few seconds (`--status-every`,
PDBENCH_STATUS_EVERY), on both front doors."""

from __future__ import annotations

import re
from pathlib import Path

from silently_wrong_helpers import ROOT, console_command, module_command, run_process

from pdbench.runners.experiment import run_experiment
from pdbench.runners.prepare import load
from pdbench.storage.schema import CallCounts

STATUS = re.compile(r"^progress: matches (\d+)/(\d+) calls (\d+) live / (\d+) cached", re.M)


def test_calls_and_matches_are_reported_as_they_happen(tmp_path):
    loaded = load(
        ROOT / "conf" / "config.yaml",
        [
            "agent_a=llm_default",
            "agent_b=grim",
            "agent_a.temperature=1.0",  # every replicate asks afresh
            "run.replicates=64",
            # 5 rounds (10, and the default 20 before, doubled the calls each time): even with
            # all 16 matches in flight served in turn the first would end near call 80 of 320,
            # far from the end, as near 160 of 640 did (it ends near call 6 today).
            "horizon.rounds=5",
            f"run.output_dir={tmp_path / 'runs'}",
        ],
        run_id="p",
        project_root=ROOT,
    )
    counters: list[CallCounts] = []
    live_when_done: list[int] = []
    outcome = run_experiment(
        loaded,
        watch_calls=counters.append,
        on_match_done=lambda _match, _calls: live_when_done.append(counters[0].live),
    )
    total = outcome.calls.live
    assert total == 64 * 5 and len(live_when_done) == 64
    # The first match is reported long before the last call (not all at the end).
    assert live_when_done[0] < total / 2, live_when_done[:5]
    assert live_when_done == sorted(live_when_done)


def _statuses(stderr: str) -> list[tuple[int, ...]]:
    return [tuple(int(g) for g in m.groups()) for m in STATUS.finditer(stderr)]


# 12 matches of 5 rounds, 60 calls at 0.05 s two at a time: 1.5 s of answers or more, six
# status periods of 0.25 s (was 10 rounds and 0.5 s: twice as long for the same six periods).
SLOW_RUN = [
    "agent_a=llm_default",
    "agent_b=grim",
    "agent_a.temperature=1.0",
    "provider.mock.latency_s=0.05",
    "run.max_concurrency=2",
    "horizon.rounds=5",
    "run.replicates=12",
]
STATUS_EVERY = "0.25"


def _check_statuses(stderr: str) -> None:
    statuses = _statuses(stderr)
    assert len(statuses) >= 2, stderr
    assert statuses[0][1] == 12
    assert statuses[0][0] < 12, "the first status came at the end"
    assert statuses[-1][2] > statuses[0][2], "the calls did not move"
    assert [s[0] for s in statuses] == sorted(s[0] for s in statuses)


def test_without_a_terminal_pdbench_run_prints_a_status_now_and_then(tmp_path: Path):
    done = run_process(
        [
            *console_command(),
            "run",
            "conf/config.yaml",
            *SLOW_RUN,
            f"run.output_dir={tmp_path / 'runs'}",
            "--run-id",
            "r",
            "--status-every",
            STATUS_EVERY,
        ],
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    _check_statuses(done.stderr)


def test_the_status_every_variable_serves_the_hydra_door(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("PDBENCH_STATUS_EVERY", STATUS_EVERY)
    done = run_process(
        [
            *module_command(),
            *SLOW_RUN,
            f"run.output_dir={tmp_path / 'runs'}",
            "run.run_id=r",
            f"hydra.run.dir={tmp_path / 'hydra'}",
        ],
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    _check_statuses(done.stderr)


def test_quiet_prints_no_status(tmp_path: Path):
    done = run_process(
        [
            *console_command(),
            "run",
            "conf/config.yaml",
            *SLOW_RUN,
            f"run.output_dir={tmp_path / 'runs'}",
            "--run-id",
            "r",
            "-q",
            "--status-every",
            STATUS_EVERY,
        ],
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert not _statuses(done.stderr)
