"""The vectorised path of the public goods game (`runners.turn_batch`, the game's `vectorised`)
must write the run folder the turn loop writes, byte for byte apart from timestamps: every house
player type, partners, strangers and perfect strangers, talk and punishment on and off (and on
some rounds only), earnings that may go negative, fixed and geometric horizons (a turn game's
match lasts its `rounds`: the horizon's draws are stored, not played), ten-seat groups whose
labels sort "P1", "P10", "P2", ...; and the variants it does not play (caps, balance accounting,
a message the rules refuse) fall back to the turn loop, with the same records."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import orjson
import pandas as pd
import pytest
from helpers import TEST_DEAL

from pdbench.games import registry
from pdbench.runners import play as play_module
from pdbench.runners.experiment import run_experiment
from pdbench.runners.plan import plan_matches
from pdbench.runners.prepare import load
from pdbench.runners.turn_batch import play_turn_batch, vectorised_players

PROJECT = Path(__file__).resolve().parents[2]
TYPES = (
    "pgg_full_contributor",
    "pgg_free_rider",
    "pgg_conditional_cooperator",
    "pgg_hump",
    "pgg_punisher",
    "pgg_antisocial_punisher",
    "pgg_random",
)
SEATS = "abcdefghij"


def _condition(name: str, policies: list[str], options: dict, horizon: str = "") -> str:
    seats = ", ".join(f"agent_{s}: {p}" for s, p in zip(SEATS, policies, strict=False))
    game = orjson.dumps({"id": "public_goods", "options": options}).decode()
    return f"  - {{name: {name}, game: {game}, {seats}{horizon}}}\n"


GEOMETRIC = ", horizon: {type: geometric, stop_prob: 0.3}"
CONDITIONS = (
    _condition("partners_plain", list(TYPES[:4]), {"rounds": 4}),
    _condition(
        "partners_everything",
        ["pgg_random", "pgg_punisher", "pgg_antisocial_punisher", "pgg_hump"],
        {"rounds": 4, "talk": True, "punish": True},
        GEOMETRIC,
    ),
    _condition(
        "strangers_negative",
        [*TYPES[2:], "pgg_full_contributor"],
        {
            "players": 3,
            "groups": 2,
            "rounds": 5,
            "matching": "strangers",
            "punish": True,
            "negative_earnings": True,
            "punish_fine": 4,
            "multiplier": 1.7,
            "talk": True,
            "talk_order": "shuffle",
        },
    ),
    _condition(
        "perfect_strangers_some_punishment",
        ["pgg_random", "pgg_punisher", "pgg_free_rider", "pgg_conditional_cooperator"] * 2,
        {
            "players": 2,
            "groups": 4,
            "rounds": 6,
            "matching": "perfect_strangers",
            "stranger_block": 3,
            "punish": True,
            "punish_rounds": [2, 4],
            "max_punish": 2,
            "round_limit_disclosed": False,
        },
    ),
    _condition(
        "ten_seats",
        [TYPES[k % len(TYPES)] for k in range(10)],
        {"players": 10, "rounds": 3, "punish": True, "talk": True},
        GEOMETRIC,
    ),
)
# Played by the turn loop, whatever the runner is told: caps, balance, a refused message.
LOOPED = (
    _condition(
        "caps",
        ["pgg_punisher", "pgg_free_rider", "pgg_random"],
        {"players": 3, "rounds": 3, "punish": True, "punish_cap_fraction": 0.5},
    ),
    _condition(
        "balance",
        ["pgg_hump", "pgg_random"],
        {"players": 2, "rounds": 3, "accounting": "balance"},
    ),
    _condition(
        "refused_talk",
        ["pgg_punisher", "pgg_free_rider"],
        {"players": 2, "rounds": 2, "talk": True, "talk_max_words": 5},
    ),
)


def _vectorised_conditions(monkeypatch: pytest.MonkeyPatch) -> set[str]:
    """The conditions the runner plays vectorised from now on (filled as it plays them)."""
    played: set[str] = set()

    def spy(matches, players, **kwargs):
        finished = play_turn_batch(matches, players, **kwargs)
        if finished is not None:
            played.add(matches[0].condition.name)
        return finished

    monkeypatch.setattr(play_module, "play_turn_batch", spy)
    return played


def _run(tmp_path: Path, folder: str, conditions: tuple[str, ...]) -> Path:
    experiment = tmp_path / f"{folder}.yaml"
    experiment.write_text(
        f"run: {{seed: 4, replicates: 3, output_dir: {tmp_path / folder}}}\n"
        "conditions:\n" + "".join(conditions)
    )
    return run_experiment(load(experiment, run_id="r", project_root=PROJECT)).run_dir


def _turn_loop_only(monkeypatch: pytest.MonkeyPatch) -> None:
    entry = registry.TURN_GAMES["public_goods"]
    monkeypatch.setitem(
        registry.TURN_GAMES, "public_goods", dataclasses.replace(entry, vectorised="")
    )


def _same_folders(fast: Path, loop: Path) -> None:
    stamp = re.compile(rb'"(timestamp_utc|finished_utc)":"[^"]*"')
    for name in ("rounds.jsonl", "matches.jsonl"):
        ours, theirs = (stamp.sub(b"", (d / name).read_bytes()) for d in (fast, loop))
        assert ours.splitlines() == theirs.splitlines(), name
    pd.testing.assert_frame_equal(
        pd.read_parquet(fast / "aggregates.parquet"), pd.read_parquet(loop / "aggregates.parquet")
    )
    manifests = [orjson.loads((d / "run_manifest.json").read_bytes()) for d in (fast, loop)]
    assert manifests[0]["status"] == manifests[1]["status"] == "complete"
    assert manifests[0]["matchups"] == manifests[1]["matchups"]


def test_the_vectorised_path_writes_the_turn_loops_folder(tmp_path, monkeypatch):
    vectorised = _vectorised_conditions(monkeypatch)
    fast = _run(tmp_path, "fast", CONDITIONS)
    assert len(vectorised) == len(CONDITIONS)  # every one of them took the fast path
    _turn_loop_only(monkeypatch)
    loop = _run(tmp_path, "loop", CONDITIONS)
    _same_folders(fast, loop)
    lines = [orjson.loads(line) for line in (fast / "rounds.jsonl").read_bytes().splitlines()]
    assert {line["phase"] for line in lines} == {"talk", "contribute", "punish"}
    assert any(line["revealed"] and line["revealed"].get("punished") for line in lines)


def test_variants_it_does_not_play_take_the_turn_loop_with_the_same_records(tmp_path, monkeypatch):
    vectorised = _vectorised_conditions(monkeypatch)
    fast = _run(tmp_path, "fast", LOOPED)
    assert not vectorised
    _turn_loop_only(monkeypatch)
    loop = _run(tmp_path, "loop", LOOPED)
    _same_folders(fast, loop)
    lines = [orjson.loads(line) for line in (fast / "rounds.jsonl").read_bytes().splitlines()]
    refused = [line for line in lines if line["condition"] == "refused_talk"]
    assert any(line.get("decisions") for line in refused)  # the rules' fallback, marked


def test_a_seat_without_a_vectorised_act_makes_the_condition_take_the_turn_loop(tmp_path):
    experiment = tmp_path / "e.yaml"
    experiment.write_text(
        f"run: {{seed: 4, replicates: 1, output_dir: {tmp_path}}}\n"
        "conditions:\n"
        + _condition("house", ["pgg_hump", "pgg_random"], {"players": 2, "rounds": 2})
        + "  - {name: arena, game: {id: public_goods, options: {players: 2, rounds: 2}}, "
        "agent_a: pgg_hump, agent_b: {type: arena, path: examples/agents/public_goods.py}}\n"
    )
    loaded = load(experiment, run_id="r", project_root=PROJECT)
    plan = plan_matches(loaded.spec, TEST_DEAL)
    by_condition = {planned.condition.name: planned for planned in plan}
    assert set(vectorised_players(by_condition["house"]) or {}) == {"a", "b"}
    assert vectorised_players(by_condition["arena"]) is None
