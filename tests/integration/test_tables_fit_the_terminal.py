"""Issue 41: the tables pdbench prints fit the terminal's width, and a name is never cut to a
meaningless prefix. Turn-game summaries ignored COLUMNS (144 columns at 80; 265 for
nil_recruitment, its condition cut with an ellipsis); `analyze` cut every condition to
`agent_b=...`; a 2x2 condition name wrapped in the middle of a word. Small real runs, printed by
the functions the commands print with, at a set COLUMNS."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pandas as pd
import pytest

from pdbench.cli.report import print_summary
from pdbench.runners.experiment import run_experiment
from pdbench.runners.prepare import load

ROOT = Path(__file__).resolve().parents[2]


def play(tmp_path: Path, *overrides: str) -> Path:
    loaded = load(
        ROOT / "conf" / "config.yaml",
        [*overrides, "run.replicates=1", f"run.output_dir={tmp_path / 'runs'}"],
        project_root=ROOT,
    )
    return run_experiment(loaded).run_dir


def table_lines(out: str) -> list[str]:
    """The summary's lines down to the run dir (a path is printed whole, however long)."""
    lines = out.splitlines()
    return lines[: next(i for i, line in enumerate(lines) if line.startswith("run dir: "))]


def whole_parts(condition: str, out: str) -> bool:
    """Every part of a condition's name is printed whole (a name wraps between its parts)."""
    return all(part in out for part in re.findall(r"[^,/]+[,/]?", condition))


@pytest.mark.parametrize(
    ("game", "agents"),
    [
        ("liars_dice", ("liars_bluffer", "liars_probability")),
        ("nil_recruitment", ("debate_fixed", "debate_priorities")),
        ("passcode", ("passcode_halving", "passcode_lengths")),
    ],
)
def test_a_turn_game_summary_fits_80_columns(game, agents, tmp_path, monkeypatch, capsys):
    run_dir = play(tmp_path, f"game={game}", f"agent_a={agents[0]}", f"agent_b={agents[1]}")
    monkeypatch.setenv("COLUMNS", "80")
    print_summary(run_dir)
    out = capsys.readouterr().out
    lines = table_lines(out)
    assert max(len(line) for line in lines) <= 80, "\n".join(lines)
    assert "…" not in out
    condition = pd.read_parquet(run_dir / "aggregates.parquet")["condition"].iloc[0]
    assert whole_parts(condition, out), out  # every part of the name whole, none cut
    assert re.search(r"\b\d/\d\b", out)  # finished / planned
    # a measure left out for the width is said, never silently dropped
    header = "\n".join(lines[: next(i for i, line in enumerate(lines) if "─" in line) + 1])
    if "not shown at this width" not in out:
        assert header.count("A/B") >= 2, out


def test_a_long_2x2_condition_name_wraps_between_its_parts(tmp_path, monkeypatch, capsys):
    run_dir = play(
        tmp_path,
        "game=agentduel_split_or_steal",
        "agent_a=tft",
        "agent_b=arena",
        "agent_b.path=examples/agents/negotiator.py",
        "horizon.rounds=2",
    )
    monkeypatch.setenv("COLUMNS", "100")
    print_summary(run_dir)
    out = capsys.readouterr().out
    assert max(len(line) for line in table_lines(out)) <= 100, out
    condition = pd.read_parquet(run_dir / "aggregates.parquet")["condition"].iloc[0]
    assert len(condition) > 30  # long enough to wrap beside the numbers
    assert whole_parts(condition, out), out


def test_analyze_keeps_what_tells_the_conditions_apart(tmp_path, monkeypatch, capsys):
    conditions = "".join(
        f"  - name: agent_b={opponent},persona=none,variant={variant}\n"
        f"    factors: {{opponent: {opponent}, variant: {variant}}}\n"
        f"    agent_a: {{ref: agent/memory_one.yaml, overrides: {{params: {params}}}}}\n"
        f"    agent_b: {opponent}\n"
        for variant, params in (
            ("generous", "{after_cc: 1, after_cd: 0.5, after_dc: 1, after_dd: 0.5}"),
            ("stingy", "{after_cc: 1, after_cd: 0.1, after_dc: 1, after_dd: 0.1}"),
        )
        for opponent in ("alld", "random")
    )
    experiment = tmp_path / "experiment.yaml"
    experiment.write_text(
        f"run: {{run_id: r, output_dir: {tmp_path / 'runs'}, seed: 3, replicates: 4}}\n"
        "game: {id: pd}\nhorizon: {type: fixed, rounds: 10}\nconditions:\n" + conditions
    )
    run_dir = run_experiment(load(experiment, project_root=ROOT)).run_dir
    capsys.readouterr()
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.setattr(sys, "argv", ["pdbench", "analyze", str(run_dir), "--bootstrap", "20"])
    monkeypatch.setattr(sys, "argv", [*sys.argv, "--factor", "variant"])
    from pdbench.cli import main

    try:
        main()
    except SystemExit as done:
        assert done.code in (0, None), capsys.readouterr().err
    out = capsys.readouterr().out
    assert "…" not in out
    tables = [line for line in out.splitlines() if not line.startswith(("analysis of", "wrote"))]
    assert max(len(line) for line in tables) <= 100, out
    for opponent in ("alld", "random"):
        for variant in ("generous", "stingy"):
            assert whole_parts(f"agent_b={opponent},persona=none,variant={variant}", out), out


def test_a_turn_game_run_sets_no_made_up_estimate_against_its_spend(tmp_path, capsys):
    """The end of an LLM Liar's Dice run said "estimate before the run: mock: 0 calls, 0 input
    tokens, unknown price" (once per job of a sweep): a turn game's calls are not estimated
    (validate says so before the run), so there is no estimate to set the spend against."""
    run_dir = play(tmp_path, "game=liars_dice", "agent_a=llm_default", "agent_b=liars_random")
    capsys.readouterr()
    print_summary(run_dir)
    out = capsys.readouterr().out
    assert "spent: $0.0000 on" in out
    assert "estimate before the run" not in out
