"""The published public goods designs: each preset builds, plays with house players and pays
what the recomputation finds; its values are the ones cited (pgg_bench's log settings,
CoopEval's config) and the ones docs/public-goods.md shows."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from pdbench.games.public_goods.policies import PUBLIC_GOODS_POLICIES
from pdbench.games.public_goods.published import PRESETS
from pdbench.games.public_goods.recompute import payoff_mismatches
from tests.public_goods_loop import mixed, play, stored_options

DOC = Path(__file__).resolve().parents[2] / "docs" / "public-goods.md"


def doc_section(name: str) -> str:
    text = DOC.read_text(encoding="utf-8")
    start = text.index(f"\n### {name}\n")
    end = min(i for i in (text.find("\n### ", start + 1), text.find("\n## ", start + 1)) if i > 0)
    return text[start:end]


def shown(value) -> str:
    """A value as the doc's tables write it."""
    if isinstance(value, str):
        return value
    return json.dumps(list(value) if isinstance(value, tuple) else value)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_each_preset_plays_with_house_players_and_its_payoffs_recompute(name):
    preset = PRESETS[name]
    kinds = [factory() for factory in PUBLIC_GOODS_POLICIES.values()]
    for variant in preset.variants:
        game = preset.rules(variant)
        lines, _ = play(game, mixed(game, kinds, np.random.default_rng(1)), seed=2)
        assert payoff_mismatches(lines, stored_options(game)) == []
    assert set(preset.sources) == set(preset.options)  # every number has its source


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_the_doc_shows_each_presets_options_and_variants(name):
    preset, section = PRESETS[name], doc_section(name)
    rows = dict(re.findall(r"^\| `(\w+)` \|\s*([^|]*?)\s*\|", section, re.MULTILINE))
    options = {key: rows.pop(key) for key in preset.options}
    assert options == {key: shown(value) for key, value in preset.options.items()}
    for variant, added in preset.variants.items():
        written = " ".join(f"`{key}` {shown(value)}" for key, value in added.items())
        assert rows.pop(variant) == written
    assert not rows, f"rows the preset does not have: {rows}"


def test_fehr_gaechter_plays_six_rounds_without_and_six_with_punishment_in_both_orders():
    preset = PRESETS["pgg_fehr_gaechter2002"]
    first, second = preset.rules("punishment_first"), preset.rules("punishment_second")
    assert [r for r in range(1, 13) if first.punish_in(r)] == list(range(1, 7))
    assert [r for r in range(1, 13) if second.punish_in(r)] == list(range(7, 13))
    assert (first.players, first.endowment, first.multiplier / first.players) == (4, 20, 0.4)
    assert first.matching == "perfect_strangers" and first.population == 28
    assert preset.reference == {}  # no curve: its numbers could not be read (docs say so)
    said = " ".join(doc_section("pgg_fehr_gaechter2002").split())
    assert "mean contributions per period could not be read here, so it is left out" in said


def test_pgg_bench_is_the_settings_of_its_stored_logs():
    """Every log of lechmazur/pgg_bench@4be972b opens with these settings (all 735 the same)."""
    logged = {
        "total_rounds": 10,
        "starting_amount": 20,
        "multiplier": 1.6,
        "num_players": 5,
        "enable_punishments": True,
        "punish_ratio": 3.0,
        "punish_max_spend": 10,
        "punish_max_fraction": 0.5,
        "punish_max_absolute": 100,
        "enable_public_messages": True,
    }
    game = PRESETS["pgg_bench"].rules("default")
    assert {
        "total_rounds": game.rounds,
        "starting_amount": game.endowment,
        "multiplier": game.multiplier,
        "num_players": game.players,
        "enable_punishments": game.punish,
        "punish_ratio": game.punish_fine,
        "punish_max_spend": game.max_punish,
        "punish_max_fraction": game.punish_cap_fraction,
        "punish_max_absolute": game.punish_cap_absolute,
        "enable_public_messages": game.talk,
    } == logged
    assert game.accounting == "balance" and game.punish_one_target


def test_coopeval_is_its_config_three_players_times_one_and_a_half_all_or_nothing():
    game = PRESETS["coopeval_public_goods"].rules("default")
    assert (game.players, game.multiplier, game.endowment, game.rounds) == (3, 1.5, 1, 1)
    # C earns m k / N, F earns 1 + m k / N (src/coopeval/games/public_goods.py)
    state = game.apply(
        game.initial_state(0),
        {
            "a": {"type": "contribute", "amount": 1},
            "b": {"type": "contribute", "amount": 1},
            "c": {"type": "contribute", "amount": 0},
        },
    )
    assert game.scores(state) == {"a": 1.0, "b": 1.0, "c": 2.0}


def test_an_unknown_variant_is_refused_naming_the_variants():
    with pytest.raises(ValueError, match="punishment_first, punishment_second"):
        PRESETS["pgg_fehr_gaechter2002"].rules("both")


def test_the_coopeval_reputation_experiment_file_plays_the_presets_variants():
    """conf/experiment/coopeval_public_goods_reputation.yaml: each condition's game is the
    preset's variant (Reputation+ nests 3 levels, Reputation- 1), 9 seats."""
    from pdbench.runners.prepare import load

    root = Path(__file__).resolve().parents[2]
    loaded = load("conf/experiment/coopeval_public_goods_reputation.yaml", [], project_root=root)
    preset = PRESETS["coopeval_public_goods_reputation"]
    assert [c.name for c in loaded.spec.conditions] == ["reputation_plus", "reputation_minus"]
    for condition in loaded.spec.conditions:  # each condition is named for its variant
        rules = condition.game.build_turn()
        assert rules == preset.rules(condition.name)
        assert len(rules.seats) == 9
    plus = PRESETS["coopeval_public_goods_reputation"].rules("reputation_plus")
    assert (plus.reputation_depth, plus.reputation_order, plus.rounds) == (3, 3, 15)
    assert preset.rules("reputation_minus").reputation_order == 1
