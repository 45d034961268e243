"""scripts/docs_output.py (and scripts/docs_blocks.py, which it imports) as modules the tests
import: the script that regenerates and checks the docs' output blocks."""

from __future__ import annotations

import functools
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"


@functools.cache
def docs_output_script() -> ModuleType:
    if str(SCRIPTS) not in sys.path:
        sys.path.insert(0, str(SCRIPTS))  # for its own `import docs_blocks`
    spec = importlib.util.spec_from_file_location("docs_output", SCRIPTS / "docs_output.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module
