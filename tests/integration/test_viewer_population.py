"""The viewer on a run of 28 seats filled by a population (conf/experiment/
pgg_fehr_gaechter2002.yaml, seats a .. z, za, zb): the Metrics tab shows every seat, none past
"z" dropped, and the game's page draws a line per seat."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pandas as pd
import pyarrow as pa
import pytest
from streamlit.testing.v1 import AppTest
from streamlit_scan import components_scanned_once  # noqa: F401 (a fixture)

from pdbench.core.seats import player_seats
from pdbench.ui.loaders import RUN_DIR_ENV
from tests.in_process import run_front_door

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "pdbench" / "ui" / "app.py"
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("components_scanned_once")]
SEATS = player_seats(28)


def test_the_metrics_tab_and_the_page_show_all_28_seats(tmp_path, monkeypatch):
    env = {**os.environ, "PDBENCH_CACHE_DIR": str(tmp_path / "cache")}
    experiment = ROOT / "conf" / "experiment" / "pgg_fehr_gaechter2002.yaml"
    args = ["run", str(experiment), "run.replicates=2", "run.run_id=fg"]
    done = run_front_door("cli", [*args, f"run.output_dir={tmp_path}"], cwd=ROOT, env=env)
    assert done.code == 0, done.stderr
    monkeypatch.setenv(RUN_DIR_ENV, str(tmp_path / "fg"))
    at = AppTest.from_file(str(APP), default_timeout=120).run()
    assert not at.exception, [e.value for e in at.exception]
    assert [t.label for t in at.tabs] == ["Transcript", "Metrics", "Run facts"]
    measures = next(df.value for df in at.dataframe if "matches" in df.value.columns)
    assert list(measures["player"]) == [seat.upper() for seat in SEATS] * 2  # two conditions
    cards = [m.label for m in at.metric]
    assert cards.count(cards[0]) == len(SEATS)  # the first measure: a card per seat
    contributed = chart_data(at, "line")  # the page: a line per seat, every period
    assert sorted(set(contributed["seat"])) == sorted(SEATS) and len(contributed) == 28 * 12


def chart_data(at: AppTest, mark: str) -> pd.DataFrame:
    """The data of the one chart whose (first layer's) mark is `mark`, as the page sent it."""
    found = []
    for element in at.get("vega_lite_chart"):
        spec = orjson.loads(element.proto.spec)
        marks = [spec.get("mark")] + [layer.get("mark") for layer in spec.get("layer", [])]
        if any((m or {}).get("type") == mark for m in marks):
            found.append(element)
    assert len(found) == 1, mark
    return pa.ipc.open_stream(found[0].proto.datasets[0].data.data).read_pandas()
