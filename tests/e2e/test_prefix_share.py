"""Issue 33: the default LLM agent's prompts are laid out for prefix caching (rules, payoffs and
persona first, the growing history last), and `pdbench prompts RUN_DIR` reports the share of each
prompt's tokens the previous round's prompt of the same match began with."""

from __future__ import annotations

import re
from pathlib import Path

from helpers import only_run_dir
from in_process import run_front_door
from project_copy import command_env

from pdbench.analysis.per_run.prefix import match_shares, shared_prefix, summarise

ROOT = Path(__file__).resolve().parents[2]


def test_shared_prefix_counts_leading_tokens_only():
    assert shared_prefix([1, 2, 3, 4], [1, 2, 9, 4, 5]) == 2
    assert shared_prefix([], [1]) == 0
    assert shared_prefix([1, 2], [1, 2, 3]) == 2


def test_a_round_number_ahead_of_the_history_is_measured_as_such():
    def record(index: int, prompt: str) -> dict:
        return {"round_index": index, "agent_a_attempts": [{"system": "rules", "prompt": prompt}]}

    history = ""
    first_first, history_first = [], []
    for index in range(1, 6):
        first_first.append(record(index, f"Round {index}.\n{history}"))
        history_first.append(record(index, f"{history}\nRound {index}."))
        history += f"line {index} "
    words = str.split
    bad = summarise(match_shares("c", 0, first_first, words))[0]
    good = summarise(match_shares("c", 0, history_first, words))[0]
    assert bad.min_share < good.min_share and bad.mean_share < good.mean_share
    assert good.prompts == bad.prompts == 3  # rounds 3, 4, 5


def test_prompts_without_texts_are_not_compared():
    rounds = [{"round_index": i, "agent_a_attempts": [{"prompt_sha256": "x"}]} for i in (1, 2, 3)]
    assert match_shares("c", 0, rounds, str.split) == []


def test_a_default_llm_match_shares_at_least_0_9_of_each_prompt_from_round_3(tmp_path):
    env = command_env(tmp_path)
    ran = run_front_door(
        "cli",
        [
            "run",
            "conf/config.yaml",
            "agent_a=llm_default",
            "agent_b=tft",
            f"run.output_dir={tmp_path / 'runs'}",
            "run.replicates=1",
            "-q",
        ],
        cwd=ROOT,
        env=env,
    )
    assert ran.code == 0, ran.stderr
    run_dir = only_run_dir(tmp_path / "runs")
    report = run_front_door("cli", ["prompts", str(run_dir)], cwd=ROOT, env=env)
    assert report.code == 0, report.stderr
    row = next(line for line in report.stdout.splitlines() if "agent_a=llm_default" in line)
    prompts, mean, minimum = re.split(r"\s{2,}", row.strip())[2:5]
    assert int(prompts) == 18  # rounds 3..20 of the default fixed horizon
    assert float(minimum) >= 0.9, report.stdout
    assert float(mean) >= float(minimum)
    assert "below 0.9" not in report.stdout


def test_the_report_refuses_a_folder_that_is_no_run(tmp_path):
    ran = run_front_door("cli", ["prompts", str(tmp_path)], cwd=ROOT, env=command_env(tmp_path))
    assert ran.code == 2
    assert ran.stderr.strip().startswith("error:") and str(tmp_path) in ran.stderr
