"""A panel of judges: each item (a debate round) decided by several judges (models, or prompts).

- The majority verdict per item (None where the top verdicts tie).
- Fleiss' kappa (Fleiss 1971) over all judges: agreement beyond chance, 1 for identical judges,
  near 0 for judges agreeing only by chance. Every judge must decide every item.
- Cohen's kappa (Cohen 1960) for each pair of judges (with two judges, the one pair).

Intervals are percentile bootstrap intervals over items (`resamples`, default 2,000, from a
seeded stream: the same table gives the same interval). Not the analytic variance: the bootstrap
needs no large-sample assumption with the few items a judged run has. A kappa is NaN where chance
agreement is 1 (every verdict the same category), and such resamples are left out of an interval.

Input: one row per (item, judge) with the columns `item`, `judge`, `verdict`.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class Kappa:
    value: float
    low: float
    high: float
    confidence: float = 0.95

    def __str__(self) -> str:
        return f"{self.value:.3f} ({100 * self.confidence:.0f} % bootstrap CI {self.low:.3f} to {self.high:.3f})"


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


def fleiss_kappa(counts: np.ndarray) -> float:
    """Fleiss' kappa of an items x categories table of how many judges chose each category."""
    counts = np.asarray(counts, dtype=float)
    raters = counts.sum(axis=1)
    if len(set(raters)) != 1 or raters[0] < 2:
        raise ValueError("every item needs the same number (2 or more) of verdicts")
    n = raters[0]
    observed = ((counts * counts).sum(axis=1) - n) / (n * (n - 1))
    shares = counts.sum(axis=0) / counts.sum()
    chance = float((shares * shares).sum())
    if math.isclose(chance, 1.0):
        return math.nan
    return float((observed.mean() - chance) / (1 - chance))


def cohen_kappa(first: np.ndarray, second: np.ndarray) -> float:
    """Cohen's kappa of two judges' verdicts on the same items (category codes)."""
    first, second = np.asarray(first), np.asarray(second)
    observed = float((first == second).mean())
    categories = np.union1d(first, second)
    chance = float(sum((first == c).mean() * (second == c).mean() for c in categories))
    if math.isclose(chance, 1.0):
        return math.nan
    return (observed - chance) / (1 - chance)


def _interval(values: list[float], confidence: float) -> tuple[float, float]:
    kept = np.array([v for v in values if not math.isnan(v)])
    if not len(kept):
        return math.nan, math.nan
    tail = 100 * (1 - confidence) / 2
    return float(np.percentile(kept, tail)), float(np.percentile(kept, 100 - tail))


def panel_agreement(
    verdicts: pd.DataFrame | list[dict[str, Any]],
    *,
    confidence: float = 0.95,
    resamples: int = 2_000,
    seed: int = 0,
) -> PanelReport:
    table = pd.DataFrame(verdicts)
    missing = {"item", "judge", "verdict"} - set(table.columns)
    if missing:
        raise ValueError(f"the verdict table lacks the columns {sorted(missing)}")
    wide = table.pivot(index="item", columns="judge", values="verdict")
    if wide.isna().any().any():
        raise ValueError("every judge must decide every item")
    judges = tuple(str(j) for j in wide.columns)
    codes = {v: i for i, v in enumerate(sorted(set(table["verdict"])))}
    coded = wide.map(codes.__getitem__).to_numpy()
    counts = np.stack([(coded == c).sum(axis=1) for c in range(len(codes))], axis=1)

    rng = np.random.default_rng(seed)
    draws = [rng.integers(0, len(coded), len(coded)) for _ in range(resamples)]

    def with_interval(statistic: Any, *columns: np.ndarray) -> Kappa:
        value = statistic(*columns)
        low, high = _interval([statistic(*(c[d] for c in columns)) for d in draws], confidence)
        return Kappa(value, low, high, confidence)

    majority: dict[Any, str | None] = {}
    for item, row in wide.iterrows():
        ranked = row.value_counts()
        tied = len(ranked) > 1 and ranked.iloc[0] == ranked.iloc[1]
        majority[item] = None if tied else str(ranked.index[0])
    cohen = {
        (judges[i], judges[j]): with_interval(cohen_kappa, coded[:, i], coded[:, j])
        for i, j in itertools.combinations(range(len(judges)), 2)
    }
    return PanelReport(
        items=len(coded),
        judges=judges,
        majority=majority,
        fleiss=with_interval(fleiss_kappa, counts),
        cohen=cohen,
    )
