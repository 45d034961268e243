"""The columns of aggregates.parquet: every column has a fixed type, so an all-null column keeps
its type and the aggregates of many runs read together with pyarrow.dataset; each factor of a
grid gets its own string column after the identifying ones."""

from __future__ import annotations

from typing import Any, cast

import pandas as pd

from pdbench.analysis.metrics.catalog import metric_columns, scalar_columns
from pdbench.storage.manifest import RunManifest


def column_types() -> dict[str, str]:
    """Every column of aggregates.parquet (factor columns aside) and its pandas type."""
    types: dict[str, str] = dict.fromkeys(
        ("run_id", "level", "condition", "agent_a", "agent_b", "game", "horizon_type"), "string"
    )
    types["replicate"] = "Int64"
    types.update(
        {
            "n_replicates": "Int64",
            "n_finished": "Int64",
            "n_aborted": "Int64",
            "match_status": "string",
            "aborted_at_round": "Int64",
            "collapse_determinable": "boolean",
            "collapsed": "boolean",
        }
    )
    for column in metric_columns():
        types[column.column] = "string" if column.metric.shape == "per_round" else "Float64"
    for metric in scalar_columns():
        types[f"{metric}_std"] = "Float64"
        types[f"{metric}_n"] = "Int64"
        types[f"{metric}_ci_low"] = "Float64"
        types[f"{metric}_ci_high"] = "Float64"
    return types


def with_types(table: pd.DataFrame, manifest: RunManifest) -> pd.DataFrame:
    types = column_types()
    table = table.reindex(columns=list(types)).reset_index(drop=True)
    table["run_id"] = manifest.run_id
    # Each column typed on its own and the frame built once: assigning ~200 columns one by one
    # into a frame costs a copy of the frame's blocks each time (30 ms an aggregation).
    typed = {name: _typed(table[name], dtype) for name, dtype in types.items()}
    return with_factor_columns(pd.DataFrame(typed, index=table.index), manifest.factors)


def _typed(column: pd.Series, dtype: str) -> pd.Series:
    if dtype == "Float64":
        return pd.to_numeric(column, errors="coerce").astype("float64")
    if dtype == "Int64":
        return pd.to_numeric(column, errors="coerce").astype("Int64")
    return column.astype(cast(Any, dtype))


def with_factor_columns(table: pd.DataFrame, factors: dict[str, dict[str, str]]) -> pd.DataFrame:
    """One string column per factor key, after the identifying columns, so a grid pivots in one
    line: `agg.pivot_table(index="persona", columns="agent_b", values="cooperation_rate")`. A key
    that is already a column (agent_a, agent_b, game) is left to that column."""
    keys = sorted({key for values in factors.values() for key in values} - set(table.columns))
    if not keys:
        return table
    factor_columns = pd.DataFrame(
        {
            key: pd.Series(
                [factors.get(name, {}).get(key) for name in table["condition"]],
                dtype="string",
                index=table.index,
            )
            for key in keys
        }
    )
    # One concat, not an insert per key: a frame with 100+ columns fragments (and pandas warns).
    position = list(table.columns).index("horizon_type") + 1
    return pd.concat([table.iloc[:, :position], factor_columns, table.iloc[:, position:]], axis=1)
