"""Scripts of scripts/ as modules the tests import: docs_output.py (and docs_blocks.py, which it
imports), which regenerates and checks the docs' output blocks, and regenerate_golden.py, which
runs the golden experiments."""

from __future__ import annotations

import functools
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"


@functools.cache
def script_module(name: str) -> ModuleType:
    """scripts/<name>.py, imported once per process."""
    if str(SCRIPTS) not in sys.path:
        sys.path.insert(0, str(SCRIPTS))  # for a script's own imports (`import docs_blocks`)
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def docs_output_script() -> ModuleType:
    return script_module("docs_output")


def golden_script() -> ModuleType:
    return script_module("regenerate_golden")
