"""examples/plugin/ is a package of its own (its own pyproject.toml) that adds an agent kind, a
metric and a game through entry points (issue 43): installed into a fresh environment, `pdbench
validate` and `pdbench run` use its kind from a config, its metric is a column of the run's
aggregates, and its game is listed, checked (`check-game`), validated, run, measured and rated
(`ladder`), with no line of pdbench changed and no import of it anywhere.

The environment: a new virtual environment (`uv venv`) into which the plugin is installed
offline (`uv pip install --offline --no-deps`, built with hatchling from uv's cache). pdbench and
its dependencies come from the project's environment, put on the new one's path by a .pth file:
`uv pip install --offline` cannot install pdbench's dependencies afresh, since uv's cache holds
their wheels but not the package index's answers a resolution needs offline (uv sync installs
them from uv.lock's URLs instead). So pdbench is the one `uv sync` installed (editable, its
entry points declared as the plugin's are), and the plugin is a real installed distribution."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from collections import Counter
from pathlib import Path

import orjson
import pandas as pd
import pytest

from pdbench.storage.reader import RunReader

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "examples" / "plugin"
CLI = "import sys; from pdbench.cli import main; sys.argv[0] = 'pdbench'; main()"
# The viewer headless (streamlit.testing) on a run: its tabs and what each shows, or its exception.
VIEW_CHECK = """
import os, sys
from streamlit.testing.v1 import AppTest
os.environ["PDBENCH_RUN_DIR"] = sys.argv[2]
at = AppTest.from_file(sys.argv[1], default_timeout=90).run()
if at.exception:
    sys.exit("exception: " + " | ".join(str(e.value) for e in at.exception))
