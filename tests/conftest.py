"""Shared test setup.

pytest puts this folder on `sys.path` (it holds a conftest.py and is not a package), which is what
lets test modules in any subfolder `from helpers import ScriptedAgent, versus_test`.

The suite is self-contained whatever the user's own config says:
- offline: tests/network_guard (installed here, and in every Python subprocess through
  PYTHONPATH) lets sockets reach only this machine, and the proxy variables point every HTTP
  client that honours them at a closed local port (NO_PROXY keeps 127.0.0.1 and localhost
  direct, for the stub servers). A blocked attempt is listed at the end of the session.
- the folders a user's own commands write into are never written by a test: data/ (the user's
  runs and cache) and Hydra's outputs/ and multirun/ (its job folders, when a command line gives
  no hydra.run.dir or hydra.sweep.dir). Every process of the session (pytest, its xdist workers
  and every Python subprocess, through tests/network_guard) records each write under them with an
  audit hook, and the session fails loudly, naming the files, if any was made. The user may run an experiment into data/ while the
  tests run: its writes come from a process outside the session, so they are listed as a note,
  never blamed on the tests (the folder's file list is still compared before and after).

Under pytest-xdist (`-n 2`) the controller sets all of this up before it starts the workers, which
inherit the environment and append to the same logs; the controller reports once at the end.
The tests of one module run on one worker (`--dist loadscope` in pyproject.toml), so a
module-scoped fixture (a sweep, a browser with its server, the local model) is built once; the
longest modules are handed out first (tests/xdist_order.py).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest

TESTS = Path(__file__).resolve().parent
PROJECT = TESTS.parent
DATA = PROJECT / "data"
# The project's folders a user's own commands write into, which no test may write: pdbench's runs
# and cache, and Hydra's job folders of a command line that names none of its own.
GUARDED_FOLDERS = ("data", "outputs", "multirun")
GUARD = TESTS / "network_guard"
CLOSED_PORT = "http://127.0.0.1:9"  # the discard port: nothing listens there


def _load_guard() -> ModuleType:
    """tests/network_guard/sitecustomize.py under a name of its own (the interpreter may have
    imported a system `sitecustomize` already)."""
    spec = importlib.util.spec_from_file_location(
        "pdbench_network_guard", GUARD / "sitecustomize.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


network_guard = _load_guard()


def _data_snapshot() -> dict[str, tuple[int, int]]:
    """Every file under the guarded folders with its size and modification time (ns)."""
    files = {}
    for guarded in GUARDED_FOLDERS:
        for folder, _, names in os.walk(PROJECT / guarded):
            for name in names:
                path = Path(folder, name)
                try:
                    stat = path.lstat()
                except FileNotFoundError:
                    continue
                files[str(path.relative_to(PROJECT))] = (stat.st_size, stat.st_mtime_ns)
    return files


TERMINAL_SIZE = ("COLUMNS", "LINES")


def suite_options() -> list[str]:
    """The options pyproject.toml gives every session of this suite (addopts)."""
    import shlex
    import tomllib

    pyproject = tomllib.loads((PROJECT / "pyproject.toml").read_text(encoding="utf-8"))
    return shlex.split(pyproject["tool"]["pytest"]["ini_options"]["addopts"])


def inner_pytest(base_temp: Path) -> list[str]:
    """The command of a pytest session a test starts in a project of its own (without this
    suite's pyproject.toml): with the suite's options, as the README's command runs, and a base
    temp of its own. Without one, the inner session would, at its exit, delete the older numbered
    folders of /tmp/pytest-of-<user> beyond the newest three: an earlier whole suite's among them
    (about 100,000 files, 4-8 CPU s, each deletion also seen by the write guard)."""
    return [
        *(sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"),
        *("--basetemp", str(base_temp)),
        *suite_options(),
    ]


def _is_xdist_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def pytest_configure(config: pytest.Config) -> None:
    sys.dont_write_bytecode = False  # this process's own imports too (see the note below)
    if not _is_xdist_worker(config) or "PDBENCH_TEST_WRITE_LOG" not in os.environ:
        logs = Path(tempfile.mkdtemp(prefix="pdbench-test-session-"))
        offline = {
            "PDBENCH_TEST_OFFLINE": "1",
            "PDBENCH_TEST_NETWORK_LOG": str(logs / "network.log"),
            "PDBENCH_TEST_WRITE_LOG": str(logs / "data-writes.log"),
            "PDBENCH_TEST_GUARDED_DIR": os.pathsep.join(str(PROJECT / f) for f in GUARDED_FOLDERS),
            "PYTHONPATH": os.pathsep.join(filter(None, [str(GUARD), os.environ.get("PYTHONPATH")])),
            "NO_PROXY": "127.0.0.1,localhost,::1",
            "no_proxy": "127.0.0.1,localhost,::1",
        }
        # One BLAS thread per process: the workers already take a core each, and OpenBLAS's own
        # thread per core only waits for the other worker's (pdbench.core.blas says how much).
        offline["OPENBLAS_NUM_THREADS"] = os.environ.get("OPENBLAS_NUM_THREADS", "1")
        # Every new runs folder's deal key is a copy of one fixed key, so every seeded outcome a
        # test checks is the same in every session (a fresh random key per tmp folder would make
        # a statistical test pass or fail by the draw); the tests of the keys themselves unset it.
        offline["PDBENCH_WORKSPACE_DEAL"] = str(TESTS / "golden" / "deal.key")
        for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
            offline[name] = CLOSED_PORT
        # xdist's workers start with COLUMNS=80 and LINES=24 of their own; they take the
        # controller's (or none), so what pdbench prints is as wide as in a serial run.
        for name in TERMINAL_SIZE:
            offline[f"PDBENCH_TEST_{name}"] = os.environ.get(name, "")
        os.environ.update(offline)  # for this process and, inherited, every worker and subprocess
        # Bytecode is kept for this session's processes even where PYTHONDONTWRITEBYTECODE is set
        # (Docker images set it; so does this project's CI machine): otherwise each of the
        # workers rewrites every test module's assertions again (about 6 s of CPU a worker) and
        # every command a test starts compiles the pdbench modules it imports from source. What
        # is written is __pycache__ folders beside the sources, as Python does by default.
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
        config.stash[_SESSION_LOGS] = logs
        config.stash[_DATA_BEFORE] = _data_snapshot()
    else:
        for name in TERMINAL_SIZE:
            value = os.environ.get(f"PDBENCH_TEST_{name}", "")
            if value:
                os.environ[name] = value
            else:
                os.environ.pop(name, None)
    network_guard.install()
    network_guard.install_write_guard()


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist: known only when it is installed
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """`-n auto`: a worker per core, and two more. Part of the suite waits (on commands it
    started, servers, a browser, a model on one thread, a Ray head starting), time in which a
    core's only worker would leave it idle: on 2 idle cores the whole suite took 373 s with 2
    workers; with 3 and 4 it kept both cores busy throughout (vmstat: 0 % idle), and 3 or 4 made
    no difference beyond run-to-run noise (README, Benchmarks). PYTEST_XDIST_AUTO_NUM_WORKERS still
    decides when it is set."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # pytest-xdist's own implementation reads it
    return len(os.sched_getaffinity(0)) + 2


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log):  # type: ignore[no-untyped-def]
    if config.getvalue("dist") != "loadscope":
        return None
    from xdist_order import LongestFirstScheduling

    return LongestFirstScheduling(config, log)


