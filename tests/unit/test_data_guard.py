"""The suite's guard of the project's data/ folder (tests/conftest.py, tests/network_guard): a
write by any process of the test session fails the session, naming the file; the user's own
experiment writing into data/ while the tests run is not blamed on them."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import GUARD, GUARDED_FOLDERS, TESTS, data_verdict, inner_pytest

SESSION_VARIABLES = (
    "PDBENCH_TEST_OFFLINE",
    "PDBENCH_TEST_NETWORK_LOG",
    "PDBENCH_TEST_WRITE_LOG",
    "PDBENCH_TEST_GUARDED_DIR",
    "PYTHONPATH",
)


def _outside_the_session() -> dict[str, str]:
    """The environment of a process the tests did not start (the user's own terminal)."""
    return {k: v for k, v in os.environ.items() if k not in SESSION_VARIABLES}


WRITES = """
import os, shutil, sys
from pathlib import Path
data = Path(sys.argv[1])
Path(data, "opened.txt").write_text("x")
with open(data / "appended.txt", "a") as out:
    out.write("x")
os.close(os.open(data / "os_open.txt", os.O_WRONLY | os.O_CREAT))
os.mkdir(data / "made")
os.replace(data / "opened.txt", data / "made" / "moved.txt")
shutil.copyfile(data / "appended.txt", data / "copied.txt")
os.remove(data / "copied.txt")
Path(data, "appended.txt").read_text()  # a read is not a write
Path(sys.argv[2], "elsewhere.txt").write_text("x")  # outside the guarded folder
"""


def _guarded(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    data, log = tmp_path / "data", tmp_path / "writes.log"
    data.mkdir()
    env = {**os.environ, "PDBENCH_TEST_GUARDED_DIR": str(data), "PDBENCH_TEST_WRITE_LOG": str(log)}
    return data, log, env


def test_a_subprocess_of_the_session_records_every_write_into_the_folder(tmp_path):
    data, log, env = _guarded(tmp_path)
    other = tmp_path / "other"
    other.mkdir()
    process = subprocess.Popen(
        [sys.executable, "-c", WRITES, str(data), str(other)], env=env, stderr=subprocess.PIPE
    )
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 0, stderr
    recorded = [line.split("\t")[0].split(" ", 2) for line in log.read_text().splitlines()]
    assert {pid for pid, _, _ in recorded} == {str(process.pid)}  # who wrote: that process
    paths = {path for _, _, path in recorded}
    for name in ("opened.txt", "appended.txt", "os_open.txt", "made", "made/moved.txt"):
        assert str(data / name) in paths, (name, recorded)
    assert [str(process.pid), "os.remove", str(data / "copied.txt")] in recorded
    assert [str(process.pid), "shutil.copyfile", str(data / "copied.txt")] in recorded
    assert not any("elsewhere" in path for path in paths)


def test_every_guarded_folder_is_watched_hydras_outputs_too(tmp_path):
    """The guard watches each folder a user's own commands write into: data/, and Hydra's
    outputs/ and multirun/ (a command line that gives no hydra.run.dir or hydra.sweep.dir)."""
    data, log, env = _guarded(tmp_path)
    outputs, multirun = tmp_path / "outputs", tmp_path / "multirun"
    env["PDBENCH_TEST_GUARDED_DIR"] = os.pathsep.join(map(str, (data, outputs, multirun)))
    writes = "import os, sys\nfor folder in sys.argv[1:]: os.makedirs(os.path.join(folder, 'x'))"
    done = subprocess.run(
        [sys.executable, "-c", writes, str(outputs), str(multirun / "2026"), str(tmp_path / "o")],
        env=env,
        capture_output=True,
    )
    assert done.returncode == 0, done.stderr
    paths = {line.split("\t")[0].split(" ", 2)[2] for line in log.read_text().splitlines()}
    assert paths == {str(outputs), str(outputs / "x"), str(multirun), str(multirun / "2026"),
                     str(multirun / "2026" / "x")}  # fmt: skip
    assert GUARDED_FOLDERS == ("data", "outputs", "multirun")


def test_removing_another_tree_with_a_data_folder_is_not_a_write_into_data(tmp_path):
    """shutil.rmtree removes `data` relative to its parent's file descriptor: that is the other
    tree's data/, even when the working folder holds the guarded one (a false alarm once)."""
    _, log, env = _guarded(tmp_path)
    other = tmp_path / "elsewhere" / "project" / "data" / "runs"
    other.mkdir(parents=True)
    (other / "rounds.jsonl").write_text("x")
    done = subprocess.run(
        [sys.executable, "-c", f"import shutil; shutil.rmtree({str(tmp_path / 'elsewhere')!r})"],
        cwd=tmp_path,  # where ./data is the guarded folder
        env=env,
        capture_output=True,
    )
    assert done.returncode == 0, done.stderr
    assert not (tmp_path / "elsewhere").exists()
    assert not log.exists(), log.read_text()


def test_a_process_outside_the_session_is_not_recorded(tmp_path):
    data, log, _ = _guarded(tmp_path)
    other = tmp_path / "other"
    other.mkdir()
    done = subprocess.run(
        [sys.executable, "-c", WRITES, str(data), str(other)],
        env=_outside_the_session(),
        capture_output=True,
    )
    assert done.returncode == 0, done.stderr
    assert not log.exists()


def test_the_verdict_blames_the_tests_only_for_what_they_wrote(tmp_path):
    project = TESTS.parent
    before = {"data/cache/a.json": (1, 1), "data/runs/old/rounds.jsonl": (5, 1)}
    after = {
        "data/cache/a.json": (1, 1),
        "data/runs/old/rounds.jsonl": (9, 2),  # the user's resumed run
        "data/runs/user/rounds.jsonl": (3, 3),  # the user's new run
        "data/runs/test/rounds.jsonl": (3, 3),  # a test's run, its folder recorded
    }
    log = f"123 os.mkdir {project / 'data/runs/test'}\ttests/unit/test_x.py::test_y\n"
    verdict = data_verdict(before, after, log)
    assert verdict.by_tests == [
        "os.mkdir data/runs/test (test process 123, tests/unit/test_x.py::test_y)"
    ]
    assert verdict.by_others == ["data/runs/user/rounds.jsonl", "data/runs/old/rounds.jsonl"]
    clean = data_verdict(before, after, "")
    assert clean.by_tests == [] and len(clean.by_others) == 3


INNER_DATA = """
import time
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data"
"""

INNER_WAITS = """
def test_waits_while_the_user_runs_an_experiment():
    # until the user's run has written during the session (the earliest proof of it; it writes
    # every 20 ms), with a generous deadline for a loaded machine
    user_run = DATA / "runs" / "user_run.jsonl"
    size, deadline = user_run.stat().st_size, time.monotonic() + 120
    while user_run.stat().st_size == size:
        assert time.monotonic() < deadline, "the user's run wrote nothing during the session"
        time.sleep(0.01)
"""

INNER_WRITES = """
def test_that_writes_into_data():
    if WRITE:
        (DATA / "runs").mkdir(exist_ok=True)
        (DATA / "runs" / "by_a_test.txt").write_text("oops")
"""


def _inner_session(tmp_path: Path, *, write: bool, workers: int) -> subprocess.CompletedProcess:
    """A pytest session over a project holding this suite's conftest and guards, while a process
    outside it (the user's experiment) keeps writing into the project's data/."""
    project = tmp_path / "project"
    (project / "data" / "runs").mkdir(parents=True)
    (project / "tests").mkdir()
    for helper in ("conftest.py", "xdist_order.py"):  # the suite's guards and its scheduler
        shutil.copyfile(TESTS / helper, project / "tests" / helper)
    shutil.copytree(GUARD, project / "tests" / GUARD.name)
    # a module each: under `--dist loadscope` (the suite's) each goes to a worker of its own
    (project / "tests" / "test_inner_waits.py").write_text(INNER_DATA + INNER_WAITS)
    (project / "tests" / "test_inner_writes.py").write_text(
        f"WRITE = {write}\n" + INNER_DATA + INNER_WRITES
    )
    user_run = project / "data" / "runs" / "user_run.jsonl"
    writer = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import itertools, sys, time\n"
            "for i in itertools.count():  # until killed, after the session\n"
            "    open(sys.argv[1], 'a').write(f'{i}\\n'); time.sleep(0.02)\n",
            str(user_run),
        ],
        env=_outside_the_session(),
    )
    try:
        while not user_run.exists():
            time.sleep(0.01)
        extra = ["-n", str(workers)] if workers else []
        return subprocess.run(
            [*inner_pytest(tmp_path / "inner-tmp"), *extra, "tests"],
            cwd=project,
            env=_outside_the_session(),
            capture_output=True,
            text=True,
            timeout=300,
        )
    finally:
        writer.kill()
        writer.wait()


@pytest.mark.slow  # two pytest sessions in subprocesses
@pytest.mark.parametrize("workers", [0, 2], ids=["serial", "xdist"])
def test_the_users_own_run_during_the_session_is_not_blamed(tmp_path, workers):
    done = _inner_session(tmp_path, write=False, workers=workers)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "data/, outputs/ or multirun/ changed by another process (not a test)" in done.stdout
    assert "data/runs/user_run.jsonl" in done.stdout


@pytest.mark.slow
@pytest.mark.parametrize("workers", [0, 2], ids=["serial", "xdist"])
def test_a_test_that_writes_into_data_fails_the_session(tmp_path, workers):
    done = _inner_session(tmp_path, write=True, workers=workers)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "the suite wrote into the project's data/, outputs/ or multirun/ folder" in done.stdout
    assert "data/runs/by_a_test.txt" in done.stdout
    assert "2 passed" in done.stdout  # every test passed: the guard alone fails the session
