"""The donor_vallinder_hughes2024 presets (with and without costly punishment): each experiment
file plays exactly its preset's options (published.py holds where each comes from), every option
has a source, and the population, the generations, the games and the survivors are the paper's."""

from __future__ import annotations

from pathlib import Path

import pytest

from pdbench.games.donor_game.published import PRESETS, VALLINDER_HUGHES_2024, VH_POPULATION
from pdbench.runners.prepare import load

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_the_experiment_file_plays_the_presets_options_with_a_source_for_each(name):
    preset = PRESETS[name]
    loaded = load(ROOT / "conf" / "experiment" / f"{preset.name}.yaml", project_root=ROOT)
    assert len(loaded.spec.conditions) == (2 if preset is VALLINDER_HUGHES_2024 else 1)
    for condition in loaded.spec.conditions:
        assert condition.game.build_turn() == preset.rules()
        assert len(condition.players) == preset.options["players"]
    assert set(preset.sources) == set(preset.options)
    rules = preset.rules()
    assert (rules.benefit / rules.cost, rules.endowment, rules.rounds) == (2, 10, 12)
    assert (rules.generations, rules.games_per_generation, rules.kept) == (10, 2, 6)
    assert rules.continuous and rules.trace_links == 3
    assert rules.punishment == ("punishment" in name) and rules.punishment_factor == 2
    # V&H's pairing: half the players donate a round, 6 times a game (ipynb lines 302-337, 679)
    assert rules.pairing == "halves"
    assert rules.fixed_length().turns_per_seat == 10 * 2 * 6 + 10  # and a strategy a generation
    assert not any("everyone donates" in line for line in preset.not_matched)


def test_the_population_is_the_papers():
    assert VH_POPULATION == 12
    assert VALLINDER_HUGHES_2024.options["players"] == VH_POPULATION
    assert not any("10 players" in line for line in VALLINDER_HUGHES_2024.not_matched)
