"""The columns of aggregates.parquet: every column has a fixed type, so an all-null column keeps
its type and the aggregates of many runs read together with pyarrow.dataset; each factor of a
grid gets its own string column after the identifying ones. A 2x2 game's columns are the
catalogue's (`column_types`); a turn game's, per player seat, its metric rows'
(`seat_column_types`), typed alike (`typed_column`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cache
from typing import Any

import numpy as np
import pandas as pd
from pandas.api.types import pandas_dtype

from pdbench.analysis.metrics.catalog import Metric, metric_columns, scalar_columns
from pdbench.storage.manifest import RunManifest

FLOAT, INT = np.dtype("float64"), pd.Int64Dtype()


@cache
def _dtype_named(name: str) -> Any:
    """A type by its name, looked up once (pandas searches its registry of extension types)."""
    return pandas_dtype(name)


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


def seat_column_types(rows: Iterable[Metric], seats: Iterable[str]) -> dict[str, str]:
    """The typed columns of a table whose metrics are per player seat (a turn game's,
    `turn_aggregates`), as `column_types` types a 2x2 table's: who and how each match ended,
    every count an Int64, each metric row's mean and statistics and pooled ratio a float; a
    row computed for a condition only (JSON text) and a measure's further values (the counts
    a pooled ratio sums, a list as JSON) keep the type they have."""
    types: dict[str, str] = dict.fromkeys(
        ("run_id", "level", "condition", "agent_a", "agent_b", "game", "match_status", "error"),
        "string",
    )
    types.update(
        dict.fromkeys(
            ("replicate", "n_turns", "n_rounds", "n_replicates", "n_finished", "n_aborted"),
            "Int64",
        )
    )
    rows = tuple(rows)
    for seat in seats:
        types[f"agent_{seat}"] = "string"
        types[f"fallbacks_{seat}"] = types[f"invalid_outputs_{seat}"] = "Int64"
        for row in (r for r in rows if r.shape != "condition"):
            column = f"{row.stem}_{seat}"
            types[column] = types[f"{column}_std"] = "Float64"
            types[f"{column}_n"] = "Int64"
            types[f"{column}_ci_low"] = types[f"{column}_ci_high"] = "Float64"
            if row.pooled is not None:
                types[f"{column}_pooled"] = "Float64"
    return types


def with_seat_types(table: pd.DataFrame, types: Mapping[str, str]) -> pd.DataFrame:
    """`table` with each of its columns that `types` names typed (its column order kept)."""
    return typed_table(table, types)


def with_types(table: pd.DataFrame, manifest: RunManifest) -> pd.DataFrame:
    types = column_types()
    table = table.reindex(columns=list(types)).reset_index(drop=True)
    table["run_id"] = manifest.run_id
    return with_factor_columns(typed_table(table, types), manifest.factors)


def typed_table(table: pd.DataFrame, types: Mapping[str, str]) -> pd.DataFrame:
    """`table` with each of its columns that `types` names typed as `typed_column` types it, its
    column order kept. A group of columns at a time where it can: taking one column out of a
    wide frame costs ~50 µs (a turn run's table has ~1,400 columns, each aggregation), and most
    need nothing (a float64 column typed "Float64") or the same (a float64 count typed "Int64")."""
    untouched: list[str] = []
    counts: list[str] = []
    others: list[str] = []
    for name, dtype in table.dtypes.items():
        target = types.get(str(name))
        if target is None or (target == "Float64" and dtype == FLOAT):
            untouched.append(str(name))
        else:
            (counts if target == "Int64" and dtype == FLOAT else others).append(str(name))
    typed = {name: typed_column(table[name], types[name]) for name in others}
    typed.update(_float_counts(table[counts]))
    # The frame built once: assigning columns one by one into a frame costs a copy of its
    # blocks each time.
    both = pd.concat([table[untouched], pd.DataFrame(typed, index=table.index)], axis=1)
    return both[list(table.columns)]


def _float_counts(table: pd.DataFrame) -> dict[str, Any]:
    """Float64 columns (NaN for a null) as "Int64" columns, all at once: what `astype("Int64")`
    gives each (a null masked over a 1, as pandas fills it), or, if one holds a value that is no
    whole number, `typed_column` per column (which refuses it as astype does)."""
    values = table.to_numpy(dtype=FLOAT).T  # one row per column
    missing = np.isnan(values)
    filled = np.where(missing, 1.0, values)
    with np.errstate(invalid="ignore"):  # an infinite value: refused below, as astype does
        whole = filled.astype(np.int64)
    if not (whole == filled).all():
        return {name: typed_column(table[name], "Int64") for name in table.columns}
    return {
        str(name): pd.arrays.IntegerArray(whole[i], missing[i])
        for i, name in enumerate(table.columns)
    }


def typed_column(column: pd.Series, dtype: str) -> pd.Series:
    """`column` as `dtype` (a type of `column_types`): "Float64" is stored as plain float64 (a
    null is NaN), "Int64" keeps its nulls, any other is an astype (every game's table alike)."""
    # A column of numpy numbers (most of a table's: the per-match measures) needs no to_numeric,
    # which would return it unchanged; and each dtype is looked up once, not per column (a
    # lookup by name searches pandas' registry of extension types: ~1,000 columns a turn run).
    numeric = isinstance(column.dtype, np.dtype) and column.dtype.kind in "iuf"
    if dtype == "Float64":
        if column.dtype == FLOAT:
            return column
        return (column if numeric else pd.to_numeric(column, errors="coerce")).astype(FLOAT)
    if dtype == "Int64":
        return (column if numeric else pd.to_numeric(column, errors="coerce")).astype(INT)
    return column.astype(_dtype_named(dtype))


def float_values(
    table: pd.DataFrame, columns: list[str], *, coerce: bool = True
) -> dict[str, np.ndarray]:
    """Each of `columns` of `table` as floats, NaN where a value is missing or no number (an
    absent column: no values), as `pd.to_numeric(errors="coerce")` reads each; with coerce
    False, a column that is absent or holds no number raises, as `to_numpy(dtype=float)` does
    (the 2x2 rows' metrics are numbers by construction: anything else is a defect to show).
    The columns of numpy numbers in one conversion: taking each column out of a wide table
    costs ~50 µs (~1,400 columns, a run of every turn game)."""
    dtypes = dict(zip(table.columns, table.dtypes, strict=True))
    plain = [c for c in columns if isinstance(dtypes.get(c), np.dtype) and dtypes[c].kind in "iuf"]
    block = np.ascontiguousarray(table[plain].to_numpy(dtype=float).T)  # a row per column
    found = dict(zip(plain, block, strict=True))
    for column in (c for c in columns if c not in found):
        if not coerce:
            found[column] = table[column].to_numpy(dtype=float)
            continue
        present = table[column] if column in table else pd.Series(dtype=float)
        found[column] = pd.to_numeric(present, errors="coerce").to_numpy(dtype=float)
    return found


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
