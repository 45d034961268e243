"""Which aggregation computes a game's aggregates.parquet, asked of the game's entry
(`TurnGameEntry.aggregates`), and what that says of how its stored matches are read.

A game whose entry names the rounds' aggregation (`ROUNDS_AGGREGATION`: every round of every
match at once, numpy; the 2x2 games name it) has its matches read as rounds, one record per round
with both sides' C/D and payoffs (a version-2 match through its projection,
`storage.line_projection`): the readers of rounds (`analysis.metrics.columns`, analyze's
fingerprints, a tournament's matrix) read it, and the readers of turn lines (the replay of a
game's metric rows, the ladder's replay, a population's encounters) refuse it. Any other game's
matches are read as turn lines. The readers ask this module, never which family a game is, so a
game (a plugin's too) says how its matches are read by the aggregation it names.

This module imports no aggregation: the readers of rounds import it without a cycle.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from pdbench.core.errors import ConfigError, PdbenchError

if TYPE_CHECKING:
    from pdbench.storage.ledger import LedgerEntry
    from pdbench.storage.manifest import RunManifest

# The aggregation of matches read as rounds: the one an entry names to say its matches are.
ROUNDS_AGGREGATION = "pdbench.analysis.metrics.round_aggregates:aggregate_rounds"
# How a run of a game whose entry names no aggregation is aggregated: its rows of the metric
# registry measure each stored match replayed through its rules.
REPLAY_AGGREGATION = "pdbench.analysis.metrics.turn_aggregates:aggregate_turns"

# A game's aggregation: (run dir, manifest, ledger or None, the matches the run holds in memory
# or None) -> the aggregates table.
Aggregation = Callable[[Path, "RunManifest", "list[LedgerEntry] | None", Any], pd.DataFrame]


def aggregation_name(game_id: str) -> str:
    """The "module:function" aggregating a run of `game_id`, as its entry names it (the replay
    by default); a game no installed entry declares is a ConfigError naming the choices."""
    from pdbench.games.registry import game_entry

    return game_entry(game_id).aggregates or REPLAY_AGGREGATION


def reads_rounds_of(game_id: str) -> bool | None:
    """Whether the stored matches of `game_id` are read as rounds (its entry names the rounds'
    aggregation); None for a game no installed entry declares (nobody can say)."""
    try:
        return aggregation_name(game_id) == ROUNDS_AGGREGATION
    except ConfigError:
        return None


def _aggregation_names(manifest: RunManifest) -> list[str]:
    found: dict[str, None] = {}
    for game in dict.fromkeys(m.game for m in manifest.matchups.values()):
        try:
            found[aggregation_name(game)] = None
        except ConfigError:
            raise PdbenchError(
                f"run {manifest.run_id}: no installed game {game} to aggregate its matches "
                "(pdbench list games)"
            ) from None
    if len(found) > 1:
        raise PdbenchError(
            f"run {manifest.run_id}: its games are aggregated in different ways "
            f"({', '.join(found)}); run them as separate runs"
        )
    return list(found)


def aggregation_of(manifest: RunManifest) -> Aggregation:
    """How the run's games are aggregated, asked of their entries (`TurnGameEntry.aggregates`;
    the replay of the game's rows by default). A run's games share one aggregation (a run
    mixing 2x2 and turn games is refused when it is configured); a game no installed entry
    declares cannot be aggregated (PdbenchError naming it)."""
    module, _, function = next(iter(_aggregation_names(manifest)), REPLAY_AGGREGATION).partition(
        ":"
    )
    aggregation: Aggregation = getattr(importlib.import_module(module), function)
    return aggregation


def reads_rounds(manifest: RunManifest) -> bool:
    """Whether the run's matches are read as rounds (the C/D rounds that analyze's fingerprints
    and a tournament's matrix read), asked of its games' entries: they name the rounds'
    aggregation. Otherwise they are turn lines, each game's own (its measures, a population's
    encounters)."""
    return bool(manifest.matchups) and _aggregation_names(manifest) == [ROUNDS_AGGREGATION]
