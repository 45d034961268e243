"""House players of Liar's Dice. Each answers from its round_state alone (what an arena agent is
given: its own dice, the dice counts, the bids) in the platform's action shape, so a policy can
see nothing an agent could not.

- `random`: a uniformly random legal move (challenge included whenever a bid stands).
- `probability`: challenges when the current bid's probability given its own dice is below
  `threshold` (default 0.5); otherwise raises on its most likely face: the smallest legal bid on
  the face it holds most of (1s counting when wild; ties to the higher face).
- `bluffer`: overbids by `margin` dice (default 1): bids its most likely face at the quantity it
  expects on the table plus `margin`, raised to the smallest legal bid; challenges only a bid that
  is impossible given its dice or whose probability is below `challenge_below` (default 0.2).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from pdbench.games.liars_dice.odds import bid_probability
from pdbench.games.liars_dice.rules import (
    CHALLENGE,
    Bid,
    LiarsDiceRules,
    Move,
    action_dict,
    is_raise,
    legal_after,
    matching,
)


def _rules(round_state: dict) -> LiarsDiceRules:
    return LiarsDiceRules(
        dice_per_player=max(1, round_state["your_dice_count"]),
        faces=round_state["faces"],
        wild_ones=round_state["wild_ones"],
    )


def _current(round_state: dict) -> Bid | None:
    bid = round_state["current_bid"]
    return None if bid is None else Bid(bid["quantity"], bid["face"])


def _legal(round_state: dict) -> list[Move]:
    total = round_state["your_dice_count"] + round_state["opponent_dice_count"]
    return legal_after(_rules(round_state), _current(round_state), total)


def _smallest_raise(round_state: dict, face: int, at_least: int = 1) -> Bid | None:
    """The smallest legal bid on `face` with at least `at_least` dice (None: none is legal)."""
    rules, current = _rules(round_state), _current(round_state)
    total = round_state["your_dice_count"] + round_state["opponent_dice_count"]
    for quantity in range(max(1, at_least), total + 1):
        if is_raise(rules, Bid(quantity, face), current, total) is None:
            return Bid(quantity, face)
    return None


def _favourite_face(round_state: dict) -> int:
    """The face it holds most of (1s counting when wild), ties to the higher face."""
    rules, dice = _rules(round_state), tuple(round_state["your_dice"])
    return max(range(1, rules.faces + 1), key=lambda face: (matching(rules, dice, face), face))


def _probability(round_state: dict, bid: Bid) -> float:
    return bid_probability(
        _rules(round_state),
        bid,
        tuple(round_state["your_dice"]),
        round_state["opponent_dice_count"],
    )


@dataclass(frozen=True)
class RandomLiar:
    """A uniformly random legal move."""

    def act(self, round_state: dict, rng: np.random.Generator) -> dict[str, object]:
        moves = _legal(round_state)
        return action_dict(moves[int(rng.integers(len(moves)))])


@dataclass(frozen=True)
class ProbabilityLiar:
    """Challenges a bid less likely than `threshold` given its own dice; otherwise raises on its
    most likely face (see the module docstring)."""

    threshold: float = 0.5

    def act(self, round_state: dict, rng: np.random.Generator) -> dict[str, object]:
        current = _current(round_state)
        if current is not None and _probability(round_state, current) < self.threshold:
            return action_dict(CHALLENGE)
        bid = _smallest_raise(round_state, _favourite_face(round_state))
        if bid is None:  # no bid on its face is legal any more: any legal raise, else challenge
            bids = [m for m in _legal(round_state) if isinstance(m, Bid)]
            return action_dict(bids[0] if bids else CHALLENGE)
        return action_dict(bid)


@dataclass(frozen=True)
class Bluffer:
    """Overbids its most likely face by `margin` dice; challenges only what looks hopeless."""

    margin: int = 1
    challenge_below: float = 0.2

    def act(self, round_state: dict, rng: np.random.Generator) -> dict[str, object]:
        current = _current(round_state)
        if current is not None and _probability(round_state, current) < self.challenge_below:
            return action_dict(CHALLENGE)
        rules = _rules(round_state)
        face = _favourite_face(round_state)
        own = matching(rules, tuple(round_state["your_dice"]), face)
        share = (2 if rules.wild_ones and face != 1 else 1) / rules.faces
        expected = own + round_state["opponent_dice_count"] * share
        bid = _smallest_raise(round_state, face, math.ceil(expected) + self.margin)
        bid = bid or _smallest_raise(round_state, face)
        if bid is None:
            return action_dict(CHALLENGE if current is not None else Bid(1, face))
        return action_dict(bid)


LiarsPolicy = RandomLiar | ProbabilityLiar | Bluffer

# name -> a factory taking the policy's parameters
LIARS_DICE_POLICIES: dict[str, Callable[..., LiarsPolicy]] = {
    "liars_random": RandomLiar,
    "liars_probability": ProbabilityLiar,
    "liars_bluffer": Bluffer,
}
