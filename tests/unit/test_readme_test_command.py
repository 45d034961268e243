"""The README's test command runs every test a user's install can run, and CI runs exactly it."""

from __future__ import annotations

import re
import shlex
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def readme_test_command() -> str:
    found = re.findall(
        r"^(uv run .*pytest.*?)\s+# the test suite", (ROOT / "README.md").read_text(), re.M
    )
    assert len(found) == 1, found
    return found[0].strip()


def test_ci_runs_the_readme_test_command_exactly():
    ci = [line.strip() for line in (ROOT / ".ci/run").read_text().splitlines()]
    assert readme_test_command() in ci


def test_the_command_syncs_every_group_a_test_needs():
    """The real-model tests need the `local` group: a newcomer who follows the README runs them
    instead of skipping them."""
    words = shlex.split(readme_test_command())
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    groups = [words[i + 1] for i, word in enumerate(words) if word == "--group"]
    assert "local" in groups
    assert set(groups) <= set(project["dependency-groups"])


def test_the_command_runs_in_parallel_with_a_dev_dependency():
    words = shlex.split(readme_test_command())
    assert "-n" in words
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert any(req.startswith("pytest-xdist") for req in project["dependency-groups"]["dev"])
