"""run_manifest.json: what was run, with what, by which code, and how it went.

Never holds a secret: the config snapshot comes from validated specs (which have no key fields)
and nothing is copied from the environment.
"""

from __future__ import annotations

import functools
import platform
import subprocess
import sys
from datetime import UTC, datetime
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

STATUS_STARTED = "started"
STATUS_COMPLETE = "complete"
STATUS_FAILED = "failed"
STATUS_STOPPED = "stopped"  # cleanly stopped (cost budget reached); resumable


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


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


def no_calls() -> dict[str, Any]:
    """Provider call counters of a match or a run: live and cached calls, the tokens and cost of
    the live ones, what the cached ones would have cost, and calls whose price is unknown."""
    return {
        "live": 0,
        "cached": 0,
        "input_tokens": 0,
        "output_tokens": 0,
        "cost_usd": 0.0,
        "cost_usd_saved": 0.0,
        "unknown_price": 0,
    }


def sum_calls(entries: list[dict | None]) -> dict[str, Any]:
    total = no_calls()
    for entry in entries:
        for key, value in (entry or {}).items():
            total[key] = total.get(key, 0) + value
    return total


def no_spend() -> dict[str, Any]:
    """What a run has paid its providers, over all its attempts."""
    return {
        "live_calls": 0,
        "input_tokens": 0,
        "output_tokens": 0,
        "cost_usd": 0.0,
        "unknown_price_calls": 0,
    }
