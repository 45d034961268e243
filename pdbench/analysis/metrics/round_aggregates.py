"""The rounds' aggregation (`aggregation_choice.ROUNDS_AGGREGATION`, which the 2x2 games' entries
name): aggregates.parquet from every stored round of every match at once, numpy over the matches
laid end to end (`columns.StoredMatches`), each metric a row of the catalogue
(`analysis.metrics.catalog`: the rows the entries' `metrics` module registers).

A pure function of rounds.jsonl, the ledger and the manifest: running it twice gives the same
table. Rows have `level` "replicate" (one per match in the ledger, an aborted one included, even
one that ended before its first round) or "condition".

- A replicate row says how its match ended: `match_status` "finished" or "aborted" and
  `aborted_at_round` (the round no action came for).
- A condition row averages its FINISHED matches (each counts once, whatever its length), with
  `<metric>_std`, `_n`, `_ci_low`, `_ci_high` (intervals that keep to the metric's real range,
  `pdbench.analysis.metrics.condition_intervals`), counts `n_finished` and `n_aborted`, and
  pooled per-round rates.
- Every column has a fixed type (an all-null column keeps its type), so the aggregates of many
  runs read together with pyarrow.dataset.

The numpy stays here, not in the 2x2 games' package (as their vectorised play is): it is generic
machinery over any two seats' C/D rounds and payoffs, built on analysis' catalogue, intervals and
column types, and analyze's per-run play (`per_run.play`) reuses it; in games/matrix/ it would
need a module role allowed to import analysis and storage, and analysis would import a game's
package by name. What is the 2x2 games' own (their metric rows and how each is computed) is in
their package (`games.matrix.metrics`), named by their entries.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import orjson
import pandas as pd

from pdbench.analysis.metrics.aggregate_columns import float_values, with_types
from pdbench.analysis.metrics.catalog import compute_columns, metric_columns, scalar_columns
from pdbench.analysis.metrics.columns import StoredMatches, read_matches
from pdbench.analysis.metrics.condition_intervals import statistics_columns
from pdbench.analysis.metrics.match_ledger import in_plan_order, ledger_of_stored, refuse_miscounted
from pdbench.analysis.metrics.played import PlayedMatches
from pdbench.storage.ledger import LedgerEntry
from pdbench.storage.manifest import RunManifest

IDENTITY = ("run_id", "level", "condition", "replicate", "agent_a", "agent_b", "game")
IDENTITY_TAIL = ("horizon_type",)
STATUS = ("n_replicates", "n_finished", "n_aborted", "match_status", "aborted_at_round")
COLLAPSE_FLAGS = ("collapse_determinable", "collapsed")
FINISHED, ABORTED = "finished", "aborted"


# --- per match -----------------------------------------------------------------------------------


def _replicate_metrics(matches: StoredMatches, collapse_k: int, threshold: float) -> pd.DataFrame:
    """Every registered metric per stored match (one row per match with rounds), and whether
    it collapsed."""
    n = len(matches.keys)
    if n == 0:
        return pd.DataFrame(index=pd.MultiIndex.from_tuples([], names=["condition", "replicate"]))
    played = PlayedMatches(matches, collapse_k, threshold)
    columns: dict[str, object] = dict(compute_columns(played))
    columns["collapse_determinable"] = played.collapse_determinable
    columns["collapsed"] = pd.array(
        [
            bool(c) if d else None
            for c, d in zip(played.collapsed, played.collapse_determinable, strict=True)
        ],
        dtype="boolean",
    )
    index = pd.MultiIndex.from_tuples(matches.keys, names=["condition", "replicate"])
    return pd.DataFrame(columns, index=index)


# --- the table -----------------------------------------------------------------------------------


def aggregate_matches(
    matches: StoredMatches, manifest: RunManifest, ledger: list[LedgerEntry] | None = None
) -> pd.DataFrame:
    """The aggregates table (a pure function of the stored rounds, the ledger and the manifest).
    Without a ledger, every stored match counts as finished."""
    lengths = np.diff(np.append(matches.starts, len(matches.coop_a))).tolist()
    stored = dict(zip(matches.keys, lengths, strict=True))
    if ledger is None:
        ledger = ledger_of_stored({key: (length, None) for key, length in stored.items()})
    entries = in_plan_order(ledger, manifest)
    refuse_miscounted(entries, stored, manifest.run_id, "rounds")
    replicates, stored_index = _replicate_table(entries, matches, manifest)
    conditions = pd.DataFrame(_condition_rows(replicates, stored_index, matches, manifest))
    table = (
        pd.concat([replicates, conditions], ignore_index=True)
        if len(replicates)
        else (pd.DataFrame())
    )
    return with_types(table, manifest)


def _replicate_table(
    entries: list[LedgerEntry], matches: StoredMatches, manifest: RunManifest
) -> tuple[pd.DataFrame, np.ndarray]:
    """One row per ledgered match, in `entries` order, and the position of each row's match
    among the stored ones (-1 for a match that ended before its first round)."""
    position = {key: i for i, key in enumerate(matches.keys)}
    stored_index = np.array([position.get(e.key, -1) for e in entries], dtype=np.intp)
    rows = []
    for entry, index in zip(entries, stored_index.tolist(), strict=True):
        matchup = manifest.matchups.get(entry.condition)
        # The labels stored with the rounds win; the manifest names a match with no rounds.
        labels = (
            matches.labels[index]
            if index >= 0
            else (matchup.agent_a, matchup.agent_b, matchup.game, matchup.horizon_type)
            if matchup
            else (None, None, None, None)
        )
        aborted = entry.error is not None
        rows.append(
            (
                "replicate",
                entry.condition,
                entry.replicate,
                *labels,
                1,  # n_replicates
                0 if aborted else 1,  # n_finished
                1 if aborted else 0,  # n_aborted
                ABORTED if aborted else FINISHED,
                entry.n_rounds + 1 if aborted else None,  # aborted_at_round
            )
        )
    identity = pd.DataFrame(rows, columns=[*IDENTITY[1:], *IDENTITY_TAIL, *STATUS])
    measured = _replicate_metrics(matches, manifest.collapse.k, manifest.collapse.threshold)
    measured = measured.reset_index(drop=True).reindex(stored_index.clip(min=0))
    measured = measured.reset_index(drop=True)
    unplayed = stored_index < 0
    if unplayed.any():  # ended before its first round: nothing to measure
        measured = measured.astype(object)
        measured.loc[unplayed, :] = None
        measured.loc[unplayed, "n_rounds"] = 0
        measured.loc[unplayed, "collapse_determinable"] = False
    # Every per-match column exists, even when no match got to play a round.
    table = pd.concat([identity, measured], axis=1)
    metrics = [c.column for c in metric_columns()]
    columns = [*IDENTITY[1:], *IDENTITY_TAIL, *STATUS, *COLLAPSE_FLAGS, *metrics]
    return table.reindex(columns=columns), stored_index


def _condition_rows(
    replicates: pd.DataFrame,
    stored_index: np.ndarray,
    matches: StoredMatches,
    manifest: RunManifest,
) -> list[dict[str, object]]:
    """One row per condition over its FINISHED matches: every scalar metric's mean, std, n and
    interval, pooled rates, and the mean cooperation per round."""
    if not len(replicates):
        return []
    finished = (replicates["match_status"] == FINISHED).to_numpy()
    n_rounds = replicates["n_rounds"].to_numpy(dtype=float)
    by_column = {c.column: c for c in metric_columns()}
    scalars = scalar_columns()
    pooled = [c.column for c in by_column.values() if c.metric.shape == "pooled"]
    values = float_values(replicates, [*scalars, *pooled], coerce=False)
    identity = {
        name: replicates[name].tolist() for name in ("agent_a", "agent_b", "game", "horizon_type")
    }
    played = finished & (n_rounds > 0)
    over_time = _mean_over_time(matches, stored_index, played, replicates["condition"])
    rows = []
    groups = replicates.groupby("condition", sort=False).indices  # in the plan's order
    for key, positions in groups.items():
        name, members = str(key), np.asarray(positions)
        mine = members[finished[members]]
        row: dict[str, object] = {
            "level": "condition",
            "condition": name,
            "replicate": None,
            **{column: identity[column][members[0]] for column in identity},
            "n_replicates": len(members),
            "n_finished": len(mine),
            "n_aborted": len(members) - len(mine),
        }
        horizon = (manifest.condition_config(name) or {}).get("horizon")
        for metric in scalars:
            row.update(statistics_columns(by_column[metric], values[metric][mine], horizon))
        # Pooled rates: every round of the finished matches counts once.
        counted = members[played[members]]
        rounds = float(n_rounds[counted].sum())
        for column in pooled:  # a pooled column's replicate value is its match's own rate
            total = float(np.nansum(values[column][counted] * n_rounds[counted]))
            row[column] = total / rounds if rounds else None
        row["cooperation_rate_over_time"] = orjson.dumps(over_time.get(name, [])).decode()
        rows.append(row)
    return rows


def _mean_over_time(
    matches: StoredMatches, stored_index: np.ndarray, counted: np.ndarray, conditions: pd.Series
) -> dict[str, list[dict]]:
    """Per condition and round: the share of C over the `counted` rows' matches that reached
    the round, and how many did (the sums are of 0, 0.5 and 1: exact in any order)."""
    names, codes = np.unique(conditions.to_numpy(dtype=object), return_inverse=True)
    counted_matches = stored_index[counted]
    lengths = np.diff(np.append(matches.starts, len(matches.coop_a)))
    if not len(counted_matches):
        return {}
    longest = int(lengths[counted_matches].max())
    # Each counted match's rounds, their condition and their number within the match.
    starts, sizes = matches.starts[counted_matches], lengths[counted_matches]
    offsets = np.repeat(starts - np.cumsum(sizes) + sizes, sizes) + np.arange(sizes.sum())
    round_in_match = offsets - np.repeat(starts, sizes)
    slot = np.repeat(codes[counted], sizes) * longest + round_in_match
    joint = (matches.coop_a[offsets].astype(np.int8) + matches.coop_b[offsets].astype(np.int8)) / 2
    size = len(names) * longest
    sums = np.bincount(slot, weights=joint, minlength=size).reshape(len(names), longest)
    reached = np.bincount(slot, minlength=size).reshape(len(names), longest)
    means = sums / np.maximum(reached, 1)
    found: dict[str, list[dict]] = {}
    for code, name in enumerate(names.tolist()):
        k = int((reached[code] > 0).sum())  # rounds reached by at least one match
        found[name] = [
            {"round": r, "mean": mean, "n": n}
            for r, mean, n in zip(
                range(1, k + 1), means[code, :k].tolist(), reached[code, :k].tolist(), strict=True
            )
        ]
    return found


# --- the aggregation an entry names ------------------------------------------------------------


def aggregate_rounds(
    run_dir: Path,
    manifest: RunManifest,
    ledger: list[LedgerEntry] | None,
    played: StoredMatches | None,
) -> pd.DataFrame:
    """The rounds' aggregation (`aggregation_choice.ROUNDS_AGGREGATION`, which the 2x2 games'
    entries name): every round at once, numpy, from `played` (the rounds a run holds in memory)
    or else its stored rounds."""
    return aggregate_matches(read_matches(run_dir) if played is None else played, manifest, ledger)
