"""Issue 13 through real processes, as a user types the commands from the project root: one writer
per run dir (case 2), exit codes and Ctrl-C (12), unknown keys (9), the Hydra door's provider
overrides (1), policy defaults (14) and `persona: none` (16). Sweeps are in
test_never_silently_wrong_sweeps.py. What `validate` says is checked in this process (`validate`
below); its exit code as a real process gives it, by the console door's misspelt-key case.

Slow runs use the offline mock with `latency_s`, so a process is still writing when the test acts.
"""

from __future__ import annotations

import json
import re
import signal
import time
from pathlib import Path

import pytest
from in_process import run_front_door
from project_copy import shared_copy
from silently_wrong_helpers import (
    FIXTURES,
    ROOT,
    Finished,
    console_command,
    error_lines,
    in_process,
    module_command,
    moves,
    read_manifest,
    read_rounds,
    rounds_per_match,
    run_experiment_file,
    run_process,
    start_process,
    subprocess_env,
)


def validate(tmp: Path, *args: str) -> Finished:
    """`pdbench validate <args>` in this process (`in_process`), a process start fewer: what
    validate says is not about the process. The process's own exit codes are checked by the
    cases that start one (test_a_misspelt_added_key_is_an_error_with_a_suggestion, both doors)."""
    return in_process("cli", ["validate", *args], tmp)


SLOW = str(FIXTURES / "slow_mock.yaml")  # 4 matches of 20 rounds at 0.05 s per answer
SLOW_ROUNDS = 20


def slow_run_command(output: Path, *options: str) -> list[str]:
    return [*console_command(), *slow_run_args(output, *options)]


def slow_run_args(output: Path, *options: str) -> list[str]:
    """`slow_run_command` without the program: the same command for the in-process door."""
    return [
        "run",
        SLOW,
        f"run.output_dir={output}",
        "--run-id",
        "slow",
        "-q",
        *options,
    ]


