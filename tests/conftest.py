"""Shared test setup.

pytest puts this folder on `sys.path` (it holds a conftest.py and is not a package), which is what
lets test modules in any subfolder `from helpers import ScriptedAgent, versus_test`.

The suite is self-contained whatever the user's own config says:
- offline: tests/network_guard (installed here, and in every Python subprocess through
  PYTHONPATH) lets sockets reach only this machine, and the proxy variables point every HTTP
  client that honours them at a closed local port (NO_PROXY keeps 127.0.0.1 and localhost
  direct, for the stub servers). A blocked attempt is listed at the end of the session.
- the project's data/ folder (the user's runs and cache) is never read into a test's results or
  written: its file list, sizes and modification times are compared before and after the
  session, and the session fails loudly if they differ.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from types import ModuleType

import pytest

TESTS = Path(__file__).resolve().parent
PROJECT = TESTS.parent
DATA = PROJECT / "data"
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
    """Every file under data/ with its size and modification time (ns)."""
    if not DATA.is_dir():
        return {}
    files = {}
    for folder, _, names in os.walk(DATA):
        for name in names:
            path = Path(folder, name)
            try:
                stat = path.lstat()
            except FileNotFoundError:
                continue
            files[str(path.relative_to(PROJECT))] = (stat.st_size, stat.st_mtime_ns)
    return files


def pytest_configure(config: pytest.Config) -> None:
    network_log = Path(os.environ.get("TMPDIR", "/tmp")) / f"pdbench-network-{os.getpid()}.log"
    network_log.unlink(missing_ok=True)
    offline = {
        "PDBENCH_TEST_OFFLINE": "1",
        "PDBENCH_TEST_NETWORK_LOG": str(network_log),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(GUARD), os.environ.get("PYTHONPATH")])),
        "NO_PROXY": "127.0.0.1,localhost,::1",
        "no_proxy": "127.0.0.1,localhost,::1",
    }
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        offline[name] = CLOSED_PORT
    os.environ.update(offline)  # for this process and, inherited, every subprocess
    network_guard.install()
    config.stash[_DATA_BEFORE] = _data_snapshot()
    config.stash[_NETWORK_LOG] = network_log


_DATA_BEFORE = pytest.StashKey[dict[str, tuple[int, int]]]()
_NETWORK_LOG = pytest.StashKey[Path]()


def _data_changes(before: dict[str, tuple[int, int]]) -> list[str]:
    after = _data_snapshot()
    changes = [f"added {p}" for p in sorted(after.keys() - before.keys())]
    changes += [f"removed {p}" for p in sorted(before.keys() - after.keys())]
    changes += [
        f"changed {p}" for p in sorted(before.keys() & after.keys()) if before[p] != after[p]
    ]
    return changes


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    changes = _data_changes(session.config.stash[_DATA_BEFORE])
    if changes:
        session.config.stash[_DATA_CHANGES] = changes
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


_DATA_CHANGES = pytest.StashKey[list[str]]()


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:  # type: ignore[no-untyped-def]
    changes = config.stash.get(_DATA_CHANGES, [])
    if changes:
        terminalreporter.section("the suite changed the project's data/ folder", red=True)
        shown = changes[:20] + ([f"... and {len(changes) - 20} more"] if len(changes) > 20 else [])
        for line in shown:
            terminalreporter.write_line(line, red=True)
        terminalreporter.write_line(
            "FAILED: tests must write to tmp_path (run.output_dir=..., PDBENCH_CACHE_DIR), never "
            "to data/",
            red=True,
        )
    network_log = config.stash.get(_NETWORK_LOG, None)
    if network_log is not None and network_log.is_file():
        attempts = network_log.read_text().splitlines()
        if attempts:
            terminalreporter.section("network calls blocked (tests are offline)", yellow=True)
            for line in sorted(set(attempts))[:20]:
                terminalreporter.write_line(line, yellow=True)
        network_log.unlink(missing_ok=True)


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory, monkeypatch):
    """Every test gets its own replay cache, so no test sees another's answers or the repo's."""
    monkeypatch.setenv("PDBENCH_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
