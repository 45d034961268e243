"""aggregates.parquet for a run of a turn-based game (`pdbench.games`), from its stored turns.

Each match's stored actions are replayed through the rules from its stored seed (the outcome on
its last line), and the game's rows of the one metric registry (`games.metric_rows`) measure
the match replayed, so the numbers come from what is on disk, never from a run's live state.
Rows:

- level "replicate": one per match of the ledger, `match_status` finished or aborted, `n_turns`,
  `n_rounds` (rounds begun), `fallbacks_<seat>` and `invalid_outputs_<seat>` (counted from the
  stored marks), and every metric per player, `<metric>_a` / `<metric>_b` (with the counts its
  pooled ratio sums);
- level "condition": each metric's mean over the finished matches with `_std`, `_n`, `_ci_low`,
  `_ci_high`, the statistics a 2x2 game's rows get (`condition_intervals.statistics_columns`: an
  interval kept to the range the metric row's kind implies), the pooled ratios
  (`<ratio>_<seat>_pooled`: summed numerators over summed denominators), and per player the
  game's condition rows (Liar's Dice's challenge calibration as JSON, `calibration_<seat>`).

Its columns are typed as a 2x2 table's (`aggregate_columns.seat_column_types`: names string,
counts Int64, each metric row's values float64), so a turn run's aggregates read with another's.

The default aggregation of every game whose entry names none (`aggregate_turns`, asked by
`pdbench.analysis.metrics.aggregation_choice.aggregation_of`). A run mixing 2x2 and turn games is refused
when it is configured, so a run is one family.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pandas as pd

from pdbench.analysis.metrics.aggregate_columns import (
    float_values,
    seat_column_types,
    with_seat_types,
)
from pdbench.analysis.metrics.aggregation_choice import reads_rounds_of
from pdbench.analysis.metrics.condition_intervals import SUFFIXES, statistics_columns
from pdbench.analysis.metrics.match_ledger import in_plan_order, ledger_of_stored, refuse_miscounted
from pdbench.core.errors import PdbenchError
from pdbench.core.metric import MetricColumn
from pdbench.core.seats import seats_among
from pdbench.games.metric_rows import GameMatch, game_metric_rows, measure_match
from pdbench.games.registry import build_turn_game
from pdbench.games.replay import replay
from pdbench.storage import jsonl
from pdbench.storage.ledger import LedgerEntry
from pdbench.storage.manifest import RunManifest
from pdbench.storage.run_store import read_ledger
from pdbench.storage.schema import LEDGER_FILE, ROUNDS_FILE

SEATS = ("a", "b")  # the player seats of a pair; a group's are read from its rows
SIDES = ("agent_a", "agent_b")
OBJECT = np.dtype(object)


def seats_in(table: pd.DataFrame) -> tuple[str, ...]:
    """The player seats whose columns `table` holds (a pair's a and b at least)."""
    prefix = "fallbacks_"
    # a seat's own column only: a 2x2 run's `fallbacks_a_ci_high` names no seat "a_ci_high"
    found = {str(c)[len(prefix) :] for c in table.columns if str(c).startswith(prefix)}
    return seats_among(found | set(SEATS))


def read_turns(path: Path) -> dict[tuple[str, int], list[dict[str, Any]]]:
    """The stored turn lines of rounds.jsonl per match (a torn last line is dropped). A line of a
    game whose matches are read as rounds (`aggregation_choice.reads_rounds_of`: a 2x2 game's,
    of either record version) is refused: this reads turn lines only."""
    end = jsonl.complete_prefix(path) if path.exists() else 0
    matches: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
    if not end:
        return matches
    with path.open("rb") as handle:
        data = handle.read(end)
    read_as_rounds: dict[str, bool | None] = {}  # per game: its entry asked once a read
    for number, line in enumerate(data.splitlines(), 1):
        record = orjson.loads(line)
        game = record.get("game")
        if game not in read_as_rounds:
            read_as_rounds[game] = reads_rounds_of(game) if isinstance(game, str) else None
        # a game no installed entry declares is left to the replay, which names it
        if read_as_rounds[game]:
            raise PdbenchError(
                f"{path} line {number}: a 2x2 round in a turn-game run; aggregate it alone"
            )
        matches[(record["condition"], record["replicate"])].append(record)
    return matches


def _match_row(game_id: str, turns: list[dict[str, Any]], where: str) -> dict[str, Any]:
    outcome = turns[-1].get("outcome")
    if outcome is None:
        raise PdbenchError(f"{where}: its last stored turn has no outcome; nothing is aggregated")
    game = build_turn_game(game_id, **outcome["options"])
    try:
        state = replay(game, outcome["seed"], [turn["actions"] for turn in turns])
    except ValueError as error:
        raise PdbenchError(f"{where}: {error}; nothing is aggregated") from None
    if outcome["error"] is None and game.scores(state) != outcome["scores"]:
        raise PdbenchError(f"{where}: the replayed scores differ from the stored ones")
    row: dict[str, Any] = {"n_turns": len(turns), "n_rounds": turns[-1]["round"]}
    # a group's further seats: who played them, as the turn lines name them (agent_c, ...)
    row.update({k: v for k, v in turns[0].items() if k.startswith("agent_") and k not in SIDES})
    for seat in sorted(outcome["scores"]):  # every player seat: a, b, c, ...
        marks = [turn.get("decisions", {}).get(seat, {}) for turn in turns]
        row[f"fallbacks_{seat}"] = sum(bool(m.get("fallback")) for m in marks)
        row[f"invalid_outputs_{seat}"] = sum(int(m.get("invalid_outputs", 0)) for m in marks)
    match = GameMatch(rules=game, state=state, turns=turns, options=outcome["options"])
    for seat, values in measure_match(game_metric_rows(game_id), match).items():
        row.update({f"{name}_{seat}": value for name, value in values.items()})
    return row


def aggregate_turns(
    run_dir: Path, manifest: RunManifest, ledger: list[LedgerEntry] | None, played: object
) -> pd.DataFrame:
    """The aggregation of a game whose entry names none (`TurnGameEntry.aggregates`; a turn
    game's, a plugin's): its rows measure each stored match replayed. What a run holds in memory
    (`played`) is not used: the matches are measured from what is stored, ledger included."""
    if played is not None:
        ledger = read_ledger(run_dir) if (run_dir / LEDGER_FILE).exists() else None
    table = finish_table(aggregate_turn_run(run_dir / ROUNDS_FILE, manifest, ledger))
    rows = [row for game in _games(manifest) for row in game_metric_rows(game)]
    return with_seat_types(table, seat_column_types(rows, seats_in(table)))


def aggregate_turn_run(
    path: Path, manifest: RunManifest, ledger: list[LedgerEntry] | None
) -> pd.DataFrame:
    """The aggregates table of a turn-game run (see the module docstring)."""
    stored = read_turns(path)
    if ledger is None:  # no ledger left: every stored match counts as its outcome says
        ledger = ledger_of_stored(
            {key: (len(t), t[-1].get("outcome", {}).get("error")) for key, t in stored.items()}
        )
    entries = in_plan_order(ledger, manifest)
    refuse_miscounted(entries, {key: len(t) for key, t in stored.items()}, str(path), "turns")
    rows = []
    for entry in entries:
        matchup = manifest.matchups[entry.condition]
        turns = stored.get(entry.key, [])
        where = f"{path}: condition {entry.condition} replicate {entry.replicate}"
        row: dict[str, Any] = {
            "run_id": manifest.run_id,
            "level": "replicate",
            "condition": entry.condition,
            "replicate": entry.replicate,
            "agent_a": matchup.agent_a,
            "agent_b": matchup.agent_b,
            "game": matchup.game,
            "match_status": "aborted" if entry.error else "finished",
            "error": entry.error,
        }
        if turns:
            row.update(_match_row(matchup.game, turns, where))
        rows.append(row)
    if not rows:  # nothing stored yet (servers down, a budget spent before a match ended)
        return pd.DataFrame(columns=_columns(manifest))
    replicates = pd.DataFrame(rows)
    conditions = [
        _condition_row(name, group, manifest)
        for name, group in replicates.groupby("condition", sort=False)
    ]
    return pd.concat([replicates, pd.DataFrame(conditions)], ignore_index=True)


def _columns(manifest: RunManifest) -> list[str]:
    """The columns of the table, as rows of the run's games would have them: a run that stored
    no match still has a table with them, empty."""
    columns = [
        "run_id", "level", "condition", "replicate", "agent_a", "agent_b", "game",
        "match_status", "error", "n_turns", "n_rounds",
        *(f"{count}_{seat}" for count in ("fallbacks", "invalid_outputs") for seat in SEATS),
        "n_replicates", "n_finished", "n_aborted",
    ]  # fmt: skip
    for game in _games(manifest):
        stems = [row.stem for row in game_metric_rows(game) if row.shape != "condition"]
        for seat in SEATS:
            columns += [f"{stem}_{seat}" for stem in stems]
        for seat in SEATS:  # a condition row's statistics, after the replicates' columns
            columns += [f"{stem}_{seat}_{suffix}" for stem in stems for suffix in SUFFIXES]
    return list(dict.fromkeys(columns))


def _games(manifest: RunManifest) -> list[str]:
    return list(dict.fromkeys(matchup.game for matchup in manifest.matchups.values()))


def _condition_row(name: Any, group: pd.DataFrame, manifest: RunManifest) -> dict[str, Any]:
    matchup = manifest.matchups[str(name)]
    rows = game_metric_rows(matchup.game)
    finished = group[group["match_status"] == "finished"]
    horizon = (manifest.condition_config(str(name)) or {}).get("horizon")
    row: dict[str, Any] = {
        "run_id": manifest.run_id,
        "level": "condition",
        "condition": str(name),
        "agent_a": matchup.agent_a,
        "agent_b": matchup.agent_b,
        **matchup.further_seats,  # a group's agent_c, ...
        "game": matchup.game,
        "n_replicates": len(group),
        "n_finished": len(finished),
        "n_aborted": len(group) - len(finished),
    }
    seats = seats_in(group)
    measured = [m for m in rows if m.shape != "condition"]
    values_of = float_values(finished, [f"{m.stem}_{seat}" for seat in seats for m in measured])
    for seat in seats:
        for metric in measured:
            column = f"{metric.stem}_{seat}"
            # the 2x2 rows' statistics: the metric row's kind sets its interval's range
            statistics = statistics_columns(
                MetricColumn(column, metric, None), values_of[column], horizon
            )
            row.update(statistics)
        for metric in (m for m in rows if m.pooled is not None):
            top, bottom = metric.pooled  # type: ignore[misc]
            below = float(finished.get(f"{bottom}_{seat}", pd.Series(dtype=float)).sum())
            above = float(finished.get(f"{top}_{seat}", pd.Series(dtype=float)).sum())
            row[f"{metric.stem}_{seat}_pooled"] = above / below if below else None
        for metric in (m for m in rows if m.shape == "condition"):
            row[f"{metric.stem}_{seat}"] = metric.compute(finished, seat)  # type: ignore[misc]
    return row


def finish_table(table: pd.DataFrame) -> pd.DataFrame:
    """A measure's lists or mappings per match (Liar's Dice's faced bids, a debate's wins per
    side) as JSON text: parquet keeps one type per column."""
    # Only the object columns can hold one (the dtypes read at once: taking each of a wide
    # table's columns out costs ~50 µs, ~1,400 columns a run of every turn game).
    objects = [c for c, dtype in zip(table.columns, table.dtypes, strict=True) if dtype == OBJECT]
    for column in objects:
        if any(isinstance(v, list | dict) for v in table[column]):
            table[column] = [
                orjson.dumps(v).decode() if isinstance(v, list | dict) else None
                for v in table[column]
            ]
    return table
