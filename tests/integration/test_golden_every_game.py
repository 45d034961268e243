"""Issue 43: every game keeps its rounds, byte for byte, through the move to one game contract
and one runner. tests/golden/every_game/ holds one run per family (a condition per game, the mock
as an LLM player beside house players, Keepers and judges), its rounds and its matches ledger
as stored (keys sorted, write times left out); scripts/regenerate_golden.py writes them, only
when a change to a record is meant."""

from __future__ import annotations

import pytest
import yaml
from docs_script import golden_script

from pdbench.games.registry import GAME_FAMILIES

REGENERATOR = golden_script()
EXPERIMENTS = REGENERATOR.every_game_experiments()


def test_every_registered_game_has_a_golden_condition():
    played = {
        condition["game"]["id"]
        for experiment in EXPERIMENTS
        for condition in yaml.safe_load(experiment.read_text())["conditions"]
    }
    assert played == set(GAME_FAMILIES)


@pytest.mark.parametrize("experiment", EXPERIMENTS, ids=[e.stem for e in EXPERIMENTS])
def test_the_golden_run_of_every_game_is_unchanged(tmp_path, experiment):
    for name, content in REGENERATOR.every_game_records(experiment, tmp_path).items():
        expected = (REGENERATOR.EVERY_GAME / name).read_bytes().splitlines()
        actual = content.splitlines()
        for number, (got, want) in enumerate(zip(actual, expected, strict=False), start=1):
            assert got == want, f"{name} line {number} differs:\n got  {got!r}\n want {want!r}"
        assert len(actual) == len(expected), (name, len(actual), len(expected))
