"""Which conditions of a run to compare, paired or not, for one metric of aggregates.parquet.

Three families (`pdbench analyze` options), each Holm-corrected as one family:

- every pair of conditions (A before B in the experiment's order) — the default;
- every condition against a reference condition (`--reference NAME`);
- every level of a factor against a reference level (`--factor KEY [--reference LEVEL]`, the
  first level by default), holding the other factors fixed: in a persona x opponent grid,
  `--factor persona` compares persona=x with persona=reference against each opponent.

Pairing: in pdbench the same replicate index means the same seeds in every condition (common
random numbers). Two conditions are compared *paired* when the ledger shows that every replicate
index they share ran with the same seeds (true for any run made since seeds stopped depending on
the condition), and *unpaired* otherwise; the `test` column says which, `interval` how the CI was
computed (t on paired differences, or Welch t; for a rate, the bounded intervals that stay inside
[-1, 1]), and `shared_streams` whether the two conditions' replicates share random streams. A
comparison that shares streams but could not be paired, one on too few replicates, and one whose
differences have no spread carry a `note` saying so. The numbers come from
`pdbench.analysis.stats.compare`.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pdbench.analysis.metrics.catalog import metric as catalog_metric
from pdbench.analysis.per_run.play import StoredPlay
from pdbench.analysis.stats.compare import (
    ConditionSample,
    compare_two,
    holm,
    replicates_for_condition,
)
from pdbench.core.errors import PdbenchError, did_you_mean, unknown_choice


@dataclass(frozen=True)
class Family:
    """The pairs (A, B) to compare (B against A) and how they were chosen."""

    description: str  # e.g. "all pairs", "against llm_vs_tft", "persona against cooperative"
    pairs: tuple[tuple[str, str], ...]
    skipped: tuple[str, ...] = ()  # why some conditions have no comparison


def choose_family(
    conditions: list[str],
    factors: Mapping[str, Mapping[str, str]],
    *,
    reference: str | None,
    factor: str | None,
) -> Family:
    """The family of comparisons the options ask for (module doc)."""
    if factor is None:
        if reference is None:
            return Family("all pairs", tuple(itertools.combinations(conditions, 2)))
        if reference not in conditions:
            raise PdbenchError(unknown_choice("reference condition", reference, conditions))
        against = tuple((reference, name) for name in conditions if name != reference)
        return Family(f"against {reference}", against)
    keys = sorted({key for name in conditions for key in factors.get(name, {})})
    if factor not in keys:
        known = ", ".join(keys) if keys else "none (the run has no factors)"
        raise PdbenchError(f'no factor "{factor}"{did_you_mean(factor, keys)}; factors: {known}')
    level = {name: factors.get(name, {}).get(factor) for name in conditions}
    levels = list(dict.fromkeys(value for value in level.values() if value is not None))
    base = levels[0] if reference is None else reference
    if base not in levels:
        raise PdbenchError(unknown_choice(f"level of {factor}", base, levels))
    # Conditions that agree on every other factor form a group; within it, each level is
    # compared with the reference level.
    groups: dict[tuple, list[str]] = {}
    for name in conditions:
        if level[name] is None:
            continue
        others = tuple(sorted((k, v) for k, v in factors.get(name, {}).items() if k != factor))
        groups.setdefault(others, []).append(name)
    pairs: list[tuple[str, str]] = []
    skipped: list[str] = []
    for members in groups.values():
        anchors = [name for name in members if level[name] == base]
        if not anchors:
            skipped.append(
                f"{', '.join(members)}: no condition with {factor}={base} to compare with"
            )
            continue
        pairs += [(anchors[0], name) for name in members if name != anchors[0]]
    return Family(f"{factor} against {factor}={base}", tuple(pairs), tuple(skipped))


def metric_samples(
    play: StoredPlay, replicates: pd.DataFrame, metric_column: str
) -> dict[str, ConditionSample]:
    """Per condition, the metric's value in each finished replicate (NaN where undefined)."""
    column = catalog_metric(metric_column)
    if column.metric.shape != "scalar":
        raise PdbenchError(f'metric "{metric_column}" is a series per round, not one number')
    samples = {}
    for condition in play.conditions:
        rows = replicates[replicates["condition"] == condition]
        samples[condition] = ConditionSample(
            rows[metric_column].to_numpy(dtype=float), rows["replicate"].to_numpy(dtype=np.int64)
        )
    return samples


def comparison_rows(
    play: StoredPlay,
    samples: Mapping[str, ConditionSample],
    family: Family,
    *,
    metric_column: str,
    n_permutations: int,
    confidence: float,
    half_width: float,
    seed: int,
) -> list[dict[str, object]]:
    """One row per comparison of the family, Holm-corrected over those that could be made."""
    streams = np.random.SeedSequence(seed).generate_state(max(1, len(family.pairs)), np.uint64)
    # A rate's differences lie in [-1, 1]: its interval keeps to them (issue 42).
    rates = catalog_metric(metric_column).kind == "rate"
    rows: list[dict[str, object]] = []
    compared: list[tuple[dict[str, object], float]] = []  # rows with a p-value, and it
    for (name_a, name_b), stream in zip(family.pairs, streams, strict=False):
        row: dict[str, object] = {
            "table": "comparison",
            "metric": metric_column,
            "family": family.description,
            "condition_a": name_a,
            "condition_b": name_b,
        }
        paired = play.shares_seeds(name_a, name_b)
        try:
            result = compare_two(
                name_a,
                samples[name_a],
                name_b,
                samples[name_b],
                pairing="auto" if paired else "unpaired",
                n_permutations=n_permutations,
                confidence=confidence,
                half_width=half_width,
                seed=int(stream),
                shared_streams=paired,
                rates=rates,
            )
        except ValueError as error:  # too few defined values to compare
            row.update(test="not compared", note=str(error))
            rows.append(row)
            continue
        row.update(
            test=result.test,
            paired=result.n_pairs is not None,
            n_a=result.n_a,
            n_b=result.n_b,
            n_pairs=result.n_pairs,
            mean_a=result.mean_a,
            mean_b=result.mean_b,
            difference=result.difference,
            ci_low=result.ci_low,
            ci_high=result.ci_high,
            interval=result.interval,
            df=result.df,
            p_value=result.p_value,
            p_exact=result.p_exact,
            p_floor=result.p_floor,
            zero_variance=result.zero_variance,
            shared_streams=paired,
            replicates_for_half_width=result.replicates_for_half_width,
            half_width=half_width,
            note="; ".join(
                result.notes
                + (() if paired else ("seeds differ between the conditions: compared unpaired",))
            )
            or None,
        )
        rows.append(row)
        compared.append((row, result.p_value))
    adjusted = holm([p_value for _, p_value in compared])
    for (row, _), p_holm in zip(compared, adjusted, strict=True):
        row["p_holm"] = float(p_holm)
    return rows


def replicates_needed_rows(
    samples: Mapping[str, ConditionSample],
    *,
    metric_column: str,
    half_width: float,
    confidence: float,
) -> list[dict[str, object]]:
    """Per condition: mean, standard deviation and the replicates a CI of `half_width` needs."""
    rows = []
    for condition, sample in samples.items():
        values, _ = sample.defined()
        rows.append(
            {
                "table": "replicates_needed",
                "metric": metric_column,
                "condition": condition,
                "n": len(values),
                "mean": float(values.mean()) if len(values) else float("nan"),
                "std": float(values.std(ddof=1)) if len(values) > 1 else float("nan"),
                "half_width": half_width,
                "replicates_for_half_width": replicates_for_condition(
                    sample, half_width, confidence
                ),
            }
        )
    return rows
