"""Careless and hostile input (issue 20): every mistake ends in exit 2 and one line on stderr,
`error: ` naming the file (or option) and the field, with no traceback, nothing written outside
the run's folder and nothing already written lost; a valid but extreme input runs, or is refused
in one line that says how to proceed.

The cases are in bad_input_cases.py (one table, with the config errors and the newcomer's
errors), the machinery in bad_input_corpus.py. Every case runs through its front door's entry
function in this process (tests/in_process.py), each in its own sandbox with a copy of the
project as working directory; the cases marked `process=True` run once more as real
subprocesses under CPU and memory limits, for the process contract of both front doors. A case
marked xfail records what happens today and must fail for exactly that reason (`raises=`).
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from bad_input_cases import CASES, POLICIES
from bad_input_corpus import (
    CLASSES,
    EXISTING_RUN,
    CannotSetUp,
    Case,
    Sandbox,
    build_sandbox,
    check,
    copy_project,
    run_case,
    run_case_in_process,
)
from in_process import run_front_door

import pdbench.cli.app  # both front doors imported before the first case, so a
import pdbench.cli.hydra_door  # noqa: F401  # case's CPU time is its own


@functools.cache
def _template_run() -> Path:
    """The finished run that the existing-run cases copy: made on first use, by the real command,
    once per test process (each xdist worker makes its own), removed when the process ends."""
    base = Path(tempfile.mkdtemp(prefix="pdbench-bad-input-template-"))
    atexit.register(shutil.rmtree, base, True)
    project, out = base / "proj", base / "out"
    copy_project(project)
    done = run_front_door(
        "cli",
        ["run", POLICIES, "--run-id", EXISTING_RUN, f"run.output_dir={out}", "-q"],
        cwd=project,
        env={**os.environ, "PDBENCH_CACHE_DIR": str(base / "cache")},
    )
    assert done.code == 0, done.stderr
    return out / EXISTING_RUN


@pytest.fixture
def sandbox(tmp_path):
    made = Sandbox(case_dir=tmp_path / "case", template_run=_template_run)
    made.case_dir.mkdir()
    yield made
    for cleanup in made.cleanups:  # undo read-only folders so pytest can remove the sandbox
        cleanup()


def _params(cases: list[Case]) -> list:
    params = []
    for case in cases:
        marks = []
        if case.today is not None:
            raises, reason = case.today
            marks.append(pytest.mark.xfail(strict=True, raises=raises, reason=reason))
        params.append(pytest.param(case, id=f"{case.kind}-{case.id}", marks=marks))
    return params


def _set_up(case: Case, sandbox: Sandbox) -> None:
    try:
        build_sandbox(case, sandbox)
    except CannotSetUp as reason:
        pytest.skip(str(reason))


@pytest.mark.parametrize("case", _params(CASES))
def test_mistake_is_refused_in_one_line(case: Case, sandbox: Sandbox):
    _set_up(case, sandbox)
    check(case, run_case_in_process(case, sandbox))


@pytest.mark.slow  # a second of CPU per process before pdbench starts
@pytest.mark.parametrize("case", _params([case for case in CASES if case.process]))
def test_mistake_is_refused_in_one_line_by_a_process(case: Case, sandbox: Sandbox, tmp_path):
    _set_up(case, sandbox)
    logs = tmp_path / "logs"
    logs.mkdir()
    check(case, run_case(case, sandbox, logs))


def test_every_class_is_covered_and_ids_are_unique():
    assert len(CASES) >= 100, len(CASES)
    ids = [case.id for case in CASES]
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)
    kinds = {case.kind for case in CASES}
    assert kinds == set(CLASSES), kinds ^ set(CLASSES)


def test_both_front_doors_keep_process_cases_with_resource_limits():
    """The process contract is checked for each front door, including inputs that would exhaust
    CPU or memory (the `quick` ones), and for a refusal and a recovery that writes."""
    process = [case for case in CASES if case.process]
    for entry in ("cli", "module"):
        mine = [case for case in process if case.entry == entry]
        assert len(mine) >= 3, (entry, [case.id for case in mine])
        assert any(case.quick for case in mine), entry
    assert any(0 in case.codes for case in process)
    assert len(process) <= 20, "keep the subprocess cases few: they cost a second of CPU each"
