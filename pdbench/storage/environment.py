"""What a run's manifest records about where it ran: Python, the packages that decide results, and
the git commit with whether the work tree had uncommitted changes."""

from __future__ import annotations

import functools
import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

PACKAGES = (
    "pdbench",
    "hydra-core",
    "omegaconf",
    "pydantic",
    "numpy",
    "pandas",
    "pyarrow",
    "litellm",
    "diskcache",
    "orjson",
    "streamlit",
    "typer",
)


def package_versions() -> dict[str, str | None]:
    versions: dict[str, str | None] = {}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def git_facts(project_root: Path) -> dict[str, Any]:
    """The commit and whether the work tree had uncommitted changes; nulls outside a checkout."""

    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(
                ["git", *args], cwd=project_root, capture_output=True, text=True, timeout=10
            )
        except (OSError, subprocess.TimeoutExpired):
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    commit = git("rev-parse", "HEAD")
    status = git("status", "--porcelain", "--untracked-files=no") if commit else None
    return {"commit": commit, "dirty": None if status is None else bool(status)}


@functools.lru_cache(maxsize=8)
def environment_facts(project_root: Path) -> dict[str, Any]:
    """Python, packages and git: asked once per process (a run saves its manifest often)."""
    return {
        "python_version": platform.python_version(),
        "python_executable": sys.executable,
        "platform": platform.platform(),
        "packages": package_versions(),
        "git": git_facts(project_root),
    }
