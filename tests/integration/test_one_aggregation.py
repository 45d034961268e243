"""Issue 43: one entry point computes aggregates.parquet for any run, asking the run's games'
entries how (`TurnGameEntry.aggregates`): the 2x2 games their rounds' aggregation, every other
game (a plugin's included) the replay of its metric rows by default. It was chosen by the family
(`is_turn_run`, gone), so a game could not bring its own."""

from __future__ import annotations

import dataclasses
import sys
import types
from pathlib import Path

import orjson
import pandas as pd
import pytest
from silently_wrong_helpers import run_experiment_file

from pdbench.analysis.metrics.aggregate import aggregate_run, write_aggregates
from pdbench.analysis.metrics.aggregation_choice import REPLAY_AGGREGATION, aggregation_of
from pdbench.core.errors import PdbenchError
from pdbench.games import registry
from pdbench.storage.run_store import read_manifest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def dice(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("dice")
    run = run_experiment_file(
        ROOT / "conf" / "config.yaml",
        [
            "game=liars_dice",
            "agent_a=liars_bluffer",
            "agent_b=liars_probability",
            "run.replicates=2",
        ],
        output_dir=tmp / "runs",
    )
    return run.run_dir


def test_each_game_names_its_aggregation_and_a_turn_game_by_default_is_replayed():
    assert {entry.aggregates for entry in registry.MATRIX_GAMES.values()} == {
        "pdbench.analysis.metrics.round_aggregates:aggregate_rounds"
    }
    assert not any(entry.aggregates for entry in registry.TURN_GAMES.values())
    assert REPLAY_AGGREGATION == "pdbench.analysis.metrics.turn_aggregates:aggregate_turns"


def test_a_game_naming_its_own_aggregation_is_aggregated_by_it(dice, monkeypatch):
    written = (dice / "aggregates.parquet").read_bytes()  # by the run, from what it held
    write_aggregates(dice)  # by `pdbench aggregate`: the default, the replay
    assert (dice / "aggregates.parquet").read_bytes() == written
    stored = pd.read_parquet(dice / "aggregates.parquet")
    asked = []

    def own(run_dir, manifest, ledger, played):
        asked.append((run_dir, manifest.run_id, played))
        return stored.head(1)

    module = types.ModuleType("a_games_own_aggregation")
    module.aggregate = own  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "a_games_own_aggregation", module)
    entry = dataclasses.replace(
        registry.TURN_GAMES["liars_dice"], aggregates="a_games_own_aggregation:aggregate"
    )
    monkeypatch.setitem(registry.TURN_GAMES, "liars_dice", entry)
    assert aggregation_of(read_manifest(dice)) is own
    assert len(write_aggregates(dice)) == 1
    assert asked == [(dice, read_manifest(dice).run_id, None)]


def test_a_run_of_a_game_no_installed_entry_declares_is_refused(dice, monkeypatch):
    monkeypatch.delitem(registry.TURN_GAMES, "liars_dice")
    with pytest.raises(PdbenchError, match="no installed game liars_dice"):
        aggregate_run(dice)


def test_the_seats_of_a_table_are_its_seats_own_columns_only():
    """A 2x2 run's aggregates hold `fallbacks_a_ci_high` beside `fallbacks_a`: a column's suffix
    is a seat only when it is a seat's name (found by onereader: the 2x2 table then had a seat
    "a_ci_high")."""
    import pandas as pd

    from pdbench.analysis.metrics.turn_aggregates import seats_in

    columns = ["fallbacks_a", "fallbacks_b", "fallbacks_a_ci_high", "fallbacks_b_mean", "x"]
    assert seats_in(pd.DataFrame(columns=columns)) == ("a", "b")
    group = ["fallbacks_a", "fallbacks_b", "fallbacks_c", "fallbacks_za", "fallbacks_c_ci_low"]
    assert seats_in(pd.DataFrame(columns=group)) == ("a", "b", "c", "za")


def _with_ledger_line(run: Path, to: Path, **changed: int) -> Path:
    """A copy of `run` whose ledger line of replicate 0 says `changed`."""
    import shutil

    shutil.copytree(run, to)
    ledger = to / "matches.jsonl"
    lines = [orjson.loads(line) for line in ledger.read_bytes().splitlines()]
    edited = [{**line, **changed} if line["replicate"] == 0 else line for line in lines]
    ledger.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in edited))
    return to


def test_a_turn_games_run_is_held_to_the_ledger_checks_a_2x2_run_is(dice, tmp_path):
    """One check of the stored lines against the ledger for every aggregation (match_ledger):
    a ledger line saying more turns than the match's cap is refused, as a 2x2 match's rounds
    beyond its horizon are, and a count the stored turns disagree with, in the same words."""
    played = next(
        orjson.loads(line)["n_rounds"]
        for line in (dice / "matches.jsonl").read_bytes().splitlines()
    )
    beyond = _with_ledger_line(dice, tmp_path / "beyond", planned_rounds=played - 1)
    with pytest.raises(
        PdbenchError,
        match=f"replicate 0 played {played} turns but its horizon allows {played - 1}; nothing",
    ):
        aggregate_run(beyond)
    miscounted = _with_ledger_line(dice, tmp_path / "miscounted", n_rounds=played + 1)
    with pytest.raises(
        PdbenchError,
        match=rf"has {played} turns stored but its ledger line says {played + 1} \(a match "
        "written twice or cut short\\?\\); nothing is aggregated",
    ):
        aggregate_run(miscounted)
