"""Every bad input ends in exit code 2 and one line naming the file and the field.

The command-line cases (the console script and `python -m pdbench`, a typo, a value out of range,
a missing file, "did you mean") are rows of the one error table, bad_input_cases.py (classes
"config" and "newcomer"), run by test_bad_input_corpus.py. Here: every bad fixture is a
ConfigError when loaded, and a run into an existing run of another experiment is refused without
touching it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from in_process import run_front_door
from project_copy import copy_project

from pdbench.core.errors import ConfigError
from pdbench.runners.prepare import load

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "configs"


def _bad_fixture_params():
    return [pytest.param(path, id=path.stem) for path in sorted((FIXTURES / "bad").glob("*.yaml"))]


@pytest.mark.parametrize("path", _bad_fixture_params())
def test_bad_fixture_is_a_config_error(path):
    with pytest.raises(ConfigError) as caught:
        load(path, [], project_root=ROOT)
    assert caught.value.field or "malformed" in caught.value.reason


def test_every_bad_fixture_is_a_row_of_the_error_table():
    from bad_input_cases import CASES

    used = {arg for case in CASES for arg in case.args}
    missing = [
        path.name
        for path in (FIXTURES / "bad").glob("*.yaml")
        if f"tests/fixtures/configs/bad/{path.name}" not in used
    ]
    assert not missing, missing


# --- an existing run dir that holds another experiment ------------------------------------------


def test_run_into_an_existing_run_of_another_config_exits_2_and_touches_nothing(
    tmp_path, monkeypatch
):
    from pdbench.runners.experiment import run_experiment

    project = copy_project(tmp_path / "project")
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

    done = run_front_door(
        "cli",
        ["run", config, "--run-id", "taken", f"run.output_dir={output}", "run.seed=99", "--quiet"],
        cwd=project,
        env={**os.environ, "PDBENCH_CACHE_DIR": str(tmp_path / "cache")},
    )
    shown = f"exit {done.code}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    assert done.code == 2, shown
    assert "Traceback" not in done.stdout + done.stderr, shown
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, shown
    assert "different experiment" in lines[0]
    assert str(run_dir) in lines[0]
    after = {
        p.relative_to(run_dir): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(run_dir.rglob("*"))
        if p.is_file()
    }
    assert after == before
    assert sorted(p for p in output.iterdir() if p.name != "deal.key") == [run_dir]
