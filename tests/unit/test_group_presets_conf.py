"""The published public goods designs are conf/experiment/ files that load, with exactly the
preset's options (published.py holds where each comes from), so the file and the preset cannot
drift apart. pgg_fehr_gaechter2002 (28 seats, a population, two variants) is checked in
tests/integration/test_fehr_gaechter_experiment.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from pdbench.config.game_spec import GameSpec
from pdbench.games.public_goods.published import COOPEVAL_PRESET, PGG_BENCH_PRESET
from pdbench.runners.prepare import load

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("preset", [PGG_BENCH_PRESET, COOPEVAL_PRESET], ids=lambda p: p.name)
def test_a_presets_experiment_file_plays_its_options(preset):
    loaded = load(ROOT / "conf" / "experiment" / f"{preset.name}.yaml", project_root=ROOT)
    (variant,) = preset.variants.values()
    for condition in loaded.spec.conditions:
        assert condition.game.build_turn() == preset.rules(next(iter(preset.variants)))
        assert len(condition.players) == preset.options["players"]
    assert variant == {}


def test_an_optional_option_may_be_unset_and_a_pair_given_as_a_list():
    """A YAML null for an option the rules declare optional is kept, and a list is the tuple
    the rules take (punish_rounds: [1, 6]); a wrong type is still refused by the rules."""
    rules = GameSpec(
        id="public_goods",
        options={
            "talk_max_chars": None,
            "talk_max_words": 50,
            "punish": True,
            "punish_rounds": [1, 6],
        },
    ).build_turn()
    assert (rules.talk_max_chars, rules.talk_max_words, rules.punish_rounds) == (None, 50, (1, 6))
    with pytest.raises(ValueError, match=r"options\.talk_max_words: talk_max_words must be"):
        GameSpec(id="public_goods", options={"talk_max_words": "many"})
    with pytest.raises(ValueError, match=r"options\.faces: must be int"):
        GameSpec(id="liars_dice", options={"faces": None})
