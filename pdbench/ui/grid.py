"""A grid's conditions as factors: readable labels, the factor table and the heat map's cells.

A sweep stores each condition's factors (the swept keys and their values) in the manifest. The
viewer labels a condition by the factors that vary across the run (`persona=exploitative,
agent_b=tft`, never the keys every condition shares), and lays a metric out over two factors
(rows and columns) with a third as facets. Conditions that differ only in factors left off the
heat map share a cell, which then shows their mean and says how many it averages.

Pure functions: no Streamlit and no Altair here.
"""

from __future__ import annotations

import pandas as pd

from pdbench.storage.manifest import RunManifest
from pdbench.ui.display import as_float

MISSING_LEVEL = "-"  # a condition without this factor (an experiment file mixing conditions)


def factor_table(conditions: pd.DataFrame, manifest: RunManifest) -> pd.DataFrame:
    """One row per condition, in the run's order: `condition`, then one text column per factor
    (sorted by key), "-" where a condition lacks that factor."""
    names = [str(name) for name in conditions["condition"]]
    keys = sorted({key for name in names for key in manifest.factors.get(name, {})})
    rows = [
        {
            "condition": name,
            **{key: str(manifest.factors.get(name, {}).get(key, MISSING_LEVEL)) for key in keys},
        }
        for name in names
    ]
    return pd.DataFrame(rows, columns=["condition", *keys])


def varying_factors(factors: pd.DataFrame) -> list[str]:
    """The factor columns with more than one level across the conditions."""
    return [key for key in factors.columns[1:] if factors[key].nunique() > 1]


def condition_labels(conditions: pd.DataFrame, manifest: RunManifest) -> dict[str, str]:
    """Per condition, what charts and tables call it: its varying factors as `key=value`
    (joined by ", "), or its name when the run has no varying factor."""
    factors = factor_table(conditions, manifest)
    varying = varying_factors(factors)
    labels = {}
    for _, row in factors.iterrows():
        name = str(row["condition"])
        shown = [f"{key}={row[key]}" for key in varying if row[key] != MISSING_LEVEL]
        labels[name] = ", ".join(shown) if shown else name
    if len(set(labels.values())) < len(labels):  # factors do not tell two conditions apart
        return {name: name for name in labels}
    return labels


def heatmap_frame(
    conditions: pd.DataFrame,
    factors: pd.DataFrame,
    column: str,
    rows: str,
    columns: str | None = None,
    facets: str | None = None,
) -> pd.DataFrame:
    """One cell per (facet, row, column) level: the mean of `column` over the conditions in the
    cell (null when undefined in all of them), how many conditions it averages and their names.

    Columns: facet, row, column, value, n_conditions, conditions (the cell's condition names)."""
    values = dict(
        zip(
            (str(name) for name in conditions["condition"]),
            (as_float(value) for value in conditions[column]),
            strict=True,
        )
    )
    cell_values = pd.Series([values.get(str(name)) for name in factors["condition"]], dtype=object)
    keyed = factors.assign(
        value=cell_values.to_numpy(),
        _row=factors[rows],
        _column=factors[columns] if columns else "",
        _facet=factors[facets] if facets else "",
    )
    cells = []
    for (facet, row, col), group in keyed.groupby(["_facet", "_row", "_column"], sort=False):
        defined = [v for v in group["value"] if v is not None]
        cells.append(
            {
                "facet": facet,
                "row": row,
                "column": col,
                "value": sum(defined) / len(defined) if defined else None,
                "n_conditions": len(group),
                "conditions": "; ".join(group["condition"]),
            }
        )
    return pd.DataFrame(
        cells, columns=["facet", "row", "column", "value", "n_conditions", "conditions"]
    )


def levels(factors: pd.DataFrame, key: str | None) -> list[str]:
    """A factor's levels in the order the run lists its conditions."""
    return [] if key is None else list(dict.fromkeys(factors[key]))
