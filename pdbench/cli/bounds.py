"""The documented bounds of the analysis commands' options (docs/analyze.md, docs/tournaments.md).

A value outside them is one `error:` line and exit 2 before any work starts: a negative seed, a
NaN exponent, a population or a number of runs that would hang or take all the memory. The upper
bounds keep a command within minutes and a few hundred MB on one machine; raise them here if a
study needs more."""

from __future__ import annotations

import math

from pdbench.core.errors import PdbenchError

SEED_MAX = 2**63 - 1  # seeds are stored in an Int64 column
BOOTSTRAP_MAX = 100_000
PERMUTATIONS_MAX = 1_000_000
POPULATION_MAX = 10_000
RUNS_MAX = 100_000
GENERATIONS_MAX = 100_000
PAYNE_EXPONENT_MAX = 10.0
PORT_MAX = 65_535


def check_between(option: str, value: float, low: float, high: float) -> None:
    """Refuse `value` unless low <= value <= high (NaN and infinities are refused too)."""
    finite = not isinstance(value, float) or math.isfinite(value)
    if not (finite and low <= value <= high):
        raise PdbenchError(f"{option} {value}: must be between {low:,} and {high:,}")


def check_above(option: str, value: float, low: float) -> None:
    """Refuse `value` unless it is a finite number above `low`."""
    if not (math.isfinite(value) and value > low):
        raise PdbenchError(f"{option} {value}: must be a number above {low:,}")
