"""The README's quick start, followed verbatim: the commands are read from README.md itself, so
the README cannot drift from what works. The experiment runs in a copy of the project (as
committed: tests/project_copy.py) with the mock provider forced, so it neither writes into the
project's data/ nor runs whatever model the user's edited conf/experiment.yaml names."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from pathlib import Path

import pandas as pd
from project_copy import PDBENCH, copy_project

PROJECT = Path(__file__).resolve().parents[2]
README = (PROJECT / "README.md").read_text()


def _two_commands() -> list[str]:
    section = README.split("## The two commands", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```bash\n(.*?)```", section, re.S).group(1)
    return [line.split("#", 1)[0].strip() for line in block.splitlines() if line.strip()]


def test_readme_names_exactly_the_two_commands():
    run_command, test_command = _two_commands()
    assert run_command == "uv run pdbench run conf/experiment.yaml --replicates 2"
    assert test_command == "uv run --group local --group inspect pytest -q -n auto"
    # CI runs the README's test command, not something else.
    assert test_command in (PROJECT / ".ci" / "run").read_text().splitlines()


def test_readme_experiment_command_runs_a_real_experiment(tmp_path):
    run_command, _ = _two_commands()
    uv, run, pdbench, *args = shlex.split(run_command)
    assert (uv, run, pdbench) == ("uv", "run", "pdbench")  # the installed script, run below
    project = copy_project(tmp_path / "project")
    done = subprocess.run(
        [PDBENCH, *args, "provider.name=mock", "provider.model=mock"],  # never a real model
        cwd=project,
        env={**os.environ, "COLUMNS": "200"},  # the names unfolded, as in the README
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    run_dir = project / re.search(r"run dir: (\S+)", done.stdout).group(1)
    assert run_dir.parent == project / "data" / "runs"
    for artifact in ("rounds.jsonl", "run_manifest.json", "aggregates.parquet"):
        assert (run_dir / artifact).is_file(), artifact
    aggregates = pd.read_parquet(run_dir / "aggregates.parquet")
    conditions = aggregates[aggregates["level"] == "condition"]
    assert len(conditions) == 4
    assert (conditions["n_replicates"] == 2).all()
    # The summary table and the viewer command are printed for the user.
    assert "llm_cooperative_vs_tft" in done.stdout
    assert f"uv run pdbench ui data/runs/{run_dir.name}" in done.stdout


def test_readme_shows_the_output_of_the_run():
    """The worked example's output in the README comes from a real run (not a placeholder)."""
    assert "<!-- readme:" not in README
    assert "run experiment-" in README and "llm_cooperative_vs_tft" in README
