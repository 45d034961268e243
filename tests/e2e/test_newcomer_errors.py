"""Errors a newcomer is likely to hit end in one sentence that says what to do (exit code 2).
Run in a copy of the committed project (tests/project_copy.py), never the user's edited conf/."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from project_copy import PDBENCH, copy_project


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    return copy_project(tmp_path_factory.mktemp("newcomer") / "project")


def _run(project: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [PDBENCH, *args], cwd=project, capture_output=True, text=True, timeout=180, env=env
    )


def _one_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    return lines[0]


def test_missing_api_key_for_a_hosted_model(project, tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    done = _run(
        project, "run", "conf/config.yaml", "agent_a=llm_default", "provider=openai",
        f"run.output_dir={tmp_path}", "run.replicates=1", "horizon.rounds=2", "-q", env=env,
    )  # fmt: skip
    assert done.returncode == 2
    line = _one_line(done.stderr)
    assert "OPENAI_API_KEY" in line and ".env" in line


def test_a_folder_that_is_not_a_run_dir(project, tmp_path):
    for command in ("ui", "aggregate"):
        done = _run(project, command, str(tmp_path))
        assert done.returncode == 2
        assert "not a pdbench run dir" in _one_line(done.stderr)


def test_resume_of_a_run_that_does_not_exist(project, tmp_path):
    done = _run(
        project, "run", "conf/experiment.yaml", "--resume", "--run-id", "nope",
        f"run.output_dir={tmp_path}",
    )  # fmt: skip
    assert done.returncode == 2
    assert "nothing to resume" in _one_line(done.stderr)
