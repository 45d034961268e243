"""A copy of the project for tests that run its own files (conf/experiment.yaml, the README's
commands): the git-tracked files as committed (`git archive HEAD`), so a test never runs the
user's edited experiment and never writes into the project's data/. Without git (an unpacked
archive), the parts pdbench reads are copied from the working tree instead.

The copy runs with this checkout's installed pdbench (the working tree's code): only conf/,
prompts/, examples/, README.md and the other tracked files come from the copy.
"""

from __future__ import annotations

import io
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
WORKING_TREE_PARTS = ("conf", "prompts", "examples", "README.md", "pyproject.toml")
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
    (target / "data").mkdir(exist_ok=True)
    return target
