"""Careless and hostile input (issue 20): every mistake ends in exit 2 and one line on stderr,
`error: ` naming the file (or option) and the field, with no traceback, nothing written outside
the run's folder and nothing already written lost; a valid but extreme input runs, or is refused
in one line that says how to proceed.

The cases are in bad_input_cases.py (one table), the machinery in bad_input_corpus.py. All cases
start at once in a thread pool (module fixture), each in its own sandbox with a copy of the
project as working directory; each parametrized test then checks one finished process. A case
marked xfail records what happens today and must fail for exactly that reason (`raises=`).
"""

from __future__ import annotations

import os
import subprocess
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest
from bad_input_cases import CASES, POLICIES
from bad_input_corpus import (
    CLASSES,
    EXISTING_RUN,
    CannotSetUp,
    Case,
    Outcome,
    Sandbox,
    build_sandbox,
    check,
    copy_project,
    pdbench_script,
    run_case,
)


def _make_template_run(base: Path) -> Path:
    """The finished run that the existing-run cases copy: made once, by the real command."""
    project = base / "proj"
    copy_project(project)
    out = base / "out"
    done = subprocess.run(
        [
            pdbench_script(),
            "run",
            POLICIES,
            "--run-id",
            EXISTING_RUN,
            f"run.output_dir={out}",
            "-q",
        ],
        cwd=project,
        env={**os.environ, "PDBENCH_CACHE_DIR": str(base / "cache")},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return out / EXISTING_RUN


def _slow_first(case: Case) -> int:
    """Start the costly cases first so the pool ends together: Hydra's door, then runs."""
    return 0 if case.entry == "module" else 1 if case.args[:1] == ("run",) else 2


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory) -> dict[str, Outcome]:
    base = tmp_path_factory.mktemp("bad_input")
    logs = base / "_logs"
    logs.mkdir()
    sandboxes: list[Sandbox] = []
    workers = max(2, (os.cpu_count() or 2) + 2)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        template: Future[Path] = pool.submit(_make_template_run, base / "_template")

        def one(case: Case) -> Outcome:
            sandbox = Sandbox(case_dir=base / case.id, template_run=template.result)
            sandboxes.append(sandbox)
            try:
                build_sandbox(case, sandbox)
            except CannotSetUp as reason:
                return Outcome(command=[], skipped=str(reason))
            return run_case(case, sandbox, logs)

        futures = {case.id: pool.submit(one, case) for case in sorted(CASES, key=_slow_first)}
        results = {case_id: future.result() for case_id, future in futures.items()}
    yield results
    for sandbox in sandboxes:  # undo read-only folders so pytest can remove the sandboxes
        for cleanup in sandbox.cleanups:
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


@pytest.mark.parametrize("case", _params(CASES))
def test_mistake_is_refused_in_one_line(case: Case, outcomes):
    outcome = outcomes[case.id]
    if outcome.skipped:
        pytest.skip(outcome.skipped)
    check(case, outcome)


def test_every_class_is_covered_and_ids_are_unique():
    assert len(CASES) >= 100, len(CASES)
    ids = [case.id for case in CASES]
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)
    kinds = {case.kind for case in CASES}
    assert kinds == set(CLASSES), kinds ^ set(CLASSES)
