"""The viewer's pure parts: frames and texts built from stored records, without Streamlit."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd

from pdbench.analysis.aggregate import SCALAR_METRICS
from pdbench.analysis.catalog import metric
from pdbench.storage.manifest import RunManifest
from pdbench.ui.display import ALL_METRICS, HEADLINE_METRICS, format_value
from pdbench.ui.frames import action_text, comparison_table, timeline_frame

ROOT = Path(__file__).resolve().parents[2]
NAMES = {"a": "A · TFT", "b": "B · ALLD"}


def rounds(actions_a: str, actions_b: str, **flags_of_round: dict) -> list[dict]:
    return [
        {
            "round_index": index,
            "agent_a_action": a,
            "agent_b_action": b,
            "agent_a_payoff": 0.0,
            "agent_b_payoff": 0.0,
            "agent_a_cum_payoff": 0.0,
            "agent_b_cum_payoff": 0.0,
            **flags_of_round.get(f"r{index}", {}),
        }
        for index, (a, b) in enumerate(zip(actions_a, actions_b, strict=True), start=1)
    ]


def test_the_pure_modules_import_no_streamlit_or_altair():
    code = (
        "import sys, pdbench.ui.frames, pdbench.ui.display, pdbench.ui.facts; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'streamlit', 'altair'}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_action_text_aligns_both_agents_and_marks_flagged_rounds():
    played = rounds("CD", "DD", r2={"agent_a_fallback": True})
    assert action_text(played, NAMES) == "A · TFT   C D\nB · ALLD  D D\nflagged     !"


def test_a_flagged_round_is_lettered_with_a_mark():
    frame = timeline_frame(rounds("C", "D", r1={"agent_b_invalid_outputs": 2}), NAMES)
    assert list(frame["label"]) == ["C", "D!"]
    assert list(frame["flags"]) == ["", "2 invalid outputs"]


def test_values_read_with_the_catalogues_decimals_and_null_text():
    assert format_value(metric("cooperation_rate_a"), 0.666) == "0.67"
    assert format_value(metric("total_payoff_b"), 41.25) == "41.2"
    assert format_value(metric("n_rounds"), 20.0) == "20"
    assert format_value(metric("time_to_collapse"), None) == "no collapse"
    assert format_value(metric("retaliation_rate_a"), float("nan")) == "n/a"


def test_the_full_metric_table_lists_every_scalar_metric_once_headline_first():
    columns = [m.column for m in ALL_METRICS]
    assert columns[: len(HEADLINE_METRICS)] == [m.column for m in HEADLINE_METRICS]
    assert len(columns) == len(set(columns)) == len(SCALAR_METRICS)


def test_the_comparison_table_headers_come_from_the_catalogue():
    stats = {"ci_low": 0.5, "ci_high": 0.7, "n": 2}
    row = {
        "condition": "c",
        "agent_a": "TFT",
        "agent_b": "ALLD",
        "game": "pd",
        "horizon_type": "fixed",
        "n_replicates": 2,
        "time_to_collapse_n": 1,
        **{m.column: 0.6 for m in ALL_METRICS},
        **{f"cooperation_rate_{s}": value for s, value in stats.items()},
    }
    table = comparison_table(pd.DataFrame([row]), RunManifest(run_id="r"), [])
    assert list(table.columns) == [
        "condition", "matchup", "game", "horizon", "replicates", "rounds", "cooperation",
        "coop 95% CI", "cooperation A", "cooperation B", "retaliation A", "retaliation B",
        "forgiveness A", "forgiveness B", "gap A", "gap B", "total A", "total B",
        "collapse round", "collapsed", "invalid outputs", "fallbacks", "timeouts", "errors",
        "subst share", "valid coop", "live calls", "cached calls", "cost $", "failed matches",
    ]  # fmt: skip
    assert table.loc[0, "coop 95% CI"] == "0.50–0.70"
    assert table.loc[0, "invalid outputs"] == 1.2  # per match, A + B
    assert table.loc[0, "collapsed"] == "1/2"


def test_moves_flipped_by_noise_are_marked():
    played = rounds("CDC", "DDC")
    played[0] |= {"agent_a_intended": "C", "agent_b_intended": "C"}  # b's move was flipped
    played[1] |= {"agent_a_intended": "C", "agent_b_intended": "C"}  # both were flipped
    played[2] |= {"agent_a_intended": "C", "agent_b_intended": "C"}
    frame = timeline_frame(played, NAMES)
    assert list(frame["label"]) == ["C", "D~", "D~", "D~", "C", "C"]
    assert list(frame["intended"]) == ["C"] * 6
    assert list(frame["flipped"]) == [False, True, True, True, False, False]
    assert action_text(played, NAMES) == "A · TFT   C D C\nB · ALLD  D D C\nflipped   b *"


def test_a_run_without_noise_marks_nothing():
    frame = timeline_frame(rounds("CD", "DD"), NAMES)
    assert not frame["flipped"].any()
    assert list(frame["intended"]) == ["C", "D", "D", "D"]
