"""A turn game's metrics as rows of the one metric registry (`pdbench.core.metric`, issue 43).

A game's package declares its rows in the module its entry's `metrics` names: `Metric(...)` rows
with `game=<id>`, registered with `register_metric` (or `register_game_rows` below, which
registers the same rows for the games of a family sharing them, each measured by one function).
A plugin adds a row to any game the same way, from its own module, through the `pdbench.metrics`
entry point group. `game_metric_rows(game_id)` imports the game's module (its rows register on
import), loads the plugins' and answers the game's rows from the registry; the aggregation
(`pdbench.analysis.metrics.turn_aggregates`) and the end-of-run table read nothing else
(`shown_rows`: any game's shown rows, the 2x2 family's included).

A row's `compute(match, seat)` measures one stored match, a `GameMatch`: its rules, the state its
stored actions replay to, its stored turn lines and its game options; it answers for every seat
at once ({seat: {column stem: value}}, the row's own stem and the counts its pooled ratio sums);
rows sharing a function are measured once per match (`measure_match`), in registration order.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from pdbench.core.metric import Metric, register_metric, registered_rows
from pdbench.core.plugins import load_group

# One match's measures: seat -> column stem -> value (a number, None, or a list / mapping the
# aggregates table keeps as JSON text).
Measured = dict[str, dict[str, object]]


@dataclass(frozen=True)
class GameMatch:
    """One stored match of a turn game, as a game's metric rows measure it."""

    rules: Any  # the game's rules, built with the match's stored options
    state: Any  # the state the stored actions replay to from the stored seed
    turns: Sequence[Mapping[str, Any]]  # the match's stored turn lines, in order
    options: Mapping[str, Any]  # the game options stored with the match's outcome


def register_game_rows(
    games: Iterable[str], measure: Callable[[GameMatch], Measured], rows: Sequence[Metric]
) -> None:
    """Register `rows` (written without `game` and `compute`) for each of `games`, each row
    measured by `measure` (once per match for all of them)."""

    def compute(match: GameMatch, seat: object = None) -> Measured:
        return measure(match)

    for game in games:
        for row in rows:
            computed = row.compute if row.shape == "condition" else compute
            register_metric(replace(row, game=game, compute=computed))


def game_metric_rows(game_id: str) -> tuple[Metric, ...]:
    """Every metric row of `game_id`, in registration (column) order: the game package's, then
    any a plugin registered for it."""
    from pdbench.games.registry import turn_game_entry

    module = turn_game_entry(game_id).metrics
    if module:
        importlib.import_module(module)  # its rows register on import
    load_group("pdbench.metrics")
    return registered_rows(game_id)


def shown_rows(game_id: str) -> tuple[Metric, ...]:
    """The rows of any game, a 2x2 game's or a turn game's, that the end-of-run table shows
    (`Metric.shown`), in their order (`Metric.shown_at`): the game's own rows, or for a game
    whose entry names a 2x2 table the rows its family registers once for every 2x2 game
    (`Metric.game` "", `pdbench.games.matrix.metrics`)."""
    from pdbench.games.registry import game_entry

    entry = game_entry(game_id)
    if entry.metrics:
        importlib.import_module(entry.metrics)  # its rows register on import
    load_group("pdbench.metrics")
    rows = registered_rows(game_id if entry.table is None else "")
    return tuple(sorted((m for m in rows if m.shown), key=lambda m: m.shown_at))


def summary_note(game_id: str, conditions: Any) -> str | None:
    """The line a game's metrics module adds under the end-of-run table, its optional
    `summary_note(conditions)` (a score that is not a plain sum, say), or None."""
    from pdbench.games.registry import game_entry

    module = game_entry(game_id).metrics
    note = getattr(importlib.import_module(module), "summary_note", None) if module else None
    return note(conditions) if note is not None else None


def summary_notes(aggregates: Any) -> list[str]:
    """Every game's `summary_note` on a run's aggregates (a DataFrame of aggregates.parquet),
    game by game in order of first appearance: what a run's score is when it is not a plain sum
    of the rounds' payoffs, for every report that shows a score of that run."""
    conditions = aggregates[aggregates["level"] == "condition"]
    notes = []
    for game_id in dict.fromkeys(aggregates["game"].dropna()):
        said = summary_note(str(game_id), conditions[conditions["game"] == game_id])
        if said:
            notes.append(said)
    return notes


def measure_match(rows: Sequence[Metric], match: GameMatch) -> Measured:
    """Every value `rows` measure on `match`, per seat, each distinct function called once and
    its answers kept in registration order."""
    measured: Measured = {}
    done: list[object] = []
    for row in rows:
        if row.shape == "condition" or any(row.compute is seen for seen in done):
            continue
        done.append(row.compute)
        for seat, values in row.compute(match, None).items():  # type: ignore[misc]
            measured.setdefault(seat, {}).update(values)
    return measured
