"""aggregates.parquet: metrics per condition x replicate and per condition, from stored rounds.

A pure function of rounds.jsonl and run_manifest.json: running it twice gives the same table. Rows
have `level` "replicate" (one per match) or "condition" (mean over the replicates where a metric
is defined, with `<metric>_std`, `<metric>_n`, `<metric>_ci_low`, `<metric>_ci_high`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import orjson
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pa_json

from pdbench.analysis.catalog import scalar_columns
from pdbench.analysis.metrics import many_match_metrics
from pdbench.analysis.stats import mean_ci
from pdbench.core.errors import PdbenchError
from pdbench.storage import jsonl
from pdbench.storage.manifest import RunManifest
from pdbench.storage.run_store import read_manifest
from pdbench.storage.schema import (
    AGGREGATES_FILE,
    DECISION_FIELDS,
    ROUNDS_FILE,
    SHARDS_DIR,
    round_arrow_schema,
)

# Scalar metrics that get condition-level statistics, in column order (from the catalogue).
SCALAR_METRICS = scalar_columns()

# Only these columns are parsed from rounds.jsonl (prompts and answers are skipped); their types
# come from RoundRecord.
_ROUND_SCHEMA = round_arrow_schema(
    [
        "condition",
        "replicate",
        "round_index",
        "agent_a",
        "agent_b",
        "game",
        "horizon_type",
        "agent_a_action",
        "agent_b_action",
        "agent_a_payoff",
        "agent_b_payoff",
        *(f"agent_{side}_{marker}" for marker in DECISION_FIELDS for side in ("a", "b")),
    ]
)


FLAG_COLUMNS = {  # aggregate column -> (rounds.jsonl field suffix, is a text field)
    "invalid_outputs": ("invalid_outputs", False),
    "fallbacks": ("fallback", False),
    "timeouts": ("timeout", False),
    "errors": ("error", True),
}


FLAG_NAMES = tuple(f"{name}_{side}" for name in FLAG_COLUMNS for side in ("a", "b"))


@dataclass
class StoredMatches:
    """Matches laid end to end, as aggregation needs them: one entry per match, columns per round.

    Built from rounds.jsonl by `read_matches`, or by the runner from the matches it just played
    (so a run need not parse the file it has just written).
    """

    keys: list[tuple[str, int]]  # (condition, replicate) per match
    labels: list[tuple[str, str, str, str]]  # (agent_a, agent_b, game, horizon_type) per match
    starts: np.ndarray  # offset of each match's first round
    coop_a: np.ndarray
    coop_b: np.ndarray
    payoff_a: np.ndarray
    payoff_b: np.ndarray
    flags: dict[str, np.ndarray]  # e.g. "invalid_outputs_a" -> per-round counts

    @classmethod
    def concatenate(cls, parts: list[StoredMatches]) -> StoredMatches:
        """Lay several StoredMatches end to end. A part may leave out flag columns (policy
        matches have none): they count as zeros."""
        lengths = [len(p.coop_a) for p in parts]
        total = int(sum(lengths))
        offsets = (np.cumsum(lengths) - np.asarray(lengths, dtype=np.intp)).astype(np.intp)

        def joined(name: str, dtype) -> np.ndarray:
            arrays = [getattr(p, name) for p in parts]
            return np.concatenate(arrays).astype(dtype) if arrays else np.empty(0, dtype)

        flags = {}
        for name in FLAG_NAMES:
            column = np.zeros(total, dtype=np.int64)
            for part, offset, length in zip(parts, offsets, lengths, strict=True):
                if name in part.flags:
                    column[offset : offset + length] = part.flags[name]
            flags[name] = column
        return cls(
            keys=[key for p in parts for key in p.keys],
            labels=[label for p in parts for label in p.labels],
            starts=np.concatenate([p.starts + o for p, o in zip(parts, offsets, strict=True)])
            if parts
            else np.empty(0, dtype=np.intp),
            coop_a=joined("coop_a", bool),
            coop_b=joined("coop_b", bool),
            payoff_a=joined("payoff_a", float),
            payoff_b=joined("payoff_b", float),
            flags=flags,
        )


def read_matches(run_dir: Path) -> StoredMatches:
    """Parse the core columns of rounds.jsonl (a torn last line is dropped)."""
    path = run_dir / ROUNDS_FILE
    end = jsonl.complete_prefix(path)
    if end == 0:
        return StoredMatches.concatenate([])
    with path.open("rb") as handle:
        buffer = pa.py_buffer(handle.read(end))
    table = pa_json.read_json(
        pa.BufferReader(buffer),
        read_options=pa_json.ReadOptions(block_size=1 << 24),
        parse_options=pa_json.ParseOptions(
            explicit_schema=_ROUND_SCHEMA, unexpected_field_behavior="ignore"
        ),
    )
    del buffer
    condition = table.column("condition").dictionary_encode().combine_chunks()
    codes = condition.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    replicate = table.column("replicate").to_numpy().astype(np.int64)
    round_index = table.column("round_index").to_numpy().astype(np.int64)
    # Matches are stored as contiguous blocks in round order; anything else is sorted first.
    key = codes * (int(replicate.max()) + 1) + replicate
    order = None
    change = np.ones(len(key), dtype=bool)
    change[1:] = key[1:] != key[:-1]
    starts = np.flatnonzero(change)
    if len(np.unique(key[starts])) != len(starts) or not _rounds_in_order(round_index, starts):
        order = np.lexsort((round_index, key))
        key = key[order]
        change[1:] = key[1:] != key[:-1]
        starts = np.flatnonzero(change)

    def column(name: str, fill=None) -> np.ndarray:
        values = table.column(name)
        if fill is not None:
            values = pc.fill_null(values, pa.scalar(fill, pa.int64()).cast(values.type))
        array = values.to_numpy(zero_copy_only=False)
        return array if order is None else array[order]

    first = starts if order is None else order[starts]
    dictionary = condition.dictionary.to_pylist()
    texts = {
        name: table.column(name).take(pa.array(first)).to_pylist()
        for name in ("agent_a", "agent_b", "game", "horizon_type")
    }
    flags = {}
    for name, (suffix, is_text) in FLAG_COLUMNS.items():
        for side in ("a", "b"):
            field = f"agent_{side}_{suffix}"
            if is_text:
                flags[f"{name}_{side}"] = (
                    table.column(field).is_valid().to_numpy(zero_copy_only=False).astype(np.int64)
                )
                if order is not None:
                    flags[f"{name}_{side}"] = flags[f"{name}_{side}"][order]
            else:
                flags[f"{name}_{side}"] = column(field, 0).astype(np.int64)
    return StoredMatches(
        keys=[(dictionary[codes[i]], int(replicate[i])) for i in first],
        labels=list(
            zip(
                texts["agent_a"],
                texts["agent_b"],
                texts["game"],
                texts["horizon_type"],
                strict=True,
            )
        ),
        starts=starts.astype(np.intp),
        coop_a=column("agent_a_action") == "C",
        coop_b=column("agent_b_action") == "C",
        payoff_a=column("agent_a_payoff").astype(float),
        payoff_b=column("agent_b_payoff").astype(float),
        flags=flags,
    )


def _rounds_in_order(round_index: np.ndarray, starts: np.ndarray) -> bool:
    """True when every match block counts its rounds 1, 2, 3, ... ."""
    expected = (
        np.arange(len(round_index))
        - np.repeat(starts, np.diff(np.append(starts, len(round_index))))
        + 1
    )
    return bool(np.array_equal(round_index, expected))


def replicate_frame(
    matches: StoredMatches, *, collapse_k: int, collapse_threshold: float
) -> tuple[pd.DataFrame, list[np.ndarray]]:
    """One row per (condition, replicate) with every metric of that match, built column-wise,
    and each match's per-round cooperation (for the condition-level curve)."""
    if not matches.keys:
        return pd.DataFrame(columns=_columns()), []
    metrics = many_match_metrics(
        matches.starts,
        matches.coop_a,
        matches.coop_b,
        matches.payoff_a,
        matches.payoff_b,
        collapse_k=collapse_k,
        collapse_threshold=collapse_threshold,
    )
    joint = (matches.coop_a.astype(np.int8) + matches.coop_b.astype(np.int8)) / 2
    ends = np.append(matches.starts[1:], len(joint))
    over_time = [joint[start:end] for start, end in zip(matches.starts, ends, strict=True)]
    columns: dict[str, object] = {
        "level": "replicate",
        "condition": [key[0] for key in matches.keys],
        "replicate": [key[1] for key in matches.keys],
        "agent_a": [label[0] for label in matches.labels],
        "agent_b": [label[1] for label in matches.labels],
        "game": [label[2] for label in matches.labels],
        "horizon_type": [label[3] for label in matches.labels],
        "n_replicates": 1,
        **metrics,
        **{
            name: np.add.reduceat(values, matches.starts) if len(values) else values
            for name, values in matches.flags.items()
        },
        "cooperation_rate_over_time": [
            orjson.dumps(series, option=orjson.OPT_SERIALIZE_NUMPY).decode() for series in over_time
        ],
    }
    return pd.DataFrame(columns, index=range(len(matches.keys))), over_time


