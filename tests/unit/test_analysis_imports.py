"""The analysis modules stay light: importing them pulls in neither scipy nor anything above
analysis in the layering (the viewer and `pdbench run` import analysis)."""

from __future__ import annotations

import os
import subprocess
import sys

MODULES = (
    "identification.moves",
    "stats.intervals",
    "identification.fingerprints",
    "identification.sfem",
    "identification.profile",
    "stats.compare",
    "tournaments.results",
    "tournaments.dynamics",
)


def test_importing_the_analyses_loads_no_scipy_and_no_upper_layer():
    code = (
        "import sys\n"
        + "".join(f"import pdbench.analysis.{module}\n" for module in MODULES)
        + "print(sorted({m.split('.')[0] for m in sys.modules if m.split('.')[0] == 'scipy'}"
        " | {m for m in sys.modules if m.startswith(('pdbench.runners', 'pdbench.agents',"
        " 'pdbench.providers', 'pdbench.config', 'pdbench.cli'))}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=os.environ
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
