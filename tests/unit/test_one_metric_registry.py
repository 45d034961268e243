"""Issue 43: one metric system. Every game's metrics are rows of the one registry
(`pdbench.core.metric`), registered the same way (`register_metric`, `@metric_row`), declared in
the game's package (the module its entry's `metrics` names) or by a plugin; the turn games'
aggregation reads the registry only, so a row registered for a game from outside its package (as
a plugin's) becomes that game's column with nothing else changed."""

from __future__ import annotations

import importlib
from collections import defaultdict
from pathlib import Path

import orjson
import pytest

from pdbench.analysis.metrics.catalog import metric_columns
from pdbench.analysis.metrics.turn_aggregates import _match_row
from pdbench.core.metric import Metric, register_metric, registered_rows, unregister_metric
from pdbench.games.metric_rows import GameMatch, game_metric_rows
from pdbench.games.registry import TURN_GAMES

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "every_game" / "turn_games.rounds.jsonl"
# the module attributes the turn games' metrics were read by, with getattr, before issue 43
OLD_CONVENTION = ("METRICS", "POOLED", "SHOWN", "MATCH_ROW_READS")


@pytest.mark.parametrize("game_id", sorted(TURN_GAMES))
def test_a_games_metrics_are_rows_of_the_one_registry(game_id):
    rows = game_metric_rows(game_id)
    assert rows, f"{game_id} registers no metric row"
    assert all(isinstance(row, Metric) and row.game == game_id for row in rows)
    assert rows == registered_rows(game_id)
    assert all(row.per_agent for row in rows)  # stored per player seat
    module = importlib.import_module(TURN_GAMES[game_id].metrics)
    left = [name for name in OLD_CONVENTION if hasattr(module, name)]
    assert not left, f"{module.__name__} is still read by its attributes {left}"


def test_a_games_rows_are_not_the_2x2_columns():
    for game_id in TURN_GAMES:
        game_metric_rows(game_id)
    assert all(column.metric.game == "" for column in metric_columns())


def test_a_row_registered_for_a_game_from_outside_is_aggregated():
    turns = defaultdict(list)
    for line in GOLDEN.read_bytes().splitlines():
        record = orjson.loads(line)
        turns[(record["condition"], record["replicate"])].append(record)
    match = turns[("liars_dice", 0)]
    before = _match_row("liars_dice", match, "golden")

    def turns_played(played: GameMatch, seat: object) -> dict[str, dict[str, object]]:
        return {s: {"turns_played": len(played.turns)} for s in ("a", "b")}

    row = Metric(
        stem="turns_played",
        label="Turns",
        short="turns",
        help="turns of the match",
        kind="count",
        per_agent=True,
        game="liars_dice",
        compute=turns_played,
    )
    register_metric(row)
    try:
        after = _match_row("liars_dice", match, "golden")
    finally:
        unregister_metric(row)
    assert after == {**before, "turns_played_a": len(match), "turns_played_b": len(match)}
