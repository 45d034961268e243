"""Every bad input ends in exit code 2 and one line naming the file and the field.

Through the real command line in subprocesses (the `pdbench` console script and
`python -m pdbench`), run in a copy of the committed project (tests/project_copy.py: never the
user's edited conf/). Most cases use `pdbench validate`, which runs
nothing; all cases are started at once in a thread pool (module fixture) so the suite stays fast,
and each parametrized test then checks one of the finished processes.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
from project_copy import copy_project

from pdbench.core.errors import ConfigError
from pdbench.runners.prepare import load

ROOT = Path(__file__).resolve().parents[2]
BAD = "tests/fixtures/configs/bad"
FIXTURES = ROOT / "tests" / "fixtures" / "configs"
PRIMARY = "conf/config.yaml"
EXPERIMENT = "conf/experiment.yaml"


def pdbench_command() -> list[str]:
    """The installed console script (what `uv run pdbench` runs), without uv's start-up cost."""
    script = Path(sys.executable).with_name("pdbench")
    if script.is_file():
        return [str(script)]
    return [shutil.which("uv") or "uv", "run", "pdbench"]


def subprocess_env(tmp: Path) -> dict[str, str]:
    env = {**os.environ, "PDBENCH_CACHE_DIR": str(tmp / "cache")}
    for name in ("HYDRA_FULL_ERROR", "PDBENCH_SWEEP_ID"):
        env.pop(name, None)
    return env


@dataclass(frozen=True)
class Case:
    id: str
    args: tuple[str, ...]  # after `pdbench` (entry "cli") or `python -m pdbench` (entry "hydra")
    field: str  # must appear in the message
    file: str | None  # must appear in the message (None: the input is not in a file)
    suggest: str | None = None  # a near miss: the message must say did you mean "<suggest>"
    entry: str = "cli"


def validate(path: str, *overrides: str) -> tuple[str, ...]:
    return ("validate", path, *overrides)


