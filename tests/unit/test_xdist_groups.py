"""Under pytest-xdist the tests of a module run on one worker, so a module-scoped fixture is built
once, and the modules are spread over the workers (`--dist loadscope`, pyproject.toml)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import GUARD, TESTS, inner_pytest, suite_options


def test_the_suite_distributes_by_group():
    assert "--dist loadscope" in " ".join(suite_options())


RECORDED = """
import os
from pathlib import Path

import pytest

PROJECT = Path(__file__).parent.parent


def record(name, line):
    with open(PROJECT / name, "a") as out:
        out.write(line + "\\n")


@pytest.fixture(scope="module")
def costly():
    record("built", __name__ + " " + os.environ["PYTEST_XDIST_WORKER"])


@pytest.mark.parametrize("i", range({tests}))
def test_it(costly, i):
    record("ran", __name__ + " " + os.environ["PYTEST_XDIST_WORKER"])
"""


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One pytest session with two workers, in a subprocess, over three modules of 1, 10 and 5
    tests, each with a module-scoped fixture; tests/module_seconds.json says the one with a single
    test takes longest. Both tests below read what it recorded (a session of its own each cost
    three more processes, about 1.5 CPU s)."""
    tmp_path = tmp_path_factory.mktemp("xdist-groups")
    project = tmp_path / "project"
    for name, tests in (("test_long.py", 1), ("test_many.py", 10), ("test_some.py", 5)):
        _module(project, name, RECORDED.replace("{tests}", str(tests)))
    (project / "tests" / "module_seconds.json").write_text('{"tests/test_long.py": 100.0}')
    done = _session(project, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    return project


def _recorded(project: Path, name: str) -> list[list[str]]:
    """(module, worker) lines, in the order they were written."""
    return [line.split() for line in (project / name).read_text().splitlines()]


@pytest.mark.slow  # a pytest session with two workers in a subprocess
def test_a_module_fixture_is_built_once_and_modules_spread(session):
    built = _recorded(session, "built")
    assert sorted(module for module, _ in built) == ["test_long", "test_many", "test_some"]
    assert {worker for _, worker in built} == {"gw0", "gw1"}  # both workers had work
    # and every test of a module ran on the worker that built its fixture
    built_on = dict(built)
    assert all(built_on[module] == worker for module, worker in _recorded(session, "ran"))


@pytest.mark.slow  # a pytest session with two workers in a subprocess
def test_the_longest_module_starts_first_whatever_its_number_of_tests(session):
    """xdist hands out the modules with most tests first; tests/module_seconds.json says the one
    with a single test takes longest, so it starts first on its worker."""
    ran = _recorded(session, "ran")
    (worker,) = {worker for module, worker in ran if module == "test_long"}
    first_on_its_worker = next(module for module, w in ran if w == worker)
    assert first_on_its_worker == "test_long", ran


def _module(project: Path, name: str, text: str) -> None:
    """A test module of a project holding this suite's conftest, guards and scheduler."""
    tests = project / "tests"
    if not tests.is_dir():
        tests.mkdir(parents=True)
        for helper in ("conftest.py", "xdist_order.py"):
            shutil.copyfile(TESTS / helper, tests / helper)
        shutil.copytree(GUARD, tests / GUARD.name)
    (tests / name).write_text(text)


def _session(project: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    """A pytest session of the project with two workers, as the README's command runs (with the
    suite's options from pyproject.toml: `--dist loadscope`)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PDBENCH_TEST_")}
    return subprocess.run(
        [*inner_pytest(tmp_path / "inner-tmp"), "-n", "2", "tests"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_auto_starts_a_worker_per_core_and_two_more(monkeypatch):
    from conftest import pytest_xdist_auto_num_workers

    monkeypatch.delenv("PYTEST_XDIST_AUTO_NUM_WORKERS", raising=False)
    assert pytest_xdist_auto_num_workers(None) == len(os.sched_getaffinity(0)) + 2
    monkeypatch.setenv("PYTEST_XDIST_AUTO_NUM_WORKERS", "5")  # the user's choice: xdist reads it
    assert pytest_xdist_auto_num_workers(None) is None
