"""Issue 14's 3 x 6 persona x opponent sweep, made once per test session.

`shared_persona_grid(tmp_path_factory)` runs `python -m pdbench -m agent_a=llm_default
agent_b=<six> persona=<three>` (project_copy.GRID_COMMAND) in a fresh project copy, on the mock
model at 100 terminal columns, through the module's entry function in the test process
(tests/in_process.py), once, whichever module or xdist worker asks first (tests/session_once.py);
the others read the same run and the same printed summary. Its readers (test_persona_grid.py:
the summary and the pivot; test_viewer_browser.py: the heat map; test_docs_output.py: the
README's block of the same command, so it is dealt with the docs' deal key) never write into the
run, so they can share one: the run's composition and play (18 jobs, each composed three times)
is the cost.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from docs_script import docs_output_script
from in_process import run_front_door
from project_copy import GRID_COMMAND, copy_project
from session_once import made_once


def shared_persona_grid(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """(run dir, stdout) of the grid's command, run once per session."""
    tmp = made_once(tmp_path_factory, "shared-persona-grid", _make)
    stdout = (tmp / "stdout.txt").read_text(encoding="utf-8")
    found = re.search(r"run dir: (\S+)", stdout)
    assert found, stdout[-3000:]
    run_dir = tmp / "project" / found.group(1)
    assert (run_dir / "aggregates.parquet").is_file(), f"{run_dir}: no grid was written"
    return run_dir, stdout


def _make(tmp: Path) -> None:
    project = copy_project(tmp / "project")
    # dealt as the README's grid is (tests/e2e/test_docs_output.py compares it with the page)
    docs_output_script().write_deal_key(project)
    env = {
        **{k: v for k, v in os.environ.items() if k not in ("PDBENCH_SWEEP_ID", "PDBENCH_RUN_DIR")},
        "COLUMNS": "100",
        "PDBENCH_CACHE_DIR": str(tmp / "cache"),
    }
    args = [*GRID_COMMAND, "provider=mock", f"hydra.sweep.dir={tmp / 'hydra'}"]
    done = run_front_door("module", args, cwd=project, env=env)
    assert done.code == 0, done.stderr[-3000:]
    (tmp / "stdout.txt").write_text(done.stdout, encoding="utf-8")
