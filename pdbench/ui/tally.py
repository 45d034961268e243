"""What happened in a run (or one condition of it), counted: matches finished, aborted and not
played, and the invalid answers, fallbacks, timeouts and errors of every match, aborted ones
included. The page's summary says these numbers, so it never claims "no invalid outputs" of a
run whose matches were aborted for them.

Pure: the replicate rows of the aggregates and the ledger in, a frozen record out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from pdbench.analysis.metrics.catalog import SIDES
from pdbench.storage.ledger import LedgerEntry


@dataclass(frozen=True)
class Tally:
    planned: int
    finished: int
    aborted: int
    invalid_outputs: int  # invalid answers, in stored rounds and in the round that ended a match
    fallbacks: int
    timeouts: int
    errors: int

    @property
    def unfinished(self) -> int:
        """Planned matches the ledger has no line for: not played yet, or cut off."""
        return max(0, self.planned - self.finished - self.aborted)

    @property
    def clean(self) -> bool:
        """Every planned match finished and no answer needed a substitute."""
        return (
            self.aborted == 0
            and self.unfinished == 0
            and self.invalid_outputs + self.fallbacks + self.timeouts + self.errors == 0
        )

    def text(self) -> str:
        """'6 matches planned: 3 finished, 3 aborted, 0 not finished · 9 invalid outputs · ...'"""
        problems = [
            (self.invalid_outputs, "invalid output"),
            (self.fallbacks, "fallback"),
            (self.timeouts, "timeout"),
            (self.errors, "error"),
        ]
        return (
            f"{self.planned} match{'es' if self.planned != 1 else ''} planned: "
            f"{self.finished} finished, {self.aborted} aborted, {self.unfinished} not finished · "
            + " · ".join(f"{n} {word}{'s' if n != 1 else ''}" for n, word in problems)
        )


STEMS = ("invalid_outputs", "fallbacks", "timeouts", "errors")


def tally(
    replicates: pd.DataFrame,
    ledger: Sequence[LedgerEntry],
    planned: int,
    condition: str | None = None,
) -> Tally:
    """Counts over the whole run, or over one `condition` (then `planned` is its own count)."""
    if condition is not None:
        replicates = replicates[replicates["condition"] == condition]
        ledger = [entry for entry in ledger if entry.condition == condition]
    sums = {
        stem: sum(
            int(pd.to_numeric(replicates[f"{stem}_{side}"], errors="coerce").fillna(0).sum())
            for side in SIDES
            if f"{stem}_{side}" in replicates
        )
        for stem in STEMS
    }
    # The answers of the round that ended an aborted match are not in any stored round.
    sums["invalid_outputs"] += sum(
        1
        for entry in ledger
        for attempt in entry.aborted_round_attempts or ()
        if not attempt.get("valid", True)
    )
    aborted = sum(1 for entry in ledger if entry.error)
    return Tally(
        planned=max(planned, len(ledger)),
        finished=len(ledger) - aborted,
        aborted=aborted,
        invalid_outputs=sums["invalid_outputs"],
        fallbacks=sums["fallbacks"],
        timeouts=sums["timeouts"],
        errors=sums["errors"],
    )
