"""Issue 43: one end-of-run table for every game. Its measure columns are the game's metric rows'
`shown`, a 2x2 game's as a turn game's (the 2x2 table was written out column by column, apart
from the turn games' table): a row shown is a column of the table, whichever the game."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from pdbench.cli.summary_table import summary_table
from pdbench.core import metric as registry
from pdbench.games.metric_rows import shown_rows
from pdbench.runners.experiment import run_experiment
from pdbench.runners.prepare import load

ROOT = Path(__file__).resolve().parents[2]


def play(tmp_path: Path, *overrides: str) -> Path:
    loaded = load(
        ROOT / "conf" / "config.yaml",
        [*overrides, "run.replicates=2", f"run.output_dir={tmp_path / 'runs'}"],
        project_root=ROOT,
    )
    return run_experiment(loaded).run_dir


def headers(run_dir: Path) -> list[str]:
    return [str(column.header) for column in summary_table(run_dir).table.columns]


def test_the_2x2_rows_say_what_the_2x2_table_shows():
    shown = [(m.stem, m.per_agent, m.shown, m.shown_apart) for m in shown_rows("pd")]
    assert shown == [
        ("cooperation_rate", True, "coop", True),
        ("cooperation_rate", False, "coop", True),
        ("total_payoff", True, "total", True),
    ]
    assert shown_rows("chicken") == shown_rows("pd")  # the family's rows, every 2x2 game's


@pytest.mark.parametrize(
    ("overrides", "game", "stem", "changed", "expected"),
    [
        # a 2x2 row given a header: a column per side, after the family's columns
        (
            ("agent_a=tft", "agent_b=alld", "horizon.rounds=6"),
            "pd",
            "retaliation_rate",
            {"shown": "retal", "shown_at": 99, "shown_apart": True},
            ["retal A", "retal B"],
        ),
        # a turn game's row laid out apart: the layout is the row's, not the family's
        (
            ("game=liars_dice", "agent_a=liars_bluffer", "agent_b=liars_probability"),
            "liars_dice",
            "win_rate",
            {"shown_apart": True},
            ["win A", "win B"],
        ),
    ],
)
def test_a_games_table_shows_its_rows_as_the_rows_say(
    tmp_path, monkeypatch, overrides, game, stem, changed, expected
):
    run_dir = play(tmp_path, *overrides)
    before = headers(run_dir)
    row_game = "" if game == "pd" else game  # the 2x2 rows are the family's
    rows = [m for m in registry._REGISTERED if m.game == row_game and m.stem == stem]
    assert len(rows) == 1, rows
    changed_row = dataclasses.replace(rows[0], **changed)
    swapped = [changed_row if m is rows[0] else m for m in registry._REGISTERED]
    monkeypatch.setattr(registry, "_REGISTERED", swapped)
    after = headers(run_dir)
    assert not any(header in before for header in expected)
    assert [header for header in after if header not in before][: len(expected)] == expected
