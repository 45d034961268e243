"""Issue 29's done-when, offline: `python -m pdbench -m game=liars_dice agent_a=liars_bluffer
agent_b=liars_probability,liars_random run.replicates=20` runs and its aggregates hold the Liar's
Dice metrics (computed from the stored turns); a run with a platform-style arena agent file,
killed with SIGKILL twice, resumes to the same turns as an uninterrupted run; bad game options
and agents bound to a game they cannot play are exit 2 naming the field."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import orjson
import pandas as pd
import pytest
from helpers import TEST_DEAL, only_run_dir
from in_process import run_front_door
from killed_runs import KilledRun
from project_copy import copy_project
from silently_wrong_helpers import console_in_process

from pdbench.runners.experiment import run_experiment
from pdbench.runners.plan import plan_matches
from pdbench.runners.prepare import load

ROOT = Path(__file__).resolve().parents[2]
EXPERIMENT = ROOT / "tests" / "fixtures" / "experiments" / "liars_dice.yaml"
METRICS = ("win_rate", "dice_lost_per_challenge", "challenge_accuracy", "bluff_rate")


def read_lines(run_dir: Path) -> list[dict]:
    data = (run_dir / "rounds.jsonl").read_bytes()
    return [orjson.loads(line) for line in data.splitlines()]


def strip(lines: list[dict]) -> list[dict]:
    """What must be the same in two runs: everything but the clock, the run id and the arena
    agent's measured think time."""
    kept = []
    for line in lines:
        line = {k: v for k, v in line.items() if k not in ("timestamp_utc", "run_id")}
        for decision in line.get("decisions", {}).values():
            for attempt in decision.get("attempts", []):
                attempt.pop("elapsed_s", None)
        kept.append(line)
    return kept


