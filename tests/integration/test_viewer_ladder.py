"""The viewer's Ladder page, driven headless by streamlit.testing: opened on a folder written by
`pdbench ladder`, it shows each game's ratings and intervals, the groups that never met and the
matches not counted, and writes nothing."""

from __future__ import annotations

import re

import numpy as np
from streamlit.testing.v1 import AppTest
from test_viewer_analysis_tabs import APP, listing

from pdbench.config.agent_identity import AgentIdentity
from pdbench.ladder.build import LadderOptions, counted, ladder_table
from pdbench.ladder.outcomes import Outcomes, Skipped, outcome_table
from pdbench.ladder.output import write_ladder
from pdbench.ui.loaders import RUN_DIR_ENV


def two_groups() -> Outcomes:
    """a1 beats a2 mostly; b1 and b2 only meet each other (never the a's)."""
    agents = {n: AgentIdentity("policy", n, {"policy": n}) for n in ("a1", "a2", "b1", "b2")}
    rng = np.random.default_rng(0)
    wins = rng.random(40) < 0.8
    table = outcome_table(
        "pd",
        "run-x",
        [f"c{i % 2}" for i in range(40)],
        list(range(40)),
        [agents["a1" if i % 2 == 0 else "b1"].key for i in range(40)],
        [agents["a2" if i % 2 == 0 else "b2"].key for i in range(40)],
        wins.astype(float),
        (~wins).astype(float),
    )
    skipped = [Skipped("run-x", "c0", 99, "aborted: the model never answered")]
    return Outcomes(table, {a.key: a for a in agents.values()}, skipped)


def test_the_ladder_page_shows_ratings_groups_and_what_was_not_counted(monkeypatch, tmp_path):
    table = ladder_table(counted(two_groups()), LadderOptions(rank_on="wins"))
    write_ladder(table, tmp_path)
    before = listing(tmp_path)
    monkeypatch.setenv(RUN_DIR_ENV, str(tmp_path))
    app = AppTest.from_file(str(APP), default_timeout=90).run()
    assert not app.exception, [e.value for e in app.exception]
    assert app.title[0].value == "Ladder"
    assert "Ratings in pd" in [h.value for h in app.subheader]  # the game is named
    frames = [frame.value for frame in app.dataframe]
    ratings = [f for f in frames if "rating" in f.columns]
    # two groups that never met: every rating is marked (*) as one the data do not place
    # against the other group, and the reason is given under the table
    assert sorted(agent for f in ratings for agent in f["agent"]) == [
        "a1 *",
        "a2 *",
        "b1 *",
        "b2 *",
    ]
    said = [m.value for m in app.markdown]
    assert any("Ranked on **wins**" in text for text in said)  # the currency is named
    assert sum("compared only within its group" in text for text in said) == 4
    assert all(list(f["rank"]) == [1, 2] for f in ratings)  # one table per group
    for f in ratings:  # whole Elo points, the interval beside them, never 1749.9247
        assert str(f["rating"].dtype) == "Int64"
        assert all(re.fullmatch(r"\d+ to \d+", interval) for interval in f["95% CI"])
    openskill = [f for f in frames if "OpenSkill mu" in f.columns]
    assert all((f["OpenSkill mu"] == f["OpenSkill mu"].round(1)).all() for f in openskill)
    assert any("2 groups never compared" in w.value for w in app.warning)
    skipped = [f for f in frames if "note" in f.columns]
    assert list(skipped[0]["note"]) == ["aborted: the model never answered"]
    assert listing(tmp_path) == before  # read-only


def test_pdbench_ui_opens_a_ladders_folder(tmp_path):
    from in_process import run_front_door
    from project_copy import command_env, shared_copy

    write_ladder(ladder_table(counted(two_groups()), LadderOptions()), tmp_path)
    done = run_front_door(
        "cli",
        ["ui", str(tmp_path), "--print-command"],
        cwd=shared_copy(),
        env=command_env(tmp_path),
    )
    assert done.code == 0, done.stderr
    assert f"--run-dir {tmp_path}" in done.stdout
    empty = tmp_path / "empty"
    empty.mkdir()
    refused = run_front_door(
        "cli", ["ui", str(empty), "--print-command"], cwd=shared_copy(), env=command_env(tmp_path)
    )
    assert refused.code == 2 and "is not a pdbench run dir" in refused.stderr


def test_a_payoff_ladder_names_its_currency_and_shows_points(monkeypatch, tmp_path):
    """Ranked on payoff: the page says so, ratings are the game's points (two decimals, not
    whole Elo points) and OpenSkill, which rates wins, is not shown."""
    table = ladder_table(counted(two_groups()), LadderOptions(rank_on="payoff"))
    write_ladder(table, tmp_path)
    monkeypatch.setenv(RUN_DIR_ENV, str(tmp_path))
    app = AppTest.from_file(str(APP), default_timeout=90).run()
    assert not app.exception, [e.value for e in app.exception]
    assert any("Ranked on **payoff**" in m.value for m in app.markdown)
    frames = [frame.value for frame in app.dataframe]
    ratings = [f for f in frames if "rating" in f.columns]
    assert ratings and all(str(f["rating"].dtype) == "float64" for f in ratings)
    assert all(
        re.fullmatch(r"-?\d+\.\d\d to -?\d+\.\d\d|n/a to n/a", i)
        for f in ratings
        for i in f["95% CI"]
    )
    assert not any("OpenSkill mu" in f.columns for f in frames)
