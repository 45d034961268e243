"""The data flow runs one way (shared design): each layer imports only what it may."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "pdbench"

# layer -> the pdbench modules it may import (besides itself)
ALLOWED = {
    "core": set(),
    "providers": {"core", "spec"},  # providers are configured by their validated spec
    "agents": {"core", "providers", "spec"},
    "storage": {"core"},
    "ui": {"core", "storage"},
}


def _pdbench_imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("pdbench."):
            found.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            found.update(
                alias.name.split(".")[1]
                for alias in node.names
                if alias.name.startswith("pdbench.")
            )
    return found


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_layer_imports_only_what_it_may(layer):
    for path in sorted((PACKAGE / layer).glob("*.py")):
        reached = _pdbench_imports(path) - {layer} - ALLOWED[layer]
        assert not reached, f"{path.relative_to(PACKAGE.parent)} imports pdbench.{sorted(reached)}"