def wait_for(path: Path, process, timeout: float = 60, nonempty: bool = False) -> None:
    """Until `path` exists (and holds bytes, if asked) while `process` still runs."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and (not nonempty or path.stat().st_size > 0):
            return
        assert process.poll() is None, f"the process ended early: {process.communicate()}"
        time.sleep(0.05)
    raise AssertionError(f"{path} did not appear within {timeout} s")


# --- case 2: one writer per run dir --------------------------------------------------------------


def test_a_second_writer_on_a_live_run_dir_is_refused(tmp_path):
    output = tmp_path / "runs"
    # 30 matches (30 s of answers): the first run is stopped once the second has answered.
    command = slow_run_command(output, "--replicates", "30")
    first = start_process(command, tmp_path)
    try:
        wait_for(output / "slow" / "run_manifest.json", first)
        # The second writer through the console door in this process: another process than the
        # first writer's (the first is the real process that holds the run dir); what is checked
        # is its refusal, exit code and line. Stopped if it still runs after 60 s: not refused.
        second = run_front_door(
            "cli", slow_run_args(output, "--replicates", "30"), cwd=shared_copy(),
            env=subprocess_env(tmp_path), wall_limit_s=60,
        )  # fmt: skip
        assert second.code is not None, "the second writer still ran after 60 s: not refused"
        assert first.poll() is None, "the first run ended before the second started: too fast"
        assert second.code == 2, second.stdout + second.stderr
        (line,) = error_lines(second.stderr)
        assert "is being written by another process" in line and str(first.pid) in line, line
    finally:
        first.send_signal(signal.SIGTERM)
        first.communicate(timeout=30)
    assert max(rounds_per_match(output / "slow").values(), default=0) <= SLOW_ROUNDS


def test_aggregate_refuses_a_match_stored_twice(tmp_path):
    outcome = run_experiment_file(
        FIXTURES / "never_collapses.yaml", [], output_dir=tmp_path / "runs", run_id="twice"
    )
    run_dir = outcome.run_dir
    # What a second writer leaves: the rounds of replicate 0 and its ledger line once more.
    lines = (run_dir / "rounds.jsonl").read_bytes().splitlines(keepends=True)
    again = [line for line in lines if json.loads(line)["replicate"] == 0]
    with (run_dir / "rounds.jsonl").open("ab") as rounds:
        rounds.writelines(again)
    ledger = [json.loads(line) for line in (run_dir / "matches.jsonl").read_text().splitlines()]
    entry = next(e for e in ledger if e["replicate"] == 0)
    entry["rounds_end_offset"] = (run_dir / "rounds.jsonl").stat().st_size
    with (run_dir / "matches.jsonl").open("a") as out:
        out.write(json.dumps(entry) + "\n")

    # In this process (the console door's entry function): the refusal's exit code, its one line
    # and no traceback are what `aggregate` says, not the process's.
    done = in_process("cli", ["aggregate", str(run_dir)], tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    (line,) = error_lines(done.stderr)
    assert "tft_pair" in line and "replicate" in line and "12" in line, line
    assert "Traceback" not in done.stderr


# --- case 12: exit codes tell the truth ----------------------------------------------------------


@pytest.fixture(scope="module")
def interrupted(tmp_path_factory):
    """A slow run sent SIGINT (Ctrl-C) once its first match is stored."""
    tmp = tmp_path_factory.mktemp("interrupted")
    output = tmp / "runs"
    process = start_process(slow_run_command(output), tmp)
    wait_for(output / "slow" / "rounds.jsonl", process, nonempty=True)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=30)
    return process.returncode, stderr, output, tmp


def test_ctrl_c_exits_130_with_one_line_and_an_interrupted_status(interrupted):
    returncode, stderr, output, _ = interrupted
    assert returncode == 130, stderr
    assert len(stderr.strip().splitlines()) == 1, stderr
    assert read_manifest(output / "slow")["status"] == "interrupted"


def test_an_interrupted_run_resumes_with_the_same_command(interrupted):
    _, _, output, tmp = interrupted
    # The same command again, in this process: the resume is about the run dir it finds, not the
    # process (the Ctrl-C that interrupted it was a real process's).
    done = in_process("cli", slow_run_args(output), tmp)
    assert done.returncode == 0, done.stderr
    assert "resumed" in done.stdout
    assert read_manifest(output / "slow")["status"] == "complete"
    assert rounds_per_match(output / "slow") == {
        ("slow_llm_vs_tft", replicate): SLOW_ROUNDS for replicate in range(4)
    }


def test_sigterm_exits_130_and_the_run_is_marked_interrupted(tmp_path):
    output = tmp_path / "runs"
    process = start_process(slow_run_command(output), tmp_path)
    wait_for(output / "slow" / "run_manifest.json", process)
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 130, stderr
    assert read_manifest(output / "slow")["status"] == "interrupted"


def test_ctrl_c_on_the_hydra_door_exits_130(tmp_path):
    output = tmp_path / "runs"
    process = start_process(
        [
            *module_command(),
            "agent_a=llm_default",
            "provider.mock.latency_s=0.1",
            "run.max_concurrency=1",
            "horizon.rounds=30",
            "run.run_id=slow",
            f"run.output_dir={output}",
            f"hydra.run.dir={tmp_path / 'hydra'}",
        ],
        tmp_path,
    )
    wait_for(output / "slow" / "run_manifest.json", process)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 130, stderr
    assert read_manifest(output / "slow")["status"] == "interrupted"


# --- case 9: unknown keys ------------------------------------------------------------------------


@pytest.mark.parametrize("door", ["console", "hydra"])
def test_a_misspelt_added_key_is_an_error_with_a_suggestion(tmp_path, door):
    output = tmp_path / "runs"
    args = ["+runn.seed=1", f"run.output_dir={output}", "horizon.rounds=2", "run.replicates=1"]
    if door == "console":
        command = [*console_command(), "validate", "conf/config.yaml", *args]
    else:
        command = [*module_command(), *args, f"hydra.run.dir={tmp_path / 'hydra'}"]
    done = run_process(command, tmp_path)
    assert done.returncode == 2, done.stdout
    (line,) = error_lines(done.stderr)
    assert "runn" in line and "did you mean" in line and '"run"' in line, line
    assert not output.exists()


@pytest.fixture(scope="module")
def misspelt_on_an_experiment_file(tmp_path_factory):
    config = str(FIXTURES / "never_collapses.yaml")
    tmp = tmp_path_factory.mktemp("misspelt")
    return validate(tmp, config, "+runn.seed=1")


def test_a_misspelt_key_on_an_experiment_file_is_an_error(misspelt_on_an_experiment_file):
    done = misspelt_on_an_experiment_file
    assert done.returncode == 2
    (line,) = error_lines(done.stderr)
    assert "runn.seed" in line, line


def test_a_misspelt_key_on_an_experiment_file_gets_a_suggestion(misspelt_on_an_experiment_file):
    (line,) = error_lines(misspelt_on_an_experiment_file.stderr)
    assert "did you mean" in line and '"run"' in line, line


def test_metrics_names_is_an_unknown_field(tmp_path):
    done = validate(tmp_path, str(FIXTURES / "unknown_metric.yaml"))
    assert done.returncode == 2, done.stdout
    (line,) = error_lines(done.stderr)
    assert "unknown_metric.yaml" in line and "names" in line, line


# --- case 1: provider overrides on the Hydra command line ----------------------------------------

PROVIDER_MODEL = ["agent_b=llm_default", "agent_b.provider.model=mock-b"]


def test_an_agents_provider_field_can_be_set_on_the_command_line(tmp_path):
    checked = validate(tmp_path, "conf/config.yaml", *PROVIDER_MODEL)
    assert checked.returncode == 0, checked.stderr
    assert "mock-b[cooperative]" in checked.stdout

    output = tmp_path / "runs"
    # The Hydra door in this process: which model agent_b got is the point, not the process
    # (the Hydra door's process is run by the Ctrl-C and misspelt-key cases).
    done = in_process(
        "module",
        [
            *PROVIDER_MODEL,
            "horizon.rounds=2",
            "run.replicates=1",
            "run.run_id=b",
            f"run.output_dir={output}",
            f"hydra.run.dir={tmp_path / 'hydra'}",
        ],
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert {r["agent_b"] for r in read_rounds(output / "b")} == {"mock-b[cooperative]"}


# --- case 14: defaults that turn one policy into another -----------------------------------------


@pytest.mark.parametrize("game", ["stag_hunt", "chicken"])
def test_a_degenerate_gtft_default_is_warned_about(tmp_path, game):
    done = validate(tmp_path, str(FIXTURES / f"gtft_{game}.yaml"))
    assert done.returncode == 0, done.stderr
    warnings = [
        line for line in (done.stdout + done.stderr).splitlines() if line.startswith("warning:")
    ]
    assert len(warnings) == 1 and "generous_prob" in warnings[0], done.stdout + done.stderr


def test_gtft_in_the_prisoners_dilemma_is_not_warned_about(tmp_path):
    done = validate(tmp_path, str(FIXTURES / "gtft_pd.yaml"))
    assert done.returncode == 0, done.stderr
    assert "warning:" not in done.stdout + done.stderr


def test_wsls_follows_the_outcome_rule_by_default(tmp_path):
    outcome = run_experiment_file(
        FIXTURES / "wsls_stag_hunt.yaml", [], output_dir=tmp_path, run_id="wsls"
    )
    rounds = read_rounds(outcome.run_dir)
    assert moves(rounds, "wsls_default", 0, "b") == "DCCCC"
    # C after CC and DD, D after CD and DC (Axelrod's four-vector 1, 0, 0, 1).
    assert moves(rounds, "wsls_default", 0, "a") == "CDDDD"


def test_wsls_rule_is_an_option(tmp_path):
    config = FIXTURES / "wsls_rules.yaml"
    checked = validate(tmp_path, str(config))
    assert checked.returncode == 0, checked.stderr
    outcome = run_experiment_file(config, [], output_dir=tmp_path, run_id="rules")
    rounds = read_rounds(outcome.run_dir)
    assert moves(rounds, "wsls_outcome", 0) == "CDDDD"
    assert moves(rounds, "wsls_payoff", 0) == "CDCCC"


# --- case 16: persona none -----------------------------------------------------------------------


def test_persona_none_works_in_an_experiment_file(tmp_path):
    config = FIXTURES / "persona_none.yaml"
    checked = validate(tmp_path, str(config))
    assert checked.returncode == 0, checked.stderr
    outcome = run_experiment_file(config, [], output_dir=tmp_path, run_id="none")
    system = read_rounds(outcome.run_dir)[0]["agent_a_attempts"][0]["system"]
    for persona in (ROOT / "prompts" / "personas").glob("*.md"):
        # The persona's longest stretch of words without a placeholder (labels are filled in).
        opening = max(re.split(r"\{[^}]*\}", persona.read_text().strip()), key=len)
        assert len(opening) > 20 and opening not in system, f"{persona.name} is in the prompt"
