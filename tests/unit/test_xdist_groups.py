"""Under pytest-xdist the tests of a module run on one worker, so a module-scoped fixture is built
once, and the modules are spread over the workers (`--dist loadscope`, pyproject.toml)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import GUARD, TESTS

DIST = ("--dist", "loadscope")  # as pyproject.toml's addopts say


def test_the_suite_distributes_by_group():
    import tomllib

    options = tomllib.loads((TESTS.parent / "pyproject.toml").read_text())["tool"]["pytest"]
    assert " ".join(DIST) in options["ini_options"]["addopts"]


SHARED = """
import os
import time
from pathlib import Path

import pytest

BUILT = Path(__file__).parent.parent / "built"


@pytest.fixture(scope="module")
def costly():
    with open(BUILT, "a") as out:
        out.write(__name__ + " " + os.environ.get("PYTEST_XDIST_WORKER", "-") + "\\n")
    return 1


@pytest.mark.parametrize("i", range(6))
def test_uses_it(costly, i):
    time.sleep(0.2)
"""


@pytest.mark.slow  # a pytest session with two workers in a subprocess
def test_a_module_fixture_is_built_once_and_modules_spread(tmp_path):
    project = tmp_path / "project"
    (project / "tests").mkdir(parents=True)
    shutil.copyfile(TESTS / "conftest.py", project / "tests" / "conftest.py")
    shutil.copytree(GUARD, project / "tests" / GUARD.name)
    for name in ("test_first.py", "test_second.py"):
        (project / "tests" / name).write_text(SHARED)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PDBENCH_TEST_")}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *DIST, "-n", "2", "tests"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    built = [line.split() for line in Path(project, "built").read_text().splitlines()]
    assert sorted(module for module, _ in built) == ["test_first", "test_second"]  # once each
    assert {worker for _, worker in built} == {"gw0", "gw1"}  # and both workers had work