CASES = [
    Case("malformed_yaml", validate(f"{BAD}/malformed.yaml"), "line 4", f"{BAD}/malformed.yaml"),
    Case(
        "unknown_agent_option_primary",
        validate(PRIMARY, "agent_a=tftt"),
        "agent_a",
        PRIMARY,
        suggest="tft",
    ),
    Case(
        "unknown_persona_option_primary",
        validate(PRIMARY, "persona=exploitatve"),
        "persona",
        PRIMARY,
        suggest="exploitative",
    ),
    Case(
        "unknown_agent_name_experiment",
        validate(f"{BAD}/unknown_agent.yaml"),
        "conditions[0](unknown_agent).agent_a",
        f"{BAD}/unknown_agent.yaml",
        suggest="grim",
    ),
    Case(
        "unknown_top_level_key",
        validate(f"{BAD}/top_level_typo.yaml"),
        "runn",
        f"{BAD}/top_level_typo.yaml",
        suggest="run",
    ),
    Case(
        "unknown_condition_key",
        validate(f"{BAD}/unknown_condition_key.yaml"),
        "conditions[0](typo).agnet_b",
        f"{BAD}/unknown_condition_key.yaml",
        suggest="agent_b",
    ),
    Case(
        "field_typo_in_ref_overrides",
        validate(f"{BAD}/ref_field_typo.yaml"),
        "conditions[0](ref_field_typo).agent_a.overrides.histroy_window",
        f"{BAD}/ref_field_typo.yaml",
        suggest="history_window",
    ),
    Case(
        "field_typo_in_condition_overrides",
        validate(f"{BAD}/condition_field_typo.yaml"),
        "conditions[0](condition_field_typo).agent_a.histroy_window",
        f"{BAD}/condition_field_typo.yaml",
        suggest="history_window",
    ),
    Case(
        "run_field_typo_experiment",
        validate(EXPERIMENT, "run.seedd=1"),
        "run.seedd",
        EXPERIMENT,
        suggest="seed",
    ),
    Case(
        "run_field_typo_primary",
        validate(PRIMARY, "run.seedd=1"),
        "run.seedd",
        PRIMARY,
        suggest="seed",
    ),
    Case(
        "agent_field_typo_primary",
        validate(PRIMARY, "agent_a=llm_default", "agent_a.histroy_window=3"),
        "agent_a.histroy_window",
        PRIMARY,
        suggest="history_window",
    ),
    Case(
        "policy_param_typo",
        validate(f"{BAD}/policy_param_typo.yaml"),
        "generouss_prob",
        f"{BAD}/policy_param_typo.yaml",
        suggest="generous_prob",
    ),
    Case(
        "generous_prob_out_of_range",
        validate(PRIMARY, "agent_a=gtft", "agent_a.params.generous_prob=1.5"),
        "agent_a.params.generous_prob",
        PRIMARY,
    ),
    *[
        Case(
            f"stop_prob_{name}",
            validate(f"{BAD}/stop_prob_{name}.yaml"),
            f"conditions[0](stop_prob_{name}).horizon.stop_prob",
            f"{BAD}/stop_prob_{name}.yaml",
        )
        for name in ("zero", "one", "high")
    ],
    Case(
        "stop_prob_primary",
        validate(PRIMARY, "horizon=geometric", "horizon.stop_prob=1.5"),
        "horizon.stop_prob",
        PRIMARY,
    ),
    Case(
        "history_window_negative",
        validate(f"{BAD}/history_window_negative.yaml"),
        "conditions[0](history_window_negative).agent_a.history_window",
        f"{BAD}/history_window_negative.yaml",
    ),
    Case(
        "rounds_zero",
        validate(f"{BAD}/rounds_zero.yaml"),
        "conditions[0](rounds_zero).horizon.rounds",
        f"{BAD}/rounds_zero.yaml",
    ),
    Case(
        "rounds_negative_override",
        validate(EXPERIMENT, "horizon.rounds=-1"),
        "horizon.rounds",
        EXPERIMENT,
    ),
    Case(
        "max_retries_negative",
        validate(f"{BAD}/max_retries_negative.yaml"),
        "conditions[0](max_retries_negative).agent_a.max_retries",
        f"{BAD}/max_retries_negative.yaml",
    ),
    Case(
        "max_retries_negative_primary",
        validate(PRIMARY, "agent_a=llm_default", "agent_a.max_retries=-1"),
        "agent_a.max_retries",
        PRIMARY,
    ),
    Case(
        "missing_ref_file",
        validate(f"{BAD}/missing_ref.yaml"),
        "conditions[0](missing_ref).agent_a.ref",
        f"{BAD}/missing_ref.yaml",
        suggest="agent/llm_default.yaml",
    ),
    Case(
        "missing_prompt_file",
        validate(f"{BAD}/missing_prompt.yaml"),
        "agent_a.system_prompt",
        f"{BAD}/missing_prompt.yaml",
    ),
    Case(
        "missing_persona",
        validate(f"{BAD}/missing_persona.yaml"),
        "agent_a.persona",
        f"{BAD}/missing_persona.yaml",
        suggest="cooperative",
    ),
    Case(
        # The cycle lives in the ref files: the message names them and the condition's field.
        "ref_cycle",
        validate(f"{BAD}/ref_cycle.yaml"),
        "conditions[0](ref_cycle).agent_a.ref",
        "tests/fixtures/configs/refs/cycle_a.yaml",
    ),
    Case(
        "replicates_option_zero",
        ("run", EXPERIMENT, "--replicates", "0", "run.output_dir={tmp}/replicates0"),
        "--replicates",
        None,  # a command-line option, not a file
    ),
    Case(
        "replicates_override_zero",
        validate(EXPERIMENT, "run.replicates=0"),
        "run.replicates",
        EXPERIMENT,
    ),
    Case(
        "hydra_unknown_agent_option",
        ("agent_a=tftt", "run.output_dir={tmp}/hydra_runs", "hydra.run.dir={tmp}/hydra"),
        "agent_a",
        PRIMARY,
        suggest="tft",
        entry="hydra",
    ),
    Case(
        "hydra_unknown_field",
        ("run.seedd=1", "run.output_dir={tmp}/hydra_runs", "hydra.run.dir={tmp}/hydra"),
        "run.seedd",
        PRIMARY,
        suggest="seed",
        entry="hydra",
    ),
    Case(
        "hydra_stop_prob_out_of_range",
        (
            "horizon=geometric",
            "horizon.stop_prob=1.5",
            "run.output_dir={tmp}/hydra_runs",
            "hydra.run.dir={tmp}/hydra",
        ),
        "horizon.stop_prob",
        PRIMARY,
        entry="hydra",
    ),
]


