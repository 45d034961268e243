"""Under `-n`, the longest modules start first.

`--dist loadscope` runs each module on one worker. pytest-xdist hands the modules out in order of
their number of tests, so the modules of one or two long tests (a real model, a Ray head, a
browser: 10 to 50 s each) came last, and one worker ran them alone while the other had finished.
Handing out the longest first (longest-processing-time scheduling) leaves the short modules to
fill the end.

How long a module takes is read from tests/module_seconds.json, measured on a whole run
(`--junitxml`); a module missing there (a new one) counts 0.05 s a test. The file only orders the
work: a stale one makes the suite slower, never wrong. Refresh it after a run with

    uv run --group local --group inspect pytest -q -n auto --junitxml=/tmp/junit.xml
    uv run python tests/xdist_order.py /tmp/junit.xml
"""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ElementTree
from collections import defaultdict
from pathlib import Path

from xdist.scheduler.loadscope import LoadScopeScheduling

SECONDS = Path(__file__).with_name("module_seconds.json")
UNKNOWN_SECONDS_PER_TEST = 0.05


def module_seconds() -> dict[str, float]:
    try:
        return json.loads(SECONDS.read_text())
    except (OSError, ValueError):
        return {}


def estimated_seconds(scope: str, tests: int, known: dict[str, float]) -> float:
    """A module's measured seconds (a scope is a module, or a class in one)."""
    return known.get(scope.split("::")[0], UNKNOWN_SECONDS_PER_TEST * tests)


class LongestFirstScheduling(LoadScopeScheduling):
    """pytest-xdist's loadscope scheduling with the modules ordered longest first."""

    _ordered = False

    def _assign_work_unit(self, node) -> None:  # type: ignore[no-untyped-def]
        if not self._ordered:  # the first assignment: the work queue is complete
            self._ordered = True
            known = module_seconds()
            ordered = sorted(
                self.workqueue.items(),
                key=lambda unit: -estimated_seconds(unit[0], len(unit[1]), known),
            )
            self.workqueue.clear()
            self.workqueue.update(ordered)
        super()._assign_work_unit(node)


def seconds_from_junit(path: Path) -> dict[str, float]:
    """Each module's seconds (setup, call and teardown of its tests) in a JUnit XML report."""
    seconds: dict[str, float] = defaultdict(float)
    for case in ElementTree.parse(path).iter("testcase"):
        parts = case.get("classname", "").split(".")
        module = [p for p in parts if not p[:1].isupper()]  # without a test class's name
        seconds["/".join(module) + ".py"] += float(case.get("time", 0))
    return {module: round(value, 1) for module, value in sorted(seconds.items())}


if __name__ == "__main__":
    SECONDS.write_text(json.dumps(seconds_from_junit(Path(sys.argv[1])), indent=1) + "\n")
