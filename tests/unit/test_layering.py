"""The data flow runs one way (shared design, "Target layout"): each package imports only the
packages below it. Checked over every package, statically (imports anywhere in a module, lazy ones
included) and, for the viewer, at run time."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "pdbench"

# package -> the pdbench packages (or single modules, "package.module") it may import besides
# itself. Top-level modules (__init__, __main__) are the front door and may import anything.
# storage.schema is the typed records (attempts, call counts) that providers and agents produce;
# storage.spend the journal of paid calls the provider gateway appends to.
ALLOWED: dict[str, set[str]] = {
    "core": set(),
    "strategies": {"core"},
    "config": {"core", "strategies"},
    # configured by its validated spec; the gateway journals what it pays; the mock model can
    # answer as a policy would
    "providers": {"core", "strategies", "config", "storage.schema", "storage.spend"},
    "agents": {"core", "strategies", "config", "providers", "storage.schema"},
    "storage": {"core"},
    "analysis": {"core", "storage", "strategies"},
    "runners": {"core", "strategies", "config", "providers", "agents", "storage", "analysis"},
    "cli": {
        "core",
        "strategies",
        "config",
        "providers",
        "agents",
        "storage",
        "analysis",
        "runners",
    },
    "ui": {"core", "storage", "analysis"},
}


def _pdbench_imports(path: Path) -> set[str]:
    """The pdbench modules a file imports, as "package.module" (or "package" for the package)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("pdbench."):
            found.add(".".join(node.module.split(".")[1:3]))
        elif isinstance(node, ast.Import):
            found.update(
                ".".join(alias.name.split(".")[1:3])
                for alias in node.names
                if alias.name.startswith("pdbench.")
            )
    return found


def _allowed(imported: str, package: str) -> bool:
    top = imported.split(".")[0]
    return top == package or top in ALLOWED[package] or imported in ALLOWED[package]


def test_every_package_is_in_the_table():
    packages = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert packages == set(ALLOWED), "add the new package to ALLOWED with what it may import"


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_package_imports_only_what_it_may(package):
    for path in sorted((PACKAGE / package).rglob("*.py")):
        reached = sorted(m for m in _pdbench_imports(path) if not _allowed(m, package))
        assert not reached, f"{path.relative_to(PACKAGE.parent)} imports pdbench.{reached}"


@pytest.mark.slow  # imports the whole viewer in a fresh interpreter
def test_the_viewer_pulls_in_no_runner_agent_or_provider_at_run_time():
    code = (
        "import sys, pdbench.ui.app, pdbench.storage.reader, pdbench.analysis.run_aggregates; "
        "print([m for m in sys.modules if m.startswith("
        "('pdbench.runners', 'pdbench.agents', 'pdbench.providers', 'pdbench.config'))])"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=PACKAGE.parent,
        env=os.environ,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