def condition_rows(replicates: pd.DataFrame, over_time: list[np.ndarray]) -> list[dict]:
    """One dict per condition: the mean, std, n and 95% CI of every scalar metric (over the
    replicates where it is defined) and the mean cooperation per round."""
    rows = []
    for condition, positions in replicates.groupby("condition", sort=False).indices.items():
        members = replicates.iloc[positions]
        first = members.iloc[0]
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
            stats = mean_ci(members[metric].to_numpy(dtype=float))
            row[metric] = stats["mean"]
            for suffix in ("std", "n", "ci_low", "ci_high"):
                row[f"{metric}_{suffix}"] = stats[suffix]
        row["cooperation_rate_over_time"] = orjson.dumps(
            _mean_over_time([over_time[p] for p in positions])
        ).decode()
        rows.append(row)
    return rows


def _mean_over_time(series: list[np.ndarray]) -> list[dict]:
    """Per round: the mean over the replicates that reached it, and how many did."""
    longest = max((len(values) for values in series), default=0)
    padded = np.full((len(series), longest), np.nan)
    for row, values in enumerate(series):
        padded[row, : len(values)] = values
    reached = (~np.isnan(padded)).sum(axis=0)
    means = np.nansum(padded, axis=0) / np.maximum(reached, 1)
    return [
        {"round": index + 1, "mean": float(mean), "n": int(n)}
        for index, (mean, n) in enumerate(zip(means, reached, strict=True))
    ]


