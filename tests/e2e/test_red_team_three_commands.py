"""Issue 27 (third red-team round) through the commands as a user types them: a second sweep under
the same run id, a sweep whose every job fails, a Latin-1 terminal, out-of-range options of the
analysis commands, and arena agents whose bytes are hostile (a reply nested too deeply, a lone
surrogate as the choice). Each ends in the documented exit code and one line, never a traceback
or a silent merge."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from silently_wrong_helpers import (
    ROOT,
    Finished,
    console_command,
    console_in_process,
    in_process,
    module_command,
    read_manifest,
    read_rounds,
    run_process,
    stub_server_class,
    subprocess_env,
)

POLICIES = ROOT / "tests" / "fixtures" / "configs" / "policies.yaml"


def problem_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith(("error: ", "run "))]


def sweep(tmp: Path, *overrides: str, env: dict | None = None):
    return run_process(
        [*module_command(), "-m", *overrides, f"run.output_dir={tmp / 'runs'}",
         f"hydra.sweep.dir={tmp / 'hydra'}"],
        tmp,
    )  # fmt: skip


def sweep_here(tmp: Path, *overrides: str) -> Finished:
    """The same sweep run in this process (silently_wrong_helpers.in_process: Hydra's door with
    the same argv, folder and environment; its exit code and both streams)."""
    args = ["-m", *overrides, f"run.output_dir={tmp / 'runs'}", f"hydra.sweep.dir={tmp / 'hydra'}"]
    return in_process("module", args, tmp)


# --- a second sweep under the same run id -------------------------------------------------------


@pytest.mark.slow
def test_a_second_sweep_with_the_same_run_id_is_refused_not_merged(tmp_path):
    # The sweep and its resume run in this process; the refusal, exit 2 and one line from the
    # process, stays a real `python -m pdbench`.
    first = sweep_here(tmp_path, "agent_a=tft,grim", "horizon.rounds=5", "run.replicates=1",
                       "run.run_id=shared")  # fmt: skip
    assert first.returncode == 0, first.stderr
    run_dir = tmp_path / "runs" / "shared"
    plan = (run_dir / "sweep_plan.json").read_bytes()
    rounds = (run_dir / "rounds.jsonl").read_bytes()

    other = sweep(tmp_path, "agent_a=tft,grim", "horizon.rounds=50", "run.replicates=1",
                  "run.run_id=shared")  # fmt: skip
    assert other.returncode == 2, other.stderr
    assert "Traceback" not in other.stderr
    (line,) = [line for line in other.stderr.splitlines() if line.strip()]
    assert line.startswith("error: ") and "already holds another sweep" in line, line
    assert "run.run_id" in line
    assert (run_dir / "sweep_plan.json").read_bytes() == plan
    assert (run_dir / "rounds.jsonl").read_bytes() == rounds
    assert {r["fixed_n"] for r in read_rounds(run_dir)} == {5}

    again = sweep_here(tmp_path, "agent_a=tft,grim", "horizon.rounds=5", "run.replicates=1",
                       "run.run_id=shared")  # fmt: skip
    assert again.returncode == 0, again.stderr  # the same sweep resumes as before


# --- a sweep whose every job fails --------------------------------------------------------------


@pytest.mark.slow
def test_a_sweep_whose_every_job_fails_exits_non_zero_and_leaves_no_temporary(tmp_path):
    with stub_server_class()() as stub:
        stub.state.broken_models = {"gpt-4o-mini": "502"}
        done = sweep(tmp_path, "agent_a=llm_default", "provider=litellm",
                     "provider.model=openai/gpt-4o-mini", f"provider.api_base={stub.api_base}",
                     "provider.max_attempts=1", "horizon.rounds=2,3", "run.replicates=1",
                     "run.run_id=failing")  # fmt: skip
    assert done.returncode != 0, done.stderr
    assert "Traceback" not in done.stderr and "Error executing callback" not in done.stderr
    assert problem_lines(done.stderr), done.stderr
    run_dir = tmp_path / "runs" / "failing"
    assert read_manifest(run_dir)["status"] != "complete"
    assert not list(run_dir.rglob("*.tmp")), list(run_dir.rglob("*.tmp"))


# --- a Latin-1 terminal -------------------------------------------------------------------------


def test_a_latin_1_terminal_gets_replaced_characters_never_a_traceback(tmp_path):
    config = tmp_path / "unicode.yaml"
    config.write_text(
        "run: {seed: 1, replicates: 1}\nhorizon: {type: fixed, rounds: 3}\nconditions:\n"
        "  - {name: tft→alld_ü_合作, agent_a: tft, agent_b: alld}\n",
        encoding="utf-8",
    )
    import subprocess

    env = {**subprocess_env(tmp_path), "PYTHONIOENCODING": "latin-1", "LC_ALL": "C"}
    done = subprocess.run(
        [*console_command(), "run", str(config), f"run.output_dir={tmp_path / 'runs'}",
         "--run-id", "u", "-q"],
        cwd=ROOT, env=env, capture_output=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr.decode("latin-1")
    assert b"Traceback" not in done.stderr
    assert "tft?alld_ü_??".encode("latin-1") in done.stdout, done.stdout


# --- options of the analysis commands -----------------------------------------------------------


@pytest.fixture(scope="module")
def policies_run(tmp_path_factory) -> Path:
    """One run for every out-of-bounds case (each is refused before it reads or writes the run),
    instead of one run per case."""
    out = tmp_path_factory.mktemp("policies") / "runs"
    with pytest.MonkeyPatch.context() as patch:
        made = console_in_process("run", str(POLICIES), f"run.output_dir={out}", "--run-id", "r",
                                  "-q", monkeypatch=patch)  # fmt: skip
    assert made.returncode == 0, made
    return out / "r"


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["analyze", "RUN", "--seed", "-1"], "--seed -1"),
        (["analyze", "RUN", "--bootstrap", "100000000"], "--bootstrap"),
        (["analyze", "RUN", "--half-width", "nan"], "--half-width nan"),
        (["tournament", "RUN", "--payne-exponent", "nan"], "--payne-exponent nan"),
        (["tournament", "RUN", "--population", "2000000000"], "--population 2000000000"),
        (["tournament", "RUN", "--runs", "100000000"], "--runs 100000000"),
        (["tournament", "RUN", "--generations", "100000000"], "--generations"),
        (["tournament", "RUN", "--seed", "-1"], "--seed -1"),
        (["ui", "RUN", "--port", "99999"], "--port 99999"),
        (["ui", "RUN", "--port", "0"], "--port 0"),
    ],
)
def test_an_option_out_of_its_bounds_is_one_line_and_exit_2(policies_run, monkeypatch, args, named):
    args = [str(policies_run) if arg == "RUN" else arg for arg in args]
    before = sorted(map(str, policies_run.rglob("*")))
    done = console_in_process(*args, monkeypatch=monkeypatch)
    assert done.returncode == 2, done
    (line,) = [line for line in done.stderr.splitlines() if line.strip()]
    assert line.startswith(f"error: {named}") and "must be" in line, line
    assert sorted(map(str, policies_run.rglob("*"))) == before  # refused: nothing written


# --- hostile bytes from an arena agent ----------------------------------------------------------

DEEP_REPLY = """
import fcntl, os

