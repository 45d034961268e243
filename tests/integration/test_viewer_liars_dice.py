"""The viewer opens a Liar's Dice run (one rounds.jsonl line per turn) on its transcript: each
round's moves with the bids' probabilities, the showdowns; no 2x2 tab tries to read C/D rounds."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from project_copy import copy_project
from streamlit.testing.v1 import AppTest

from pdbench.ui.loaders import RUN_DIR_ENV

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "pdbench" / "ui" / "app.py"


def test_a_liars_dice_run_opens_on_its_transcript(tmp_path, monkeypatch):
    project = copy_project(tmp_path / "project")
    env = {k: v for k, v in os.environ.items() if k not in ("PDBENCH_SWEEP_ID", "PDBENCH_RUN_DIR")}
    done = subprocess.run(
        [sys.executable, "-m", "pdbench", "game=liars_dice", "game.options.dice_per_player=2",
         "agent_a=liars_bluffer", "agent_b=liars_probability", "run.replicates=2",
         f"run.output_dir={tmp_path / 'runs'}", f"hydra.run.dir={tmp_path / 'hydra'}"],
        cwd=project, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    (run_dir,) = (tmp_path / "runs").iterdir()
    monkeypatch.setenv(RUN_DIR_ENV, str(run_dir))
    app = AppTest.from_file(str(APP), default_timeout=90)
    app.run()
    assert not app.exception, [e.value for e in app.exception]
    assert [t.label for t in app.tabs] == ["Transcript", "Metrics", "Run facts"]
    rounds = [m.value for m in app.markdown if m.value.startswith("##### Round")]
    showdowns = [m.value for m in app.markdown if m.value.startswith("Showdown")]
    # 2 dice each: the match ends after 2 to 3 showdowns, each closing a round
    assert rounds[0] == "##### Round 1" and 2 <= len(showdowns) == len(rounds) <= 3
    assert all("lost a die" in s for s in showdowns)
    first = app.dataframe[0].value
    assert list(first.columns) == ["turn", "player", "move", "P(bid)"]
    assert first["player"].iloc[0] == "A · LIARS_BLUFFER"
