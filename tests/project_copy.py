"""A copy of the project for tests that run its own files (conf/experiment.yaml, the README's
commands): the git-tracked files as committed (`git archive HEAD`), so a test never runs the
user's edited experiment and never writes into the project's data/. Without git (an unpacked
archive), the parts pdbench reads are copied from the working tree instead.

The copy runs with this checkout's installed pdbench (the working tree's code): only conf/,
prompts/, examples/, README.md, docs/ and the other tracked files come from the copy.
"""

from __future__ import annotations

import atexit
import functools
import io
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
WORKING_TREE_PARTS = ("conf", "prompts", "examples", "README.md", "docs", "pyproject.toml")
PDBENCH = str(Path(sys.executable).with_name("pdbench"))  # what `uv run pdbench` runs


def copy_project(target: Path) -> Path:
    """Fill `target` (created if missing) with the project as committed; returns it."""
    target.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(
        ["git", "-C", str(PROJECT), "archive", "--format=tar", "HEAD"],
        capture_output=True,
        timeout=60,
    )
    if archive.returncode == 0:
        with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
            tar.extractall(target, filter="tar")
    else:
        for part in WORKING_TREE_PARTS:
            source = PROJECT / part
            if source.is_dir():
                shutil.copytree(source, target / part, symlinks=True)
            elif source.is_file():
                shutil.copyfile(source, target / part)
    # Without the package, `python -m pdbench` run in the copy imports this checkout's code (the
    # working directory comes first on sys.path): the code under test, edits included.
    shutil.rmtree(target / "pdbench", ignore_errors=True)
    (target / "data").mkdir(exist_ok=True)
    return target


@functools.cache
def _extract_shared_copy() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="pdbench-committed-"))
    atexit.register(shutil.rmtree, folder, True)
    return copy_project(folder / "project")


_shared_copy_lock = threading.Lock()  # callers may build sandboxes in a thread pool


def shared_copy() -> Path:
    """One copy of the committed project for the whole session, for tests that only read it
    (their outputs go to tmp_path): extracted on first use, removed when the session ends."""
    with _shared_copy_lock:
        return _extract_shared_copy()


def command_env(tmp: Path) -> dict[str, str]:
    """The environment of a command a test runs: its own replay cache under `tmp`, a terminal
    wide enough that no line wraps, and none of a developer's variables that change what pdbench
    prints (HYDRA_FULL_ERROR) or which sweep a run joins (PDBENCH_SWEEP_ID)."""
    env = {**os.environ, "PDBENCH_CACHE_DIR": str(tmp / "cache"), "COLUMNS": "200"}
    for name in ("HYDRA_FULL_ERROR", "PDBENCH_SWEEP_ID"):
        env.pop(name, None)
    return env


def run_in_shared_copy(
    command: list[str], env: dict[str, str], timeout: float
) -> subprocess.CompletedProcess:
    """Run a command as a user types it, in the shared copy of the committed project (never the
    user's edited conf/), and capture what it prints."""
    return subprocess.run(
        command, cwd=shared_copy(), env=env, capture_output=True, text=True, timeout=timeout
    )


def start_in_shared_copy(command: list[str], env: dict[str, str]) -> subprocess.Popen:
    """`run_in_shared_copy` without waiting: for commands that run side by side or get a signal."""
    return subprocess.Popen(
        command,
        cwd=shared_copy(),
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


# The done-when grid: 3 personas x 6 opponents, the LLM agent on the mock model.
GRID_PERSONAS = ("cooperative", "exploitative", "tit_for_tat")
GRID_OPPONENTS = ("tft", "grim", "alld", "allc", "random", "wsls")
GRID_COMMAND = (
    "-m",
    "agent_a=llm_default",
    f"agent_b={','.join(GRID_OPPONENTS)}",
    f"persona={','.join(GRID_PERSONAS)}",
)
