"""What a donor is shown (issue 45): exactly the issue's round_state; its recipient's image and
last k donor actions and nothing else of any other player; no choice of the round in play; no
seat id; and a past choice of a player the donor never met, who is not its recipient, changes
nothing it is shown. (check-game's redraw_hidden check covers the seed, the other donors'
recipients and every other image.)"""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
from public_goods_loop import play

from pdbench.games.donor_game.policies import DONOR_GAME_POLICIES
from pdbench.games.registry import build_turn_game

KEYS = {
    "game", "phase", "round_number", "round_limit", "you", "recipient", "cost", "benefit",
    "norm", "your_score", "history",
}  # fmt: skip
HOUSE = sorted(DONOR_GAME_POLICIES)


def players(rules, seed):
    rng = np.random.default_rng(seed)
    return {s: DONOR_GAME_POLICIES[HOUSE[int(rng.integers(len(HOUSE)))]]() for s in rules.seats}


@pytest.mark.parametrize("second_order", [False, True])
def test_every_observation_is_the_round_state_and_shows_only_the_recipients_reputation(
    second_order,
):
    rules = build_turn_game(
        "donor_game", players=6, rounds=6, recent_actions=2, second_order=second_order
    )
    checked = 0

    def look(state, seat, seen):
        nonlocal checked
        json.dumps(seen)  # what an arena agent receives
        assert set(seen) == KEYS
        assert seen["game"] == "donor-game" and seen["phase"] == "donate"
        me = rules.seats.index(seat)
        recipient = state.recipients[me]
        assert seen["you"] == state.labels[me]
        assert seen["recipient"]["label"] == state.labels[recipient]
        reputation = seen["recipient"]["reputation"]
        assert set(reputation) == {"image_score", "recent_actions"}
        assert reputation["image_score"] == state.images[recipient]
        done = state.finished[-2:]  # its last k = 2 donor actions, oldest first
        expected = [
            {
                "round_number": r.round_number,
                "recipient": state.labels[r.recipients[recipient]],
                "gave": r.gave[recipient],
            }
            for r in done
        ]
        shown = [
            {k: v for k, v in e.items() if k != "recipient_recent_actions"}
            for e in reputation["recent_actions"]
        ]
        assert shown == expected
        for entry, r in zip(reputation["recent_actions"], done, strict=True):
            if not second_order:
                assert "recipient_recent_actions" not in entry
                continue
            theirs = r.recipients[recipient]
            before = [p for p in state.finished if p.round_number < r.round_number][-2:]
            assert entry["recipient_recent_actions"] == [
                {
                    "round_number": p.round_number,
                    "recipient": state.labels[p.recipients[theirs]],
                    "gave": p.gave[theirs],
                }
                for p in before
            ]
        # labels only, never a seat id
        text = json.dumps(seen)
        assert not any(f'"{s}"' in text for s in rules.seats)
        checked += 1

    for seed in range(4):
        play(rules, players(rules, seed), seed, seen=look)
    assert checked == 4 * 6 * 6


@pytest.mark.parametrize("norm", ["none", "image_scoring"])
def test_a_choice_of_a_player_the_donor_never_met_changes_nothing_it_is_shown(norm):
    """Flip, in the finished rounds, the choices of every player that is neither the seat, nor
    its recipient, nor one of its past recipients or donors: the seat's observation is the same
    (the images are the state's own, left as they were: a leak through the rounds played is
    what this looks for)."""
    rules = build_turn_game("donor_game", players=8, rounds=6, norm=norm, recent_actions=3)
    changed = 0
    for seed in range(6):
        lines, _ = play(rules, players(rules, seed), seed)
        state = rules.initial_state(seed)
        for line in lines[:-1]:
            state = rules.apply(state, line["actions"])
            for me, seat in enumerate(rules.seats):
                met = {state.recipients[me], me}
                for r in state.finished:
                    met |= {r.recipients[me], r.recipients.index(me)}
                strangers = [i for i in range(rules.players) if i not in met]
                flipped = tuple(
                    replace(
                        r,
                        gave=tuple(not g if i in strangers else g for i, g in enumerate(r.gave)),
                    )
                    for r in state.finished
                )
                other = replace(state, finished=flipped)
                changed += bool(strangers)
                assert rules.observe(other, seat) == rules.observe(state, seat)
    assert changed > 0
