"""The Fehr & Gaechter (2002) preset played (issue 44): the punish phase comes exactly in the
rounds `punish_rounds` names and in no other, nobody shares a group with anyone twice within a
6-round part (perfect strangers), and the contributions with and without punishment are separate
metric rows, so the two treatments of one match can be compared."""

from __future__ import annotations

from dataclasses import replace
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest

from pdbench.games.metric_rows import game_metric_rows
from pdbench.games.public_goods.metrics import match_row
from pdbench.games.public_goods.policies import PUBLIC_GOODS_POLICIES
from pdbench.games.public_goods.published import FEHR_GAECHTER_2002, PRESETS
from pdbench.games.public_goods.stored import read_rounds
from tests.public_goods_loop import mixed, play, stored_options

DOC = Path(__file__).resolve().parents[2] / "docs" / "public-goods.md"
VARIANTS = {"punishment_first": range(1, 7), "punishment_second": range(7, 13)}


def played(variant: str, seed: int):
    game = FEHR_GAECHTER_2002.rules(variant)
    kinds = [factory() for factory in PUBLIC_GOODS_POLICIES.values()]
    lines, _ = play(game, mixed(game, kinds, np.random.default_rng(seed)), seed=seed)
    return game, lines


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_the_punish_phase_comes_exactly_in_the_rounds_the_option_names(variant):
    _, lines = played(variant, seed=3)
    phases: dict[int, set[str]] = {}
    for line in lines:
        phases.setdefault(line["round"], set()).add(line["phase"])
    assert sorted(phases) == list(range(1, 13))
    with_punishment = [n for n, seen in phases.items() if "punish" in seen]
    assert with_punishment == list(VARIANTS[variant])
    assert all(seen - {"punish"} == {"contribute"} for seen in phases.values())


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_nobody_meets_anyone_twice_within_a_part_of_six_rounds(seed):
    game, lines = played("punishment_first", seed)
    rounds = read_rounds(lines, stored_options(game))
    for part in (rounds[:6], rounds[6:]):
        met = [pair for r in part for group in r.groups for pair in combinations(sorted(group), 2)]
        assert len(met) == len(set(met)) == 6 * 7 * 6  # 7 groups, 6 pairs a group, 6 rounds
    # across the parts pairs meet again: 12 rounds x 3 others > 27 others (docs say so)
    everyone = [
        pair for r in rounds for group in r.groups for pair in combinations(sorted(group), 2)
    ]
    assert len(set(everyone)) < len(everyone)


def test_contributions_with_and_without_punishment_are_separate_metrics():
    assert {"contribution_share_punish", "contribution_share_no_punish"} <= {
        row.stem for row in game_metric_rows("public_goods")
    }
    for variant, punished in VARIANTS.items():
        game, lines = played(variant, seed=5)
        options = stored_options(game)
        rounds = read_rounds(lines, options)
        rows = match_row(lines, options)
        for seat, row in rows.items():
            share = {r.round_number: r.contributions[seat] / 20 for r in rounds}
            inside = [share[n] for n in punished]
            outside = [share[n] for n in share if n not in punished]
            assert row["contribution_share_punish"] == pytest.approx(np.mean(inside))
            assert row["contribution_share_no_punish"] == pytest.approx(np.mean(outside))


def test_a_match_without_punishment_has_no_share_with_punishment():
    game = FEHR_GAECHTER_2002.rules("punishment_first")
    plain = replace(game, punish=False, punish_rounds=None)
    kinds = [factory() for factory in PUBLIC_GOODS_POLICIES.values()]
    lines, _ = play(plain, mixed(plain, kinds, np.random.default_rng(0)), seed=0)
    rows = match_row(lines, stored_options(plain))
    for row in rows.values():
        assert row["contribution_share_punish"] is None
        assert row["contribution_share_no_punish"] == pytest.approx(row["contribution_share"])


def test_the_docs_count_of_pairs_meeting_in_both_parts_is_the_designs():
    """docs/public-goods.md: over 200 seeds, 157 to 181 pairs (mean 168.25) meet in both parts,
    none three times."""
    from collections import Counter

    from pdbench.games.public_goods.matching import draw_round

    game = FEHR_GAECHTER_2002.rules("punishment_first")
    twice, most = [], 0
    for seed in range(200):
        met: Counter[tuple[int, int]] = Counter()
        for number in range(1, 13):
            drawn = draw_round(seed, number, 4, game.groups, game.matching, game.block)
            met.update(pair for g in drawn.groups for pair in combinations(sorted(g), 2))
        twice.append(sum(1 for n in met.values() if n == 2))
        most = max(most, *met.values())
    assert (min(twice), max(twice), float(np.mean(twice)), most) == (157, 181, 168.25, 2)
    said = " ".join(DOC.read_text(encoding="utf-8").split())
    assert "Over 200 seeds, 157 to 181 pairs (mean 168.25) meet once in each part" in said


def test_no_reference_number_lacks_its_source():
    for preset in PRESETS.values():
        assert set(preset.reference) <= set(preset.sources), preset.name