print("tabs: " + ", ".join(t.label for t in at.tabs))
print("\\n".join(str(e.value) for e in (*at.subheader, *at.markdown, *at.caption, *at.info)))
print("\\n".join(str(m.label) for m in at.metric))
"""


def _uv() -> str:
    # The uv beside this interpreter's base (a pyenv shim outside a project picks no Python).
    beside = Path(sys.base_prefix) / "bin" / "uv"
    found = str(beside) if beside.is_file() else shutil.which("uv")
    if found is None:
        pytest.skip("uv is not installed")
    return found


@pytest.mark.slow  # builds and installs a package, and starts interpreters
def test_an_installed_plugin_adds_an_agent_kind_a_metric_and_a_game(tmp_path):
    uv = _uv()
    venv = tmp_path / "venv"
    env = {**os.environ, "UV_PYTHON_DOWNLOADS": "never", "UV_OFFLINE": "1"}
    env.pop("VIRTUAL_ENV", None)
    base_python = (
        Path(sys.base_prefix) / "bin" / f"python{sys.version_info[0]}.{sys.version_info[1]}"
    )
    subprocess.run(
        [uv, "venv", "-q", str(venv), "--python", str(base_python)],
        check=True, cwd=ROOT, env=env,
    )  # fmt: skip
    python = venv / "bin" / "python"
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True, capture_output=True, text=True,
        ).stdout.strip()
    )  # fmt: skip
    (site / "project_env.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    built = tmp_path / "plugin"  # a copy: building leaves nothing in the repository
    shutil.copytree(PLUGIN, built)
    subprocess.run(
        [uv, "pip", "install", "-q", "--offline", "--no-deps", "--python", str(python), str(built)],
        check=True, cwd=ROOT, env=env,
    )  # fmt: skip

    def pdbench(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(python), "-c", CLI, *args],
            capture_output=True, text=True, cwd=ROOT,
            env={**env, "PDBENCH_CACHE_DIR": str(tmp_path / "cache")},
        )  # fmt: skip

    experiment = str(PLUGIN / "experiment.yaml")
    output = f"run.output_dir={tmp_path / 'runs'}"
    validated = pdbench("validate", experiment, output)
    assert validated.returncode == 0, validated.stderr
    assert "ALTERNATE-C vs ALLD" in validated.stdout
    ran = pdbench("run", experiment, output)
    assert ran.returncode == 0, ran.stderr
    (run_dir,) = (tmp_path / "runs").glob("experiment-*")
    table = pd.read_parquet(run_dir / "aggregates.parquet")
    replicates = table[table["level"] == "replicate"].set_index("condition")
    # alternate C,D,C,D against ALLD, and D,C,D,C against TFT (C,D,C,D): two CD rounds of four
    assert replicates["sucker_rounds_rate"].to_dict() == {
        "alternate_vs_alld": 0.5,
        "alternate_vs_tft": 0.5,
    }

    # The game: listed, its contract checked, validated, run with its measures, rated.
    listed = pdbench("list", "games")
    assert listed.returncode == 0, listed.stderr
    assert "odds_and_evens" in listed.stdout
    checked = pdbench("check-game", "odds_and_evens")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    game_runs = f"run.output_dir={tmp_path / 'game_runs'}"
    game = str(PLUGIN / "odds_and_evens.yaml")
    validated = pdbench("validate", game, game_runs)
    assert validated.returncode == 0, validated.stderr
    ran = pdbench("run", game, game_runs)
    assert ran.returncode == 0, ran.stderr
    (game_dir,) = (tmp_path / "game_runs").glob("odds_and_evens-*")
    table = pd.read_parquet(game_dir / "aggregates.parquet")
    matches = table[table["level"] == "replicate"]
    assert len(matches) == 8 and matches["two_fingers_share_a"].between(0, 1).all()
    # the copycat shows one finger first, then what the random player showed the round before
    copycat_first = matches[matches["condition"] == "copycat_vs_random"]
    assert (copycat_first["two_fingers_share_a"] < 1).all()
    rated = pdbench("ladder", str(game_dir), "--out", str(tmp_path / "ladder"))
    assert rated.returncode == 0, rated.stderr
    assert "oe_random" in rated.stdout.casefold() and "oe_copycat" in rated.stdout.casefold()

    # The viewer: the game's own page (the entry's `view`), its transcript and its measures.
    viewed = subprocess.run(
        [str(python), "-c", VIEW_CHECK, str(ROOT / "pdbench" / "ui" / "app.py"), str(game_dir)],
        capture_output=True, text=True, cwd=ROOT, env=env,
    )  # fmt: skip
    assert viewed.returncode == 0, viewed.stdout + viewed.stderr
    assert "tabs: Transcript, Metrics, Run facts" in viewed.stdout
    assert "Odds and evens" in viewed.stdout and "Two fingers" in viewed.stdout

    # The Hydra door: the game and its house players are group choices with no file in conf/
    # (a sweep over a seat, an option of the game overridden), and a misspelt one is refused in
    # one line that names the installed options too.
    def hydra_door(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(python), "-m", "pdbench", *args],
            capture_output=True, text=True, cwd=ROOT,
            env={**env, "PDBENCH_CACHE_DIR": str(tmp_path / "cache")},
        )  # fmt: skip

    hydra_runs = tmp_path / "hydra_runs"
    swept = hydra_door(
        "-m", "game=odds_and_evens", "agent_a=oe_random", "agent_b=oe_copycat,oe_random",
        "game.options.rounds=3", "run.replicates=1", f"run.output_dir={hydra_runs}",
        "run.run_id=oe_sweep", f"hydra.sweep.dir={tmp_path / 'multirun'}",
    )  # fmt: skip
    assert swept.returncode == 0, swept.stderr
    rounds = [orjson.loads(line) for line in (hydra_runs / "oe_sweep" / "rounds.jsonl").open()]
    per_condition = Counter(record["condition"] for record in rounds)
    assert sorted(per_condition.values()) == [3, 3], per_condition
    # A 2x2 game from the plugin (a table and its rules, `matrix_entry`): listed, checked, and
    # played on the Hydra door against the classic strategies, scored by the plugin's table.
    assert "deadlock" in listed.stdout
    checked = pdbench("check-game", "deadlock")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    played = hydra_door(
        "game=deadlock", "agent_a=tft", "agent_b=alld", "horizon.rounds=3",
        "run.replicates=1", f"run.output_dir={hydra_runs}", "run.run_id=deadlock",
        f"hydra.run.dir={tmp_path / 'hydra_out'}",
    )  # fmt: skip
    assert played.returncode == 0, played.stderr
    reader = RunReader.open(hydra_runs / "deadlock")
    (match,) = reader.ledger()
    # TFT opens C against ALLD (the table's sucker payoff 0, temptation 3), then both defect (2)
    payoffs = [
        (record["agent_a_payoff"], record["agent_b_payoff"])
        for record in reader.match_rounds(match.condition, match.replicate)
    ]
    assert payoffs == [(0.0, 3.0), (2.0, 2.0), (2.0, 2.0)], rounds
    misspelt = hydra_door("game=odds_and_evens", "agent_a=oe_randon", "agent_b=oe_copycat")
    assert misspelt.returncode == 2
    assert misspelt.stderr.count("\n") == 1 and 'did you mean "oe_random"' in misspelt.stderr
    assert "installed games" in misspelt.stderr