class Agent:
    def on_turn(self, state):
        # Bytes straight onto the reply pipe: 400 KB of nesting no JSON reader can follow.
        for name in os.listdir("/proc/self/fd"):
            fd = int(name)
            try:
                writable = fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_WRONLY
            except OSError:
                continue
            if fd > 2 and writable and os.readlink(f"/proc/self/fd/{fd}").startswith("pipe:"):
                os.write(fd, b"[" * 200000 + b"]" * 200000 + b"\\n")
        return {"type": "commit", "choice": "C"}
"""
SURROGATE = """
class Agent:
    def on_turn(self, state):
        return {"type": "commit", "choice": "\\ud800"}
"""


@pytest.mark.parametrize("source", [DEEP_REPLY, SURROGATE], ids=["deep_reply", "lone_surrogate"])
def test_an_agents_bytes_only_fail_its_own_turn(tmp_path, source):
    agent = tmp_path / "hostile.py"
    agent.write_text(source)
    config = tmp_path / "arena.yaml"
    config.write_text(
        f"run: {{seed: 1, replicates: 1, output_dir: {tmp_path / 'runs'}}}\n"
        "horizon: {type: fixed, rounds: 3}\nconditions:\n  - name: hostile_vs_tft\n"
        f"    agent_a: {{type: arena, path: {agent}, timeout_s: 5.0, sandbox: 'off'}}\n"
        "    agent_b: tft\n"
    )
    done = run_process([*console_command(), "run", str(config), "--run-id", "h", "-q"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    rounds = read_rounds(tmp_path / "runs" / "h")
    assert len(rounds) == 3
    assert read_manifest(tmp_path / "runs" / "h")["status"] == "complete"
    # Every turn of the hostile agent is its own invalid turn, on the record.
    assert all(r["agent_a_error"] for r in rounds), [r.get("agent_a_error") for r in rounds]
    json.dumps(rounds)  # the stored text is valid (no lone surrogate survives)