def aggregate_run(run_dir: Path) -> pd.DataFrame:
    """The aggregates table of a run dir (a sweep's shards are merged first)."""
    if (run_dir / SHARDS_DIR).is_dir():
        from pdbench.storage.shards import merge_shards

        merge_shards(run_dir)
    return aggregate_matches(read_matches(run_dir), read_manifest(run_dir))


def aggregate_matches(matches: StoredMatches, manifest: RunManifest) -> pd.DataFrame:
    """The aggregates table of stored matches (a pure function of rounds and manifest)."""
    replicates, over_time = replicate_frame(
        matches,
        collapse_k=manifest.collapse.k,
        collapse_threshold=manifest.collapse.threshold,
    )
    # Condition order follows the manifest (the experiment's order), not the alphabet.
    order = {name: i for i, name in enumerate(manifest.conditions)}
    rank = replicates["condition"].map(lambda name: order.get(name, len(order)))
    sorted_positions = (
        np.lexsort(
            (
                replicates["replicate"].to_numpy(),
                replicates["condition"].to_numpy(),
                rank.to_numpy(),
            )
        )
        if len(replicates)
        else np.empty(0, dtype=np.intp)
    )
    replicates = replicates.iloc[sorted_positions].reset_index(drop=True)
    over_time = [over_time[p] for p in sorted_positions]
    conditions = pd.DataFrame(condition_rows(replicates, over_time), columns=_columns())
    parts = [part for part in (replicates, conditions) if len(part)]
    table = (
        pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=_columns())
    ).reindex(columns=_columns())
    table["replicate"] = table["replicate"].astype("Int64")
    # Counts are whole numbers (metric columns stay float: condition rows hold means, e.g. the
    # mean n_rounds of a geometric horizon).
    for column in ["n_replicates", *(f"{m}_n" for m in SCALAR_METRICS)]:
        table[column] = table[column].astype("Int64")
    table.insert(0, "run_id", manifest.run_id)
    return with_factor_columns(table, manifest.factors)


def with_factor_columns(table: pd.DataFrame, factors: dict[str, dict[str, str]]) -> pd.DataFrame:
    """One string column per factor key, after the identifying columns, so a grid pivots in one
    line: `agg.pivot_table(index="persona", columns="agent_b", values="cooperation_rate")`. A key
    that is already a column (agent_a, agent_b, game) is left to that column."""
    keys = sorted({key for values in factors.values() for key in values} - set(table.columns))
    position = list(table.columns).index("horizon_type") + 1
    for offset, key in enumerate(keys):
        values = [factors.get(name, {}).get(key) for name in table["condition"]]
        table.insert(position + offset, key, pd.Series(values, dtype="string", index=table.index))
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


def write_aggregates(run_dir: Path, matches: StoredMatches | None = None) -> pd.DataFrame:
    """Write aggregates.parquet; `matches` lets a run pass what it just played instead of
    re-parsing rounds.jsonl (it must be exactly the stored matches, in file order)."""
    if not run_dir.is_dir():
        raise PdbenchError(f"{run_dir} is not a directory")
    if matches is None:
        table = aggregate_run(run_dir)
    else:
        table = aggregate_matches(matches, read_manifest(run_dir))
    tmp = run_dir / (AGGREGATES_FILE + ".tmp")
    table.to_parquet(tmp, index=False)
    tmp.replace(run_dir / AGGREGATES_FILE)
    return table