def test_the_issues_liars_dice_grid_runs_and_aggregates_the_metrics(tmp_path):
    project = copy_project(tmp_path / "project")
    env = {k: v for k, v in os.environ.items() if k not in ("PDBENCH_SWEEP_ID", "PDBENCH_RUN_DIR")}
    done = subprocess.run(
        [sys.executable, "-m", "pdbench", "-m", "game=liars_dice", "agent_a=liars_bluffer",
         "agent_b=liars_probability,liars_random", "run.replicates=20",
         f"run.output_dir={tmp_path / 'runs'}", f"hydra.sweep.dir={tmp_path / 'hydra'}"],
        cwd=project, env={**env, "COLUMNS": "200"}, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert "win A/B" in done.stdout, done.stdout
    run_dir = only_run_dir(tmp_path / "runs")
    table = pd.read_parquet(run_dir / "aggregates.parquet")
    conditions = table[table["level"] == "condition"].set_index("condition")
    assert sorted(conditions.index) == ["agent_b=liars_probability", "agent_b=liars_random"]
    assert (conditions["n_finished"] == 20).all()
    for stem in METRICS:
        for seat in "ab":
            assert conditions[f"{stem}_{seat}"].notna().all(), (stem, seat)
    # one winner per match: the two win rates add up to 1
    assert ((conditions["win_rate_a"] + conditions["win_rate_b"]) == 1).all()
    assert conditions["calibration_b"].map(lambda text: len(orjson.loads(text)) == 5).all()
    replicates = table[table["level"] == "replicate"]
    assert len(replicates) == 40 and (replicates["match_status"] == "finished").all()
    # the metrics come from the stored turns: one line per turn, the last with the outcome
    lines = read_lines(run_dir)
    assert all(line["family"] == "turn" for line in lines)
    last = [line for line in lines if "outcome" in line]
    assert len(last) == 40 and all(line["outcome"]["winner"] in ("a", "b") for line in last)


@pytest.mark.slow
def test_a_killed_liars_dice_run_resumes_to_the_same_turns(tmp_path):
    out_dir = tmp_path / "runs"
    reference_loaded = load(
        EXPERIMENT, [f"run.output_dir={out_dir}"], run_id="ref", project_root=ROOT
    )
    planned = len(plan_matches(reference_loaded.spec, TEST_DEAL))
    reference: dict = {}
    worker = threading.Thread(target=lambda: reference.update(out=run_experiment(reference_loaded)))
    worker.start()
    logs = tmp_path / "logs"
    logs.mkdir()
    ledger = out_dir / "r" / "matches.jsonl"
    args = ["run", str(EXPERIMENT), f"run.output_dir={out_dir}", "--run-id", "r", "-q"]
    seen = 0
    for attempt in (1, 2):
        run = KilledRun(args, more_than=seen, log=logs / f"attempt_{attempt}.log")
        now = run.lines_when_killed(ledger)
        assert seen < now < planned, (attempt, seen, now, planned)
        seen = now
    # The reference ends first: the resume below runs in this process, in its own cwd and env.
    worker.join(timeout=120)
    assert reference["out"].status == "complete"
    final = run_front_door("cli", args, cwd=ROOT, env=os.environ)
    assert final.code == 0, final.stderr

    resumed, uninterrupted = read_lines(out_dir / "r"), read_lines(out_dir / "ref")
    assert strip(resumed) == strip(uninterrupted)
    manifest = orjson.loads((out_dir / "r" / "run_manifest.json").read_bytes())
    assert manifest["status"] == "complete" and manifest["matches"]["completed"] == planned
    # the arena agent played every one of its turns itself (no fallback)
    arena = [line for line in resumed if line["condition"] == "slow_arena_vs_probability"]
    assert arena and not any(
        d.get("fallback") for turn in arena for d in turn.get("decisions", {}).values()
    )
    table = pd.read_parquet(out_dir / "r" / "aggregates.parquet")
    reference_table = pd.read_parquet(out_dir / "ref" / "aggregates.parquet")
    pd.testing.assert_frame_equal(
        table.drop(columns="run_id"), reference_table.drop(columns="run_id")
    )


@pytest.mark.parametrize(
    ("overrides", "field", "words"),
    [
        (["game=liars_dice", "game.options.faces=1", "agent_a=liars_random",
          "agent_b=liars_random"], "game: options.faces", "faces must be at least 2"),
        (["game=liars_dice", "+game.options.dice=3", "agent_a=liars_random",
          "agent_b=liars_random"], "game: options.dice", 'unknown option "dice"; choose one of: dice_per_player'),
        (["game=liars_dice", "agent_a=tft", "agent_b=liars_random"], "agent_a.policy",
         "tft does not play liars_dice"),
        (["agent_a=liars_random"], "agent_a.policy", "liars_random plays liars_dice, not the 2x2 game pd"),
        (["game=liars_dice", "agent_a=llm_default", "agent_b=liars_random", "persona=wsls"],
         "agent_a.persona", 'no persona "wsls" for liars_dice in prompts/liars_dice/personas/; choose one of: cooperative, exploitative or none'),
        (["agent_a=arena", "agent_a.path=examples/agents/liars_dice.py"], "Agent.GAME",
         'GAME is "liars-dice" but this condition plays "prisoners-dilemma"'),
    ],
)  # fmt: skip
def test_a_bad_option_or_an_agent_that_cannot_play_the_game_is_exit_2_naming_the_field(
    overrides, field, words, monkeypatch, tmp_path
):
    done = console_in_process(
        "run", "conf/config.yaml", *overrides, f"run.output_dir={tmp_path}", monkeypatch=monkeypatch
    )
    assert done.returncode == 2, done
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in done.stderr
    assert field in lines[0] and words in lines[0], lines[0]


def test_tournament_refuses_a_turn_game_run_clearly_and_analyze_prints_its_measures(
    tmp_path, monkeypatch
):
    config = tmp_path / "liars.yaml"
    config.write_text(
        "run: {seed: 1, replicates: 2}\ngame: {id: liars_dice}\n"
        "conditions:\n  - {name: c, agent_a: liars_random, agent_b: liars_probability}\n"
    )
    loaded = load(config, [f"run.output_dir={tmp_path / 'runs'}"], run_id="r", project_root=ROOT)
    assert run_experiment(loaded).status == "complete"
    run_dir = tmp_path / "runs" / "r"
    done = console_in_process("tournament", str(run_dir), monkeypatch=monkeypatch)
    assert done.returncode == 2, done
    assert "holds the turns of the turn-based game liars_dice, not 2x2 rounds" in done.stderr
    assert "Traceback" not in done.stderr
    # analyze prints the game's measures per seat (not fingerprints of C/D rounds), writes nothing
    done = console_in_process("analyze", str(run_dir), monkeypatch=monkeypatch)
    assert done.returncode == 0, done
    assert "c:\n  2 of 2 matches finished; A · LIARS_RANDOM, B · LIARS_PROBABILITY\n" in done.stdout
    wins = pd.read_parquet(run_dir / "aggregates.parquet").query("level == 'replicate'")
    line = next(line.split() for line in done.stdout.splitlines() if "win_rate " in line)
    won = wins["win_rate_a"].tolist()
    assert line[:2] == ["win_rate", f"{sum(won) / 2:.2f}"], line  # the mean of the two matches
    assert not list(run_dir.glob("analysis*.parquet"))


def test_validate_says_a_turn_game_ends_by_its_rules_not_by_the_horizon(monkeypatch):
    done = console_in_process(
        "validate", "conf/config.yaml", "game=liars_dice", "agent_a=liars_random",
        "agent_b=liars_bluffer", monkeypatch=monkeypatch,
    )  # fmt: skip
    assert done.returncode == 0, done
    assert "| liars_dice | until the rules end it, at most 2000 turns" in done.stdout
    assert "matches       3  (at most 6000 turns)" in done.stdout


def test_validate_says_how_long_a_game_whose_rules_fix_its_length_lasts(monkeypatch):
    """A public goods match lasts its `rounds` (a turn per phase): validate says so, and bounds the
    LLM calls by the turns each seat takes, not by game.max_turns (2000)."""
    done = console_in_process(
        "validate", "conf/config.yaml", "game=public_goods", "agent_a=llm_default",
        "agent_b=pgg_free_rider", "agent_c=pgg_random", "agent_d=pgg_conditional_cooperator",
        "game.options.rounds=6", "game.options.talk=true", "game.options.punish=true",
        "game.options.punish_rounds=[4,6]", "agent_a.max_retries=1", monkeypatch=monkeypatch,
    )  # fmt: skip
    assert done.returncode == 0, done
    # a round: four talk turns (one speaker each), the contributions; rounds 4-6 a punish turn
    assert "| public_goods | 6 rounds by its rules (at most 33 turns)" in done.stdout
    assert "matches       3  (18 rounds, at most 99 turns)" in done.stdout
    # the LLM seat: per round a message and a contribution, 3 punishments; 2 calls a turn
    assert "LLM calls     at most 90 (every retry used)" in done.stdout


def test_validate_bounds_a_donor_match_of_generations_by_its_rounds_and_strategies(monkeypatch):
    """Every player donates once a round (one turn for all); each generation opens with a
    strategy turn: 3 generations x 2 games x 4 rounds = 24 rounds and 27 turns."""
    done = console_in_process(
        "validate", "conf/config.yaml", "game=donor_game", "population={llm_default:1,donor_share:3}",
        "game.options.amount=continuous", "game.options.norm=none", "game.options.endowment=10",
        "game.options.rounds=4", "game.options.generations=3",
        "game.options.games_per_generation=2", "run.replicates=2", monkeypatch=monkeypatch,
    )  # fmt: skip
    assert done.returncode == 0, done
    assert "| donor_game | 24 rounds by its rules (at most 27 turns)" in done.stdout
    assert "matches       2  (48 rounds, at most 54 turns)" in done.stdout
    # the LLM seat: 27 turns, 3 calls each (llm_default: max_retries 2), 2 matches
    assert "LLM calls     at most 162 (every retry used)" in done.stdout


def test_validate_bounds_a_contracting_match_by_its_phases(monkeypatch):
    """Contracting decided every round: design, vote, sign and play, all players at once."""
    done = console_in_process(
        "validate", "conf/config.yaml", "game=pd", "mechanism=contracting", "agent_a=llm_default",
        "agent_b=llm_default", "mechanism.rounds=3", "mechanism.decide=every_round",
        "run.replicates=1", monkeypatch=monkeypatch,
    )  # fmt: skip
    assert done.returncode == 0, done
    assert "3 rounds by its rules (at most 12 turns)" in done.stdout
    # two LLM seats: 12 turns each, 3 calls a turn (llm_default: max_retries 2)
    assert "LLM calls     at most 72 (every retry used)" in done.stdout


def test_the_run_reader_gives_a_turn_matchs_lines_in_turn_order(tmp_path):
    from pdbench.storage.reader import RunReader

    config = tmp_path / "liars.yaml"
    config.write_text(
        "run: {seed: 2, replicates: 2}\ngame: {id: liars_dice, options: {dice_per_player: 2}}\n"
        "conditions:\n  - {name: c, agent_a: liars_bluffer, agent_b: liars_random}\n"
    )
    loaded = load(config, [f"run.output_dir={tmp_path / 'runs'}"], run_id="r", project_root=ROOT)
    assert run_experiment(loaded).status == "complete"
    turns = RunReader.open(tmp_path / "runs" / "r").match_rounds("c", 1)
    assert [t["turn"] for t in turns] == list(range(1, len(turns) + 1))
    assert turns[-1]["outcome"]["winner"] in ("a", "b")
