"""`pdbench train` as the train tests run it: in this process (tests/in_process.py), in the
session's shared copy of the project, its runs under the test's own folder."""

from __future__ import annotations

from pathlib import Path

from helpers import only_run_dir
from in_process import Ran, run_front_door
from project_copy import command_env, shared_copy


def train(tmp: Path, *args: str) -> Ran:
    """`pdbench train ARGS --output-dir <tmp>/runs`, run in the shared project copy."""
    return run_front_door(
        "cli",
        ["train", *args, "--output-dir", str(tmp / "runs")],
        cwd=shared_copy(),
        env=command_env(tmp),
    )


def only_run(tmp: Path) -> Path:
    """The one run folder a training under `tmp` made."""
    return only_run_dir(tmp / "runs")
