"""Issue 42: counting revealed dice across conditions that share common random numbers counted
each roll once per condition (a spurious chi-square p < 0.001 on fair dice). The audit's tally
counts each (dice seed, round) roll once."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from pdbench.analysis.metrics.turn_aggregates import read_turns
from pdbench.games.liars_dice.audit import face_tally
from pdbench.games.liars_dice.rules import roll
from pdbench.runners.experiment import run_experiment
from pdbench.runners.prepare import load

ROOT = Path(__file__).resolve().parents[2]


def _match(seed: int, rounds: int) -> list[dict]:
    """A match's turn lines as stored: one showdown per round (dice from the rules' own roll),
    the outcome with the dice seed on the last line."""
    lines = []
    for number in range(1, rounds + 1):
        a, b = roll(seed, number, (5, 5), 6)
        lines.append({"revealed": {"showdown": {"round": number, "dice": {"a": a, "b": b}}}})
    lines[-1]["outcome"] = {"seed": seed, "options": {"faces": 6}}
    return lines


def _every_showdown(matches: list[list[dict]]) -> Counter:
    """The pooled count the issue describes: every showdown of every condition."""
    return Counter(
        face
        for turns in matches
        for turn in turns
        for hand in turn["revealed"]["showdown"]["dice"].values()
        for face in hand
    )


def test_a_roll_shared_by_conditions_is_counted_once():
    # Three conditions, replicate r of each rolling from the same seed (common random numbers).
    one_condition = [_match(seed, rounds=3) for seed in range(200)]
    pooled = one_condition * 3
    tally = face_tally(pooled)
    alone = face_tally(one_condition)
    assert tally.counts == alone.counts and tally.rolls == 600
    assert tally.repeats == 2 * 600 and tally.unidentified == 0
    # Counting every showdown triples every count, and with it the chi-square statistic: the
    # same evidence weighed three times.
    naive = _every_showdown(pooled)
    assert [naive[f] for f in range(1, 7)] == [3 * c for c in tally.counts]
    expected = 3 * tally.dice / 6
    naive_statistic = sum((naive[f] - expected) ** 2 / expected for f in range(1, 7))
    assert naive_statistic == pytest.approx(3 * tally.statistic)
    assert tally.p_value > 0.01  # fair dice, each roll once


def test_a_stored_run_shares_its_rolls_across_conditions_and_the_tally_counts_them_once(tmp_path):
    config = tmp_path / "liars.yaml"
    config.write_text(
        "run: {seed: 3, replicates: 4}\ngame: {id: liars_dice, options: {dice_per_player: 2}}\n"
        "conditions:\n"
        "  - {name: random, agent_a: liars_random, agent_b: liars_probability}\n"
        "  - {name: bluffer, agent_a: liars_bluffer, agent_b: liars_probability}\n"
        "  - {name: random_again, agent_a: liars_random, agent_b: liars_probability}\n"
    )
    loaded = load(config, [f"run.output_dir={tmp_path / 'runs'}"], run_id="r", project_root=ROOT)
    assert run_experiment(loaded).status == "complete"
    matches = read_turns(tmp_path / "runs" / "r" / "rounds.jsonl")
    seeds = {key: turns[-1]["outcome"]["seed"] for key, turns in matches.items()}
    for replicate in range(4):  # the premise: one dice seed per replicate, in every condition
        assert len({seeds[(c, replicate)] for c in ("random", "bluffer", "random_again")}) == 1
    showdowns = [
        (seeds[key], turn["revealed"]["showdown"]["round"])
        for key, turns in matches.items()
        for turn in turns
        if (turn.get("revealed") or {}).get("showdown")
    ]
    tally = face_tally(matches.values())
    assert tally.rolls == len(set(showdowns)) < len(showdowns)
    assert tally.repeats == len(showdowns) - len(set(showdowns))
