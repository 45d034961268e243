"""A panel of raters (a judged game's panel): each item (a debate round) decided by several raters
(models, or prompts).

- The majority verdict per item (None where the top verdicts tie).
- Fleiss' kappa (Fleiss 1971) over all raters: agreement beyond chance, 1 for identical raters,
  near 0 for raters agreeing only by chance. Every rater must decide every item.
- Cohen's kappa (Cohen 1960) for each pair of raters (with two raters, the one pair).

Intervals are jackknife t intervals over items, cut to [-1, 1], with their measured coverage
beside them (`pdbench.analysis.judging.kappa`: why not the bootstrap, and what the interval is
where the raters agree on every item). A kappa is NaN where chance agreement is 1 (every verdict
the same category).

Input: one row per (item, rater) with the columns `item`, `rater`, `verdict`.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from pdbench.analysis.judging.kappa import (
    Kappa,
    cohen_kappa,
    cohen_rows,
    fleiss_kappa,
    fleiss_rows,
    kappa_with_interval,
)

__all__ = ["Kappa", "PanelReport", "cohen_kappa", "fleiss_kappa", "panel_agreement"]


@dataclass(frozen=True)
class PanelReport:
    items: int
    judges: tuple[str, ...]
    majority: dict[Any, str | None]
    fleiss: Kappa
    cohen: dict[tuple[str, str], Kappa] = field(default_factory=dict)

    def __str__(self) -> str:
        lines = [f"{self.items} items, {len(self.judges)} judges; Fleiss' kappa {self.fleiss}"]
        lines += [f"Cohen's kappa {a} vs {b}: {k}" for (a, b), k in self.cohen.items()]
        return "\n".join(lines)


def panel_agreement(
    verdicts: pd.DataFrame | list[dict[str, Any]],
    *,
    confidence: float = 0.95,
) -> PanelReport:
    table = pd.DataFrame(verdicts)
    missing = {"item", "rater", "verdict"} - set(table.columns)
    if missing:
        raise ValueError(f"the verdict table lacks the columns {sorted(missing)}")
    wide = table.pivot(index="item", columns="rater", values="verdict")
    if wide.isna().any().any():
        raise ValueError("every rater must decide every item")
    judges = tuple(str(j) for j in wide.columns)
    codes = {v: i for i, v in enumerate(sorted(set(table["verdict"])))}
    coded = wide.map(codes.__getitem__).to_numpy()
    counts = np.stack([(coded == c).sum(axis=1) for c in range(len(codes))], axis=1)

    def cohen(i: int, j: int) -> Kappa:
        return kappa_with_interval(
            lambda rows: cohen_rows(coded[rows, i], coded[rows, j]), len(coded), confidence
        )

    majority: dict[Any, str | None] = {}
    for item, row in wide.iterrows():
        ranked = row.value_counts()
        tied = len(ranked) > 1 and ranked.iloc[0] == ranked.iloc[1]
        majority[item] = None if tied else str(ranked.index[0])
    pairs = {
        (judges[i], judges[j]): cohen(i, j)
        for i, j in itertools.combinations(range(len(judges)), 2)
    }
    return PanelReport(
        items=len(coded),
        judges=judges,
        majority=majority,
        fleiss=kappa_with_interval(lambda rows: fleiss_rows(counts[rows]), len(coded), confidence),
        cohen=pairs,
    )