_SESSION_LOGS = pytest.StashKey[Path]()
_DATA_BEFORE = pytest.StashKey[dict[str, tuple[int, int]]]()
_DATA_VERDICT = pytest.StashKey["DataVerdict"]()


@dataclass(frozen=True)
class DataVerdict:
    """What happened to data/ during the session: writes by the session's processes (a test
    wrote there: the session fails) and other changes (another process, such as the user's own
    experiment: a note)."""

    by_tests: list[str]
    by_others: list[str]


def data_verdict(
    before: dict[str, tuple[int, int]], after: dict[str, tuple[int, int]], write_log: str
) -> DataVerdict:
    """Blame the tests for each write their processes recorded (`pid event path` lines); a
    change of the folder that no process of the session recorded is someone else's."""
    written: dict[str, str] = {}
    for line in write_log.splitlines():
        what, _, test = line.partition("\t")  # the test, when a pytest process wrote
        pid, event, path = [*what.split(" ", 2), "", ""][:3]
        if path:
            shown = os.path.relpath(path, PROJECT)
            by = f"test process {pid}" + (f", {test}" if test else "")
            written.setdefault(shown, f"{event} {shown} ({by})")
    changes = [p for p in sorted(after.keys() - before.keys())]
    changes += [p for p in sorted(before.keys() - after.keys())]
    changes += [p for p in sorted(before.keys() & after.keys()) if before[p] != after[p]]
    by_others = [
        path
        for path in changes
        if path not in written and not any(path.startswith(w + os.sep) for w in written)
    ]
    return DataVerdict(by_tests=list(written.values()), by_others=by_others)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    logs = session.config.stash.get(_SESSION_LOGS, None)
    if logs is None:  # an xdist worker: the controller judges the whole session
        return
    write_log = logs / "data-writes.log"
    verdict = data_verdict(
        session.config.stash[_DATA_BEFORE],
        _data_snapshot(),
        write_log.read_text(encoding="utf-8") if write_log.is_file() else "",
    )
    session.config.stash[_DATA_VERDICT] = verdict
    if verdict.by_tests:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def _some(lines: list[str]) -> list[str]:
    return lines[:20] + ([f"... and {len(lines) - 20} more"] if len(lines) > 20 else [])


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:  # type: ignore[no-untyped-def]
    verdict = config.stash.get(_DATA_VERDICT, None)
    if verdict is not None and verdict.by_tests:
        terminalreporter.section(
            "the suite wrote into the project's data/, outputs/ or multirun/ folder", red=True
        )
        for line in _some(verdict.by_tests):
            terminalreporter.write_line(line, red=True)
        terminalreporter.write_line(
            "FAILED: tests must write to tmp_path (run.output_dir=..., PDBENCH_CACHE_DIR, "
            "hydra.run.dir / hydra.sweep.dir), never to the user's data/, outputs/ or multirun/",
            red=True,
        )
    if verdict is not None and verdict.by_others:
        terminalreporter.section(
            "data/, outputs/ or multirun/ changed by another process (not a test)", yellow=True
        )
        for line in _some(verdict.by_others):
            terminalreporter.write_line(line, yellow=True)
        terminalreporter.write_line(
            "not counted: no process of the test session wrote these (your own run, perhaps)",
            yellow=True,
        )
    logs = config.stash.get(_SESSION_LOGS, None)
    network_log = logs / "network.log" if logs is not None else None
    if network_log is not None and network_log.is_file():
        attempts = [line.split(" ", 1)[-1] for line in network_log.read_text().splitlines()]
        if attempts:
            terminalreporter.section("network calls blocked (tests are offline)", yellow=True)
            for line in sorted(set(attempts))[:20]:
                terminalreporter.write_line(line, yellow=True)


def pytest_unconfigure(config: pytest.Config) -> None:
    logs = config.stash.get(_SESSION_LOGS, None)
    if logs is not None:
        shutil.rmtree(logs, ignore_errors=True)


E2E = TESTS / "e2e"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The end-to-end tier (real command lines, processes, sweeps, a browser, a local model) is
    `slow` as a whole, so `uv run pytest -m "not slow"`, the inner loop while changing code, runs
    the unit and integration tiers; the README's test command runs everything."""
    for item in items:
        if E2E in Path(str(item.path)).parents:
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory, monkeypatch):
    """Every test gets its own replay cache, so no test sees another's answers or the repo's."""
    monkeypatch.setenv("PDBENCH_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