def _run_case(case: Case, tmp: Path, project: Path) -> subprocess.CompletedProcess:
    args = [a.format(tmp=tmp) for a in case.args]
    prefix = pdbench_command() if case.entry == "cli" else [sys.executable, "-m", "pdbench"]
    return subprocess.run(
        [*prefix, *args],
        cwd=project,
        env=subprocess_env(tmp),
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture(scope="module")
def tmp_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("config_errors")


@pytest.fixture(scope="module")
def project(tmp_dir) -> Path:
    return copy_project(tmp_dir / "project")


@pytest.fixture(scope="module")
def results(tmp_dir, project) -> dict[str, subprocess.CompletedProcess]:
    with ThreadPoolExecutor(max_workers=max(2, min(6, (os.cpu_count() or 2) * 2))) as pool:
        futures = {case.id: pool.submit(_run_case, case, tmp_dir, project) for case in CASES}
        return {case_id: future.result() for case_id, future in futures.items()}


def _params(cases):
    return [pytest.param(case, id=case.id) for case in cases]


def _one_line(case: Case, proc: subprocess.CompletedProcess) -> str:
    shown = f"$ {' '.join(case.args)}\nexit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    assert proc.returncode == 2, shown
    assert "Traceback" not in proc.stderr + proc.stdout, shown
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, shown
    return lines[0]


@pytest.mark.parametrize("case", _params(CASES))
def test_bad_input_exits_2_with_one_line_naming_file_and_field(case, results):
    line = _one_line(case, results[case.id])
    assert case.field in line, line
    if case.file is not None:
        assert case.file in line, line


@pytest.mark.parametrize("case", _params([c for c in CASES if c.suggest]))
def test_near_miss_says_did_you_mean(case, results):
    proc = results[case.id]
    assert f'did you mean "{case.suggest}"?' in proc.stderr, proc.stderr


def test_replicates_zero_writes_nothing(results, tmp_dir):
    assert results["replicates_option_zero"].returncode == 2
    assert not (tmp_dir / "replicates0").exists()


def test_bad_hydra_composition_writes_no_run(results, tmp_dir):
    assert results["hydra_stop_prob_out_of_range"].returncode == 2
    runs = tmp_dir / "hydra_runs"
    assert not runs.exists() or not any(runs.iterdir())


# --- in-process: each bad fixture is a ConfigError, never another exception ----------------------


def _bad_fixture_params():
    return [pytest.param(path, id=path.stem) for path in sorted((FIXTURES / "bad").glob("*.yaml"))]


@pytest.mark.parametrize("path", _bad_fixture_params())
def test_bad_fixture_is_a_config_error(path):
    with pytest.raises(ConfigError) as caught:
        load(path, [], project_root=ROOT)
    assert caught.value.field or "malformed" in caught.value.reason


# --- an existing run dir that holds another experiment ------------------------------------------


def test_run_into_an_existing_run_of_another_config_exits_2_and_touches_nothing(
    tmp_path, monkeypatch, project
):
    from pdbench.runners.experiment import run_experiment

    monkeypatch.setenv("PDBENCH_CACHE_DIR", str(tmp_path / "cache"))
    output = tmp_path / "runs"
    config = "tests/fixtures/configs/policies.yaml"
    first = load(
        project / config, [f"run.output_dir={output}"], run_id="taken", project_root=project
    )
    outcome = run_experiment(first)
    assert outcome.status == "complete"
    run_dir = output / "taken"
    before = {
        p.relative_to(run_dir): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(run_dir.rglob("*"))
        if p.is_file()
    }
    assert {"rounds.jsonl", "run_manifest.json", "aggregates.parquet"} <= {str(p) for p in before}

    proc = subprocess.run(
        [
            *pdbench_command(),
            "run",
            config,
            "--run-id",
            "taken",
            f"run.output_dir={output}",
            "run.seed=99",
            "--quiet",
        ],
        cwd=project,
        env=subprocess_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )
    case = Case("collision", ("run", config), "", None)
    line = _one_line(case, proc)
    assert "different experiment" in line
    assert str(run_dir) in line
    after = {
        p.relative_to(run_dir): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(run_dir.rglob("*"))
        if p.is_file()
    }
    assert after == before
    assert sorted(output.iterdir()) == [run_dir]
