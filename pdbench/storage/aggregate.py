"""aggregates.parquet: metrics per condition x replicate and per condition, from stored rounds.

A pure function of rounds.jsonl and run_manifest.json: running it twice gives the same table. Rows
have `level` "replicate" (one per match) or "condition" (mean over the replicates where a metric
is defined, with `<metric>_std`, `<metric>_n`, `<metric>_ci_low`, `<metric>_ci_high`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import orjson
import pandas as pd
import pyarrow as pa
import pyarrow.json as pa_json

from pdbench.core.errors import PdbenchError
from pdbench.core.metrics import match_metrics, mean_ci
from pdbench.storage import jsonl
from pdbench.storage.run_store import read_manifest
from pdbench.storage.schema import AGGREGATES_FILE, ROUNDS_FILE, SHARDS_DIR

# Scalar metrics that get condition-level statistics, in column order.
SCALAR_METRICS = (
    "n_rounds",
    "total_payoff_a",
    "total_payoff_b",
    "cooperation_rate_a",
    "cooperation_rate_b",
    "cooperation_rate",
    "retaliation_rate_a",
    "retaliation_rate_b",
    "forgiveness_rate_a",
    "forgiveness_rate_b",
    "exploitability_payoff_gap_a",
    "exploitability_payoff_gap_b",
    "time_to_collapse",
    "invalid_outputs_a",
    "invalid_outputs_b",
    "fallbacks_a",
    "fallbacks_b",
    "timeouts_a",
    "timeouts_b",
    "errors_a",
    "errors_b",
)

# Only these columns are parsed from rounds.jsonl; prompts and answers are skipped.
_ROUND_SCHEMA = pa.schema(
    [
        ("condition", pa.string()),
        ("replicate", pa.int64()),
        ("round_index", pa.int64()),
        ("agent_a", pa.string()),
        ("agent_b", pa.string()),
        ("game", pa.string()),
        ("horizon_type", pa.string()),
        ("agent_a_action", pa.string()),
        ("agent_b_action", pa.string()),
        ("agent_a_payoff", pa.float64()),
        ("agent_b_payoff", pa.float64()),
        ("agent_a_invalid_outputs", pa.int64()),
        ("agent_b_invalid_outputs", pa.int64()),
        ("agent_a_fallback", pa.bool_()),
        ("agent_b_fallback", pa.bool_()),
        ("agent_a_timeout", pa.bool_()),
        ("agent_b_timeout", pa.bool_()),
        ("agent_a_error", pa.string()),
        ("agent_b_error", pa.string()),
    ]
)


def read_rounds(run_dir: Path, columns: list[str] | None = None) -> pd.DataFrame:
    """rounds.jsonl as a DataFrame of the core columns (a torn last line is dropped)."""
    path = run_dir / ROUNDS_FILE
    end = jsonl.complete_prefix(path)
    if end == 0:
        return pd.DataFrame({field.name: pd.Series(dtype=object) for field in _ROUND_SCHEMA})
    with path.open("rb") as handle:
        buffer = pa.py_buffer(handle.read(end))
    table = pa_json.read_json(
        pa.BufferReader(buffer),
        read_options=pa_json.ReadOptions(block_size=1 << 24),
        parse_options=pa_json.ParseOptions(
            explicit_schema=_ROUND_SCHEMA, unexpected_field_behavior="ignore"
        ),
    )
    if columns:
        table = table.select(columns)
    return table.to_pandas()


def replicate_rows(
    rounds: pd.DataFrame, *, collapse_k: int, collapse_threshold: float
) -> list[dict]:
    """One dict per (condition, replicate) with every metric of that match."""
    if rounds.empty:
        return []
    rounds = rounds.sort_values(["condition", "replicate", "round_index"], kind="stable")
    keys = rounds[["condition", "replicate"]].to_numpy()
    coop_a = rounds["agent_a_action"].to_numpy() == "C"
    coop_b = rounds["agent_b_action"].to_numpy() == "C"
    pay_a = rounds["agent_a_payoff"].to_numpy(dtype=float)
    pay_b = rounds["agent_b_payoff"].to_numpy(dtype=float)
    flags = {
        f"{name}_{side}": rounds[f"agent_{side}_{column}"].fillna(0).to_numpy(dtype=np.int64)
        if column != "error"
        else rounds[f"agent_{side}_error"].notna().to_numpy(dtype=np.int64)
        for side in ("a", "b")
        for name, column in (
            ("invalid_outputs", "invalid_outputs"),
            ("fallbacks", "fallback"),
            ("timeouts", "timeout"),
            ("errors", "error"),
        )
    }
    labels = rounds[["agent_a", "agent_b", "game", "horizon_type"]].to_numpy()
    # Group boundaries: rounds are sorted, so each match is one contiguous slice.
    change = np.ones(len(rounds), dtype=bool)
    change[1:] = (keys[1:] != keys[:-1]).any(axis=1)
    starts = np.flatnonzero(change)
    ends = np.append(starts[1:], len(rounds))
    rows = []
    for start, end in zip(starts, ends, strict=True):
        metrics = match_metrics(
            coop_a[start:end],
            coop_b[start:end],
            pay_a[start:end],
            pay_b[start:end],
            collapse_k=collapse_k,
            collapse_threshold=collapse_threshold,
        ).as_dict()
        over_time = metrics.pop("cooperation_rate_over_time")
        row = {
            "level": "replicate",
            "condition": keys[start][0],
            "replicate": int(keys[start][1]),
            "agent_a": labels[start][0],
            "agent_b": labels[start][1],
            "game": labels[start][2],
            "horizon_type": labels[start][3],
            "n_replicates": 1,
            **metrics,
            **{name: int(values[start:end].sum()) for name, values in flags.items()},
            "cooperation_rate_over_time": orjson.dumps(over_time).decode(),
        }
        rows.append(row)
    return rows


def condition_rows(replicates: list[dict]) -> list[dict]:
    """One dict per condition: the mean, std, n and 95% CI of every scalar metric."""
    by_condition: dict[str, list[dict]] = {}
    for row in replicates:
        by_condition.setdefault(row["condition"], []).append(row)
    rows = []
    for condition, members in by_condition.items():
        first = members[0]
        row = {
            "level": "condition",
            "condition": condition,
            "replicate": None,
            "agent_a": first["agent_a"],
            "agent_b": first["agent_b"],
            "game": first["game"],
            "horizon_type": first["horizon_type"],
            "n_replicates": len(members),
        }
        for metric in SCALAR_METRICS:
            stats = mean_ci([m[metric] for m in members])
            row[metric] = stats["mean"]
            for suffix in ("std", "n", "ci_low", "ci_high"):
                row[f"{metric}_{suffix}"] = stats[suffix]
        row["cooperation_rate_over_time"] = orjson.dumps(
            _mean_over_time([orjson.loads(m["cooperation_rate_over_time"]) for m in members])
        ).decode()
        rows.append(row)
    return rows


def _mean_over_time(series: list[list[float]]) -> list[dict]:
    """Per round: the mean over the replicates that reached it, and how many did."""
    longest = max((len(s) for s in series), default=0)
    out = []
    for index in range(longest):
        values = [s[index] for s in series if len(s) > index]
        out.append({"round": index + 1, "mean": float(np.mean(values)), "n": len(values)})
    return out


def aggregate_run(run_dir: Path) -> pd.DataFrame:
    """The aggregates table of a run dir (a sweep's shards are merged first)."""
    if (run_dir / SHARDS_DIR).is_dir():
        from pdbench.storage.shards import merge_shards

        merge_shards(run_dir)
    manifest = read_manifest(run_dir)
    collapse = manifest.get("collapse") or {}
    rounds = read_rounds(run_dir)
    replicates = replicate_rows(
        rounds,
        collapse_k=int(collapse.get("k", 10)),
        collapse_threshold=float(collapse.get("threshold", 0.2)),
    )
    # Condition order follows the manifest (the experiment's order), not the alphabet.
    order = {name: i for i, name in enumerate(manifest.get("conditions") or [])}
    replicates.sort(
        key=lambda r: (order.get(r["condition"], len(order)), r["condition"], r["replicate"])
    )
    rows = replicates + condition_rows(replicates)
    columns = _columns()
    table = pd.DataFrame(rows, columns=columns)
    table["replicate"] = table["replicate"].astype("Int64")
    table.insert(0, "run_id", manifest.get("run_id"))
    return table


def _columns() -> list[str]:
    stats = [f"{m}_{s}" for m in SCALAR_METRICS for s in ("std", "n", "ci_low", "ci_high")]
    return [
        "level",
        "condition",
        "replicate",
        "agent_a",
        "agent_b",
        "game",
        "horizon_type",
        "n_replicates",
        *SCALAR_METRICS,
        "cooperation_rate_over_time",
        *stats,
    ]


def write_aggregates(run_dir: Path) -> pd.DataFrame:
    if not run_dir.is_dir():
        raise PdbenchError(f"{run_dir} is not a directory")
    table = aggregate_run(run_dir)
    tmp = run_dir / (AGGREGATES_FILE + ".tmp")
    table.to_parquet(tmp, index=False)
    tmp.replace(run_dir / AGGREGATES_FILE)
    return table
