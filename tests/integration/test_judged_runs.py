"""Issue 30's roles and done-when, offline: the judged games (passcode, nuclear_war,
nil_recruitment) run through both front doors with their third party bound like an agent
(`keeper=...` / `judge=...`, house third parties or an LLM on the mock) or left to the game's
house default, which the manifest states; an LLM judge's calls go through the gateway (counted,
stored with the turn, replayed with 0 live calls); the aggregates hold the judged games' metrics;
a third role bound where the game has none is exit 2 naming the field."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pandas as pd
import pytest
from helpers import TEST_DEAL, only_run_dir
from project_copy import copy_project
from silently_wrong_helpers import console_in_process

from pdbench.runners.experiment import run_experiment
from pdbench.runners.prepare import load

ROOT = Path(__file__).resolve().parents[2]
EXPERIMENT = ROOT / "tests" / "fixtures" / "experiments" / "judged_games.yaml"
PRIMARY = ROOT / "conf" / "config.yaml"


def read_lines(run_dir: Path) -> list[dict]:
    return [orjson.loads(line) for line in (run_dir / "rounds.jsonl").read_bytes().splitlines()]


def run(tmp_path: Path, run_id: str, *overrides: str, config: Path = EXPERIMENT) -> Path:
    """Run `config` dealt with the fixed test key: the checks below read seeded outcomes (which
    player solves a word first depends on the words dealt)."""
    key = tmp_path / "test-deal.key"
    key.write_text(TEST_DEAL.secret.hex() + "\n")
    pinned = [f"run.output_dir={tmp_path / 'runs'}", f"run.deal_key_file={key}"]
    loaded = load(config, [*pinned, *overrides], run_id=run_id, project_root=ROOT)
    outcome = run_experiment(loaded)
    assert outcome.status == "complete", outcome.error
    return outcome.run_dir


def manifest_of(run_dir: Path) -> dict:
    return orjson.loads((run_dir / "run_manifest.json").read_bytes())


def without_clock(lines: list[dict]) -> list[dict]:
    kept = []
    for line in lines:
        line = {k: v for k, v in line.items() if k not in ("timestamp_utc", "run_id")}
        for decision in line.get("decisions", {}).values():
            for attempt in decision.get("attempts", []):
                attempt.pop("elapsed_s", None)
        kept.append(line)
    return kept


def test_the_judged_games_run_from_an_experiment_file_and_an_llm_judge_replays_free(tmp_path):
    run_dir = run(tmp_path, "live")
    manifest = manifest_of(run_dir)
    parties = {name: m["third_parties"] for name, m in manifest["matchups"].items()}
    assert parties == {
        "passcode_default_keeper": {"keeper": "TRUTHFUL (house default)"},
        "nuclear_war_default_judge": {"judge": "SCRIPTED_JUDGE (house default)"},
        "nil_first_listed_judge": {"judge": "SCRIPTED_JUDGE(rule=first_listed)"},
        "nuclear_war_llm_judge": {"judge": "MOCK_PRESIDENT"},
    }
    lines = read_lines(run_dir)
    # every call of the LLM judge is a stored attempt of its turn, and the run counts it
    llm_turns = [
        line for line in lines
        if line["condition"] == "nuclear_war_llm_judge" and "judge" in line["seats"]
    ]  # fmt: skip
    attempts = [a for line in llm_turns for a in line["decisions"]["judge"]["attempts"]]
    assert attempts and all(a["prompt"] and a["raw"] for a in attempts)
    assert manifest["provider_calls"]["live"] == len(attempts)
    verdicts = [line["actions"]["judge"] for line in llm_turns]
    assert sum(v["type"] == "decision" for v in verdicts) == 2  # one per match
    # the house judge's turns are played by its rule: nothing asked of a provider
    house = [
        line for line in lines
        if line["condition"] == "nuclear_war_default_judge" and "judge" in line["seats"]
    ]  # fmt: skip
    assert house and not any(line["decisions"]["judge"].get("attempts") for line in house)

    again = run(tmp_path, "replay", "run.cache.mode=replay")
    calls = manifest_of(again)["provider_calls"]
    assert calls["live"] == 0 and calls["cached"] == len(attempts)
    assert without_clock(read_lines(again)) == without_clock(lines)

    table = pd.read_parquet(run_dir / "aggregates.parquet")
    conditions = table[table["level"] == "condition"].set_index("condition")
    passcode = conditions.loc["passcode_default_keeper"]
    for stem in ("solved_rate", "rounds_to_solve", "questions_per_solve", "wrong_guesses"):
        assert f"{stem}_a" in conditions.columns, stem
    assert passcode["solved_rate_a_pooled"] == 1.0  # the halving player with a truthful Keeper
    debate = conditions.loc["nuclear_war_default_judge"]
    assert debate["win_rate_a_pooled"] + debate["win_rate_b_pooled"] == 1
    # first_listed with sides swapped: each player wins exactly the debates it argued the first
    # listed university, so both win half
    nil = conditions.loc["nil_first_listed_judge"]
    assert nil["win_rate_a_pooled"] == nil["win_rate_b_pooled"] == 0.5


def test_keeper_and_judge_are_hydra_groups_named_in_the_condition(tmp_path):
    run_dir = run(
        tmp_path, "hydra", "game=nuclear_war", "agent_a=debate_fixed",
        "agent_b=debate_priorities", "judge=first_speaker", "run.replicates=1", config=PRIMARY,
    )  # fmt: skip
    manifest = manifest_of(run_dir)
    (name,) = manifest["conditions"]
    assert "judge=first_speaker" in name
    assert manifest["matchups"][name]["third_parties"] == {
        "judge": "SCRIPTED_JUDGE(rule=first_speaker)"
    }
    decision = next(
        line["actions"]["judge"] for line in read_lines(run_dir)
        if line["actions"].get("judge", {}).get("type") == "decision"
    )  # fmt: skip
    first = next(line for line in read_lines(run_dir) if line["phase"] == "intro")
    (speaker,) = first["seats"]
    sides = next(line["revealed"] for line in read_lines(run_dir) if line.get("revealed"))
    assert decision["winner"] in str(sides) and speaker in ("a", "b")


@pytest.mark.parametrize(
    ("overrides", "field", "words"),
    [
        (["game=nuclear_war", "agent_a=debate_fixed", "agent_b=debate_fixed", "keeper=truthful"],
         "keeper", "nuclear_war has no keeper role (its third roles: judge)"),
        (["game=passcode", "agent_a=passcode_halving", "agent_b=passcode_lengths",
          "judge=priorities"], "judge", "passcode has no judge role (its third roles: keeper, keeper_audit)"),
        (["judge=priorities"], "judge", "the 2x2 game pd has no judge role (it has no third role)"),
        (["game=passcode", "agent_a=passcode_halving", "agent_b=passcode_lengths",
          "keeper=truthful", "keeper.policy=scripted_judge"], "keeper.policy",
         "scripted_judge is not a house keeper of passcode"),
        (["game=passcode", "agent_a=passcode_halving", "agent_b=passcode_lengths",
          "keeper=priorities"], "keeper", 'unknown keeper "priorities"; choose one of: llm, truthful'),
    ],
)  # fmt: skip
def test_a_third_role_bound_where_it_does_not_fit_is_exit_2_naming_the_field(
    overrides, field, words, monkeypatch, tmp_path
):
    done = console_in_process(
        "run", "conf/config.yaml", *overrides, f"run.output_dir={tmp_path}", monkeypatch=monkeypatch
    )
    assert done.returncode == 2, done
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in done.stderr
    assert field in lines[0] and words in lines[0], lines[0]


def test_the_issues_command_plays_passcode_through_hydra(tmp_path):
    project = copy_project(tmp_path / "project")
    env = {k: v for k, v in os.environ.items() if k not in ("PDBENCH_SWEEP_ID", "PDBENCH_RUN_DIR")}
    key = tmp_path / "test-deal.key"  # the solved rate below is a seeded outcome: a fixed deal
    key.write_text(TEST_DEAL.secret.hex() + "\n")
    done = subprocess.run(
        [sys.executable, "-m", "pdbench", "-m", "game=passcode", "agent_a=passcode_halving",
         "agent_b=passcode_lengths", "keeper=truthful", "run.replicates=3",
         f"run.output_dir={tmp_path / 'runs'}", f"hydra.sweep.dir={tmp_path / 'hydra'}",
         f"run.deal_key_file={key}"],
        cwd=project, env={**env, "COLUMNS": "200"}, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert "solved A/B" in done.stdout, done.stdout
    run_dir = only_run_dir(tmp_path / "runs")
    conditions = pd.read_parquet(run_dir / "aggregates.parquet").query("level == 'condition'")
    assert list(conditions["n_finished"]) == [3]
    assert conditions["solved_rate_a_pooled"].iloc[0] == 1.0


def test_analyze_reports_a_first_speaker_judge_100_percent_order_biased_from_stored_rounds(
    tmp_path, monkeypatch
):
    config = tmp_path / "bias.yaml"
    config.write_text(
        "run: {seed: 2, replicates: 5}\n"
        "game: {id: nuclear_war, options: {rounds: 2, swap_sides: true}}\n"
        "conditions:\n"
        "  - {name: first_speaker_judge, agent_a: debate_fixed, agent_b: debate_priorities,\n"
        "     judge: first_speaker}\n"
        "  - {name: fair_judge, agent_a: debate_fixed, agent_b: debate_priorities,\n"
        "     judge: priorities}\n"
    )
    run_dir = run(tmp_path, "bias", config=config)
    done = console_in_process("analyze", str(run_dir), monkeypatch=monkeypatch)
    assert done.returncode == 0, done
    biased, fair = done.stdout.split("fair_judge (judge ")
    assert biased.startswith("first_speaker_judge (judge SCRIPTED_JUDGE(rule=first_speaker)):")
    assert "20 verdicts" in biased
    assert "order: the first speaker wins 100.0 % (20/20; 95 % CI 83.9-100.0 %)" in biased
    assert "swap: 10 swapped pairs" in biased
    # the fair judge picks by priorities: the first speaker wins only when it argued better
    assert "order: the first speaker wins 100.0 %" not in fair


def test_a_panel_of_judges_decides_by_majority_stores_every_verdict_and_reports_kappa(
    tmp_path, monkeypatch
):
    config = tmp_path / "panel.yaml"
    config.write_text(
        "run: {seed: 2, replicates: 4}\n"
        "game: {id: nuclear_war, options: {rounds: 2, swap_sides: true}}\n"
        "conditions:\n"
        "  - {name: panel, agent_a: debate_fixed, agent_b: debate_priorities,\n"
        "     judge: [priorities, first_speaker, llm]}\n"
    )
    run_dir = run(tmp_path, "panel", config=config)
    lines = read_lines(run_dir)
    decisions = [
        line for line in lines if line["actions"].get("judge", {}).get("type") == "decision"
    ]
    assert len(decisions) == 16
    for line in decisions:
        action = line["actions"]["judge"]
        votes = [vote["winner"] for vote in action["panel"]]
        assert [v["judge"] for v in action["panel"]] == [
            "SCRIPTED_JUDGE(rule=priorities)", "SCRIPTED_JUDGE(rule=first_speaker)", "JUDGE"
        ]  # fmt: skip
        assert action["winner"] == max(set(votes), key=votes.count)  # the majority
        assert line["revealed"]["decision"]["winner_side"] == action["winner"]
        assert line["decisions"]["judge"]["attempts"]  # the LLM judge's call, stored
    # the LLM judge (mock) decides by priorities as the house judge does: they always agree
    assert all(
        line["actions"]["judge"]["panel"][0]["winner"]
        == line["actions"]["judge"]["panel"][2]["winner"]
        for line in decisions
    )
    done = console_in_process("analyze", str(run_dir), monkeypatch=monkeypatch)
    assert done.returncode == 0, done
    assert "16 items, 3 judges; Fleiss' kappa" in done.stdout
    assert "Cohen's kappa 0:SCRIPTED_JUDGE(rule=priorities) vs 2:JUDGE: 1.000" in done.stdout


def test_an_even_panel_is_refused_naming_judge(tmp_path, monkeypatch):
    config = tmp_path / "even.yaml"
    config.write_text(
        "game: {id: nuclear_war}\nconditions:\n"
        "  - {name: c, agent_a: debate_fixed, agent_b: debate_fixed, judge: [priorities, longer]}\n"
    )
    done = console_in_process(
        "run", str(config), f"run.output_dir={tmp_path}", monkeypatch=monkeypatch
    )
    assert done.returncode == 2, done
    assert "judge" in done.stderr and "odd number of at least 3" in done.stderr
    assert "Traceback" not in done.stderr
