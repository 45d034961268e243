"""Issue 43: whether a run's matches are read as 2x2 round records (analyze's fingerprints, a
tournament's matrix) or as turn lines (a turn game's measures, a population's encounters) is asked
of the run's games' entries (`reads_rounds`: how they are aggregated), no longer of the family
table; for every installed game the answer is the one the family gave."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import orjson
import pytest

from pdbench.analysis.metrics.aggregation_choice import (
    ROUNDS_AGGREGATION,
    reads_rounds,
    reads_rounds_of,
)
from pdbench.analysis.metrics.columns import read_matches
from pdbench.analysis.metrics.turn_aggregates import read_turns
from pdbench.core.errors import PdbenchError
from pdbench.games import registry
from pdbench.games.registry import GAME_FAMILIES
from pdbench.storage.manifest import Matchup, RunManifest


def _manifest(*games: str) -> RunManifest:
    return RunManifest(
        run_id="r",
        status="incomplete",
        conditions=[f"c{n}" for n in range(len(games))],
        matchups={
            f"c{n}": Matchup(agent_a="x", agent_b="y", game=game, horizon_type="-")
            for n, game in enumerate(games)
        },
    )


@pytest.mark.parametrize("game", sorted(GAME_FAMILIES))
def test_a_runs_matches_are_rounds_exactly_for_the_2x2_games(game):
    assert reads_rounds(_manifest(game, game)) == (GAME_FAMILIES[game] == "matrix")


def test_a_run_of_no_condition_reads_no_rounds():
    assert not reads_rounds(_manifest())


# --- the readers ask the line's game's entry, not a family key ---------------------------------

ROUND_LINE = {  # a version-1 round line (no `family`, no `turn`), as tests/golden/v1 holds
    "agent_a": "TFT", "agent_a_action": "C", "agent_a_cum_payoff": 3.0, "agent_a_payoff": 3.0,
    "agent_b": "ALLD", "agent_b_action": "D", "agent_b_cum_payoff": 5.0, "agent_b_payoff": 5.0,
    "condition": "c0", "fixed_n": 1, "horizon_type": "fixed", "replicate": 0, "round_index": 1,
    "run_id": "r", "stop_prob": None,
}  # fmt: skip


def _stored(run_dir: Path, game: str) -> Path:
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "rounds.jsonl").write_bytes(orjson.dumps({**ROUND_LINE, "game": game}) + b"\n")
    return run_dir


def _reading_rounds(monkeypatch, game: str, aggregates: str) -> None:
    """`game`'s entry naming `aggregates`, as a plugin game's entry may."""
    table = registry.TURN_GAMES if game in registry.TURN_GAMES else registry.MATRIX_GAMES
    monkeypatch.setitem(table, game, dataclasses.replace(table[game], aggregates=aggregates))


def test_the_rounds_reader_refuses_the_lines_of_a_game_whose_entry_reads_turns(
    tmp_path, monkeypatch
):
    run_dir = _stored(tmp_path / "run", "liars_dice")  # no `family` key to tell it by
    with pytest.raises(PdbenchError, match="the turn-based game liars_dice, not 2x2 rounds"):
        read_matches(run_dir)
    # the same line, once the game's entry names the rounds' aggregation, is read as a round
    _reading_rounds(monkeypatch, "liars_dice", ROUNDS_AGGREGATION)
    matches = read_matches(run_dir)
    assert matches.keys == [("c0", 0)] and matches.payoff_b.tolist() == [5.0]


def test_the_turn_reader_refuses_the_lines_of_a_game_whose_entry_reads_rounds(
    tmp_path, monkeypatch
):
    path = _stored(tmp_path / "run", "pd") / "rounds.jsonl"
    with pytest.raises(PdbenchError, match="line 1: a 2x2 round in a turn-game run"):
        read_turns(path)
    _reading_rounds(monkeypatch, "pd", "")  # the default: its matches replayed as turn lines
    assert list(read_turns(path)) == [("c0", 0)]


def test_a_line_of_a_game_no_installed_entry_declares_is_left_to_the_reader(tmp_path):
    """Nobody can say how an unknown game's lines are read: neither reader refuses them for it
    (the replay then names the missing game, the rounds' reader reads what is there)."""
    run_dir = _stored(tmp_path / "run", "no_such_game")
    assert reads_rounds_of("no_such_game") is None
    assert list(read_turns(run_dir / "rounds.jsonl")) == [("c0", 0)]
    assert read_matches(run_dir).keys == [("c0", 0)]


def test_the_inspect_export_walks_a_conditions_lines_as_its_games_entry_reads_them():
    """Round records (a 2x2 match of either record version, as the reader gives it) or turn
    lines, asked of the condition's game's entry, even for a match that stored no line (an
    aborted turn-game match is then said to end after 0 turns, not 0 of its rounds)."""
    from pdbench.cli.inspect_samples import reads_rounds_in

    assert reads_rounds_in(_manifest("pd"), "c0", [])
    assert not reads_rounds_in(_manifest("liars_dice"), "c0", [])
    # a manifest without the condition's matchup: the game its lines name
    assert reads_rounds_in(_manifest(), "c0", [{**ROUND_LINE, "game": "pd"}])
    assert not reads_rounds_in(_manifest(), "c0", [{"game": "liars_dice", "turn": 1}])
