"""The donor_vallinder_hughes2024 preset run offline on the mock, made small through the command
line's overrides (one replicate, 2 generations of 2 games of 2 rounds, the paper's 12 players):
every phase is stored (a strategy phase a generation, its texts the actions); each player's
resources, each game's reset, each generation's survivors and who wrote a strategy are
recomputed here from rounds.jsonl alone, independently of the game's code; and the same command
again replays every answer from the cache (0 live calls) and stores the same rounds. Run in this
process (tests/in_process.py) in the shared copy of the committed project."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest
from in_process import run_front_door
from project_copy import command_env, shared_copy
from sweeps import provider_calls, stored_rounds

SMALL = ["--replicates", "1", "game.options.rounds=2", "game.options.generations=2"]
GAMES, ROUNDS, PLAYERS, ENDOWMENT = 2, 2, 12, 10


def run(tmp: Path, name: str) -> Path:
    done = run_front_door(
        "cli",
        [
            "run",
            "conf/experiment/donor_vallinder_hughes2024.yaml",
            *SMALL,
            f"run.output_dir={tmp / name}",
        ],
        cwd=shared_copy(),
        env=command_env(tmp),
    )
    assert done.code == 0, done.stdout + done.stderr
    (run_dir,) = [d for d in (tmp / name).iterdir() if d.is_dir()]
    return run_dir


@pytest.fixture(scope="module")
def first(tmp_path_factory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("vh_preset")
    return tmp, run(tmp, "first")


def matches(run_dir: Path) -> dict[str, list[dict]]:
    found: dict[str, list[dict]] = defaultdict(list)
    for line in stored_rounds(run_dir):
        found[line["condition"]].append(line)
    return found


def test_every_phase_is_stored_and_resources_and_survivors_are_the_rules(first):
    _, run_dir = first
    stored = matches(run_dir)
    assert sorted(stored) == ["house_population", "llm_population"]
    for condition, lines in stored.items():
        phases = [line["phase"] for line in lines]
        assert phases.count("strategy") == 2 and phases.count("donate") == 2 * GAMES * ROUNDS
        resources = dict.fromkeys(lines[0]["seats"], float(ENDOWMENT))
        writers_expected = set(lines[0]["seats"])  # generation 1: everyone writes
        donations, previous = 0, {}
        for line in lines:
            if line["phase"] == "strategy":
                assert set(line["actions"]) == writers_expected, condition
                assert all(isinstance(a["text"], str) for a in line["actions"].values())
                continue
            shown = line["revealed"]
            # V&H's pairing: half the players donate, each to one of the other half, and the
            # half donating alternates (round 2 of a game: round 1's recipients donate)
            assert set(line["actions"]) == set(shown["recipients"]), condition
            assert len(shown["recipients"]) == PLAYERS // 2
            assert set(shown["recipients"]) | set(shown["recipients"].values()) == set(resources)
            if donations % ROUNDS:
                assert set(shown["recipients"]) == set(previous["recipients"].values())
            previous = shown
            given = {seat: float(a["amount"]) for seat, a in line["actions"].items()}
            assert all(0 <= given[s] <= resources[s] + 1e-9 for s in given), condition
            after = dict(resources)
            for donor, recipient in shown["recipients"].items():
                after[donor] -= given[donor]
                after[recipient] += 2 * given[donor]
            assert shown["resources"] == pytest.approx(after), (condition, line["round"])
            resources = after
            donations += 1
            if donations % ROUNDS:
                continue
            # a game ended: the next starts from the endowment; a generation's end selects
            if donations % (GAMES * ROUNDS) == 0 and donations < 2 * GAMES * ROUNDS:
                ranked = sorted(resources, key=lambda s: -resources[s])
                kept = shown["survivors"]
                assert len(kept) == PLAYERS // 2
                cut = resources[ranked[PLAYERS // 2 - 1]]
                assert all(resources[s] >= cut for s in kept)
                assert all(resources[s] <= cut for s in set(resources) - set(kept))
                writers_expected = set(resources) - set(kept)
            else:
                assert "survivors" not in shown
            resources = dict.fromkeys(resources, float(ENDOWMENT))
        scores = lines[-1]["outcome"]["scores"]
        assert scores == pytest.approx(lines[-1]["revealed"]["resources"])
        options = lines[-1]["outcome"]["options"]
        assert (options["generations"], options["games_per_generation"]) == (2, 2)
        assert options["amount"] == "continuous" and options["trace_links"] == 3
        assert options["pairing"] == "halves"


def test_the_same_command_replays_every_answer_from_the_cache(first):
    tmp, run_dir = first
    assert provider_calls(run_dir)["live"] > 0
    again = run(tmp, "again")
    assert provider_calls(again)["live"] == 0
    assert stored_rounds(again) == stored_rounds(run_dir)
