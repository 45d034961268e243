"""The viewer's pure parts: frames and texts built from stored records, without Streamlit."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd

from pdbench.analysis.metrics.catalog import metric, scalar_columns
from pdbench.storage.ledger import LedgerEntry
from pdbench.storage.manifest import MatchSeeds, RunManifest
from pdbench.ui.condition_frames import comparison_table
from pdbench.ui.display import HEADLINE_METRICS, all_metrics, format_value
from pdbench.ui.fact_table import facts_html
from pdbench.ui.facts import run_command, run_facts
from pdbench.ui.frames import action_text, seeds_frame, timeline_frame

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
        "import sys, pdbench.ui.frames, pdbench.ui.display, pdbench.ui.facts, "
        "pdbench.ui.fact_table, pdbench.ui.turn_metric_frames; "
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
    columns = [m.column for m in all_metrics()]
    assert columns[: len(HEADLINE_METRICS)] == [m.column for m in HEADLINE_METRICS]
    assert len(columns) == len(set(columns)) == len(scalar_columns())


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
        **{m.column: 0.6 for m in all_metrics()},
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


def test_an_undefined_collapse_round_is_empty_never_the_text_none():
    """Issue 26: a condition that never collapsed showed a literal `None` in the table."""
    row = {
        "condition": "c",
        "agent_a": "TFT",
        "agent_b": "TFT",
        "game": "pd",
        "horizon_type": "fixed",
        "n_replicates": 2,
        "time_to_collapse_n": 0,
        **{m.column: 0.6 for m in all_metrics()},
        "time_to_collapse": None,
    }
    table = comparison_table(pd.DataFrame([row]), RunManifest(run_id="r"), [])
    for header in ("collapse round", "live calls", "cached calls", "cost $"):
        assert table[header].dtype == "float64", header
        assert pd.isna(table.loc[0, header])
    assert not any(value is None for value in table.to_numpy().ravel())
    # As shown: the catalogue's words, never "None" or "nan".
    from pdbench.ui.condition_frames import comparison_text

    shown = comparison_text(table)
    assert shown.loc[0, "collapse round"] == "no collapse"
    assert shown.loc[0, "cost $"] == "–" and shown.loc[0, "live calls"] == "–"
    assert shown.loc[0, "total A"] == "0.6"  # a payoff with one decimal
    texts = [str(v) for v in shown.drop(columns=["cooperation"]).to_numpy().ravel()]
    assert not any(t in ("None", "nan", "<NA>") for t in texts), texts


def test_split_or_steal_moves_are_shown_in_the_games_words_and_stored_as_c_d():
    from pdbench.ui.facts import action_words
    from pdbench.ui.frames import action_text, timeline_frame

    words = action_words({"game": {"id": "split_or_steal", "labels": None}})
    assert words == {"C": "split", "D": "steal"}
    assert action_words({"game": {"id": "pd", "labels": "JF"}}) == {"C": "J", "D": "F"}
    assert action_words({"game": {"id": "pd", "labels": ["up", "down"]}}) == {
        "C": "up",
        "D": "down",
    }
    assert action_words({"game": {"id": "pd"}}) == {"C": "C", "D": "D"}
    assert action_words(None) == {"C": "C", "D": "D"}
    rounds = [
        {"round_index": 1, "agent_a_action": "C", "agent_b_action": "D"},
        {"round_index": 2, "agent_a_action": "D", "agent_b_action": "D"},
    ]
    names = {"a": "A · x", "b": "B · y"}
    frame = timeline_frame(rounds, names, words)
    assert list(frame["action"]) == ["C", "D", "D", "D"]  # colours keep the stored letters
    assert list(frame["label"]) == ["split", "steal", "steal", "steal"]
    assert list(frame["played"]) == ["split", "steal", "steal", "steal"]
    assert action_text(rounds, names, words=words).splitlines() == [
        "A · x  split steal",
        "B · y  steal steal",
    ]
    assert action_text(rounds, names).splitlines() == ["A · x  C D", "B · y  D D"]


def test_the_ranking_is_headed_by_the_catalogues_labels():
    from pdbench.analysis.metrics.catalog import RANKING_COLUMNS
    from pdbench.ui.analysis_frames import ranking_frame

    tournament = pd.DataFrame(
        [
            {"table": "ranking", "rank": 1, "player": "tft", **{c: 2.5 for c in RANKING_COLUMNS}},
        ]
    )
    frame = ranking_frame(tournament)
    assert list(frame.columns) == [
        "rank",
        "player",
        *(label for label, _ in RANKING_COLUMNS.values()),
    ]
    assert not any("_" in column for column in frame.columns)
    assert "Median score" in frame.columns


def test_a_shard_folder_knows_its_sweep(tmp_path):
    from pdbench.storage.shards import sweep_of

    shard = tmp_path / "sweep" / "shards" / "job-1"
    shard.mkdir(parents=True)
    (shard / "run_manifest.json").write_text("{}")
    assert sweep_of(shard) == (tmp_path / "sweep").resolve()
    assert sweep_of(tmp_path / "sweep") is None


def test_the_comparison_caption_names_the_interval_each_row_used():
    """Issue 34: the comparison interval is Student t (paired) or Welch t, not a bootstrap; the
    caption says which, and an analysis written before says it was a bootstrap."""
    import pandas as pd

    from pdbench.ui.analysis_frames import comparison_caption, comparison_frame

    analysis = pd.DataFrame(
        [
            {
                "table": "comparison",
                "condition_a": "x",
                "condition_b": "y",
                "family": "all pairs",
                "interval": "t on paired differences",
                "note": "zero variance: the two conditions play identically",
            },
            {"table": "replicates_needed", "metric": "cooperation_rate", "half_width": 0.05},
        ]
    )
    caption = comparison_caption(analysis)
    assert "t on paired differences" in caption and "bootstrap" not in caption
    assert "zero variance" in comparison_frame(analysis)["note"].iloc[0]
    older = analysis.drop(columns=["interval", "note"])
    assert "percentile bootstrap (an older analysis)" in comparison_caption(older)


def test_the_command_is_the_stored_one_or_rebuilt_from_the_overrides_and_says_so():
    stored = RunManifest(run_id="r", pdbench_command="pdbench run conf/experiment.yaml")
    assert run_command(stored) == ("pdbench run conf/experiment.yaml", None)
    hydra = RunManifest(run_id="r", hydra_overrides=["game=passcode", "agent_a=x y"])
    command, note = run_command(hydra)
    assert command == "python -m pdbench game=passcode 'agent_a=x y'" and "rebuilt" in note
    assert run_command(RunManifest(run_id="r")) == (
        None,
        "the manifest stores no command and no overrides",
    )


def test_the_facts_table_wraps_and_escapes_every_value():
    shown = facts_html({"config hash": "a" * 64, "command": "<b>x</b>", "none": None})
    assert "overflow-wrap:anywhere" in shown and "a" * 64 in shown
    assert "&lt;b&gt;x&lt;/b&gt;" in shown and "<b>" not in shown


def test_a_turn_games_seeds_are_the_turns_played_and_its_game_seed():
    manifest = RunManifest(
        run_id="r",
        seeds=[
            MatchSeeds(condition="c", replicate=0, n_rounds=2000, horizon=1, agent_a=2, agent_b=3)
        ],
    )
    ledger = [LedgerEntry("c", 0, 13, 2000, {"agent_a": 2, "agent_b": 3, "game": 4}, None)]
    seeds = seeds_frame(manifest, ledger, "c", turn_game=True)
    assert list(seeds["played"]) == ["13 turns"] * 3 and list(seeds["seed of"]) == [
        "agent A",
        "agent B",
        "game",
    ]
    assert list(seeds["seed"]) == ["2", "3", "4"]
    assert "collapse k / threshold" not in run_facts(manifest, turn_game=True)
    two_by_two = seeds_frame(manifest, [], "c")
    assert list(two_by_two["seed of"]) == ["horizon", "agent A", "agent B"]
    assert set(two_by_two["played"]) == {"not finished"}
