"""Issue 14's done-when check, on the real command line: a 3 x 6 persona x opponent sweep
(`python -m pdbench -m agent_a=llm_default agent_b=<six> persona=<three>`, the mock model, in a
copy of the project) prints a summary that reads at 100 columns, pivots in one pandas line from
aggregates.parquet, and the mock's persona lean shows in the numbers. The viewer's heat map of
the same grid is checked in test_viewer_browser.py."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from persona_grid import shared_persona_grid
from project_copy import GRID_OPPONENTS, GRID_PERSONAS


@pytest.fixture(scope="module")
def grid(tmp_path_factory) -> tuple[Path, str]:
    """The grid's command run once per session in this process (tests/persona_grid.py): what it
    prints is the same, without a new interpreter's imports (litellm's alone take seconds).
    Nothing here is about the process, and nothing here writes into the run."""
    return shared_persona_grid(tmp_path_factory)


def test_the_summary_reads_at_100_columns(grid):
    _, stdout = grid
    lines = stdout[stdout.index("run sweep-") :].splitlines()  # after Hydra's launch log
    assert all(len(line.rstrip()) <= 100 for line in lines), max(lines, key=len)
    header = next(i for i, line in enumerate(lines) if line.split()[:2] == ["agent_b", "persona"])
    rows = [line.split() for line in lines[header + 2 : header + 2 + 18]]
    # every condition on one line: its two factors unbroken, then all ten numbers
    assert {(row[0], row[1]) for row in rows} == {
        (opponent, persona) for opponent in GRID_OPPONENTS for persona in GRID_PERSONAS
    }
    assert all(row[2] == "3/3" for row in rows)  # finished / planned
    for row in rows:
        assert len(row) >= 2 + 10 and row[-2].count("/") == 1, row  # calls live/cached
        float(row[3]), float(row[4]), float(row[5])  # coop A, B, both: numbers, not cut


def test_the_grid_pivots_in_one_line(grid):
    run_dir, _ = grid
    agg = pd.read_parquet(run_dir / "aggregates.parquet")
    conditions = agg.query("level == 'condition'")
    table = conditions.pivot(index="persona", columns="agent_b", values="cooperation_rate_a")
    assert table.shape == (3, 6)
    assert sorted(table.index) == sorted(GRID_PERSONAS)
    table.columns = table.columns.str.lower()  # the agent_b column holds its display name, TFT
    assert sorted(table.columns) == sorted(GRID_OPPONENTS)
    # The mock leans with the persona (pdbench/providers/mock.py): exploitative defects where a
    # neutral reciprocator cooperates, cooperative forgives where it defects.
    assert (table.loc["exploitative"] < table.loc["tit_for_tat"]).sum() >= 4
    assert table.loc["cooperative", "alld"] > table.loc["tit_for_tat", "alld"]
    assert table.loc["tit_for_tat", "tft"] == table.loc["cooperative", "tft"] == 1.0
