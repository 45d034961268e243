"""Liar's Dice for two players, as a rules module: pure functions of (state, action), seeded dice.

The rules (AgentDuel's public pages: the platform's own page was not found; TextArena and
other agent platforms agree):

- Each player starts with `dice_per_player` hidden dice (default 5, faces 1..`faces`, default 6),
  rolled at the start of every round.
- Players alternate. On a turn a player bids "at least `quantity` dice showing `face` among ALL
  dice", which must raise the current bid, or challenges the current bid (not possible before the
  first bid of a round).
- A raise is a higher quantity (any face), or the same quantity with a higher face.
- A challenge reveals all dice. If the bid is met (at least `quantity` dice show `face`) the
  challenger loses a die, otherwise the bidder does. The loser opens the next round; player a
  opens the first.
- A player with no dice left has lost; the other wins (score 1 against 0: a match always has a
  winner).
- `wild_ones` (default off, the plain rules above): 1s also count for every other face. A bid on
  1s is then Perudo's: switching to 1s needs at least half the current quantity (rounded up),
  switching from 1s needs more than twice it; among 1s, a higher quantity.

Everything an agent may see of a state is in `observe` (exactly its round_state); the dice of the
opponent appear there only in the record of a finished round, after the showdown revealed them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Literal

import numpy as np

Player = Literal[0, 1]
PLAYERS: tuple[Player, Player] = (0, 1)


@dataclass(frozen=True)
class LiarsDiceRules:
    """The variant played (the defaults are documented in the module docstring)."""

    dice_per_player: int = 5
    faces: int = 6
    wild_ones: bool = False

    def __post_init__(self) -> None:
        if self.dice_per_player < 1:
            raise ValueError(f"dice_per_player must be at least 1, got {self.dice_per_player}")
        if self.faces < 2:
            raise ValueError(f"faces must be at least 2, got {self.faces}")


@dataclass(frozen=True, order=True)
class Bid:
    quantity: int
    face: int

    def as_dict(self) -> dict[str, int]:
        return {"quantity": self.quantity, "face": self.face}


@dataclass(frozen=True)
class Challenge:
    pass


Move = Bid | Challenge
CHALLENGE = Challenge()


@dataclass(frozen=True)
class Showdown:
    """A finished round: the bids in order, the dice revealed and who lost a die."""

    round_number: int
    opener: Player
    bids: tuple[tuple[Player, Bid], ...]
    dice: tuple[tuple[int, ...], tuple[int, ...]]
    challenger: Player
    loser: Player
    matching: int  # how many dice met the challenged bid


@dataclass(frozen=True)
class LiarsDiceState:
    rules: LiarsDiceRules
    seed: int  # the match's dice stream: round r's dice are a pure function of (seed, r)
    round_number: int
    dice: tuple[tuple[int, ...], tuple[int, ...]]  # this round's dice, per player, sorted
    to_move: Player
    opener: Player
    bids: tuple[tuple[Player, Bid], ...] = ()  # this round's bids, in order
    finished: tuple[Showdown, ...] = field(default=())
    turn_number: int = 1  # within the round, from 1

    @property
    def current_bid(self) -> Bid | None:
        return self.bids[-1][1] if self.bids else None

    @property
    def dice_counts(self) -> tuple[int, int]:
        return (len(self.dice[0]), len(self.dice[1]))

    @property
    def winner(self) -> Player | None:
        counts = self.dice_counts
        if counts[0] == 0:
            return 1
        if counts[1] == 0:
            return 0
        return None


def roll(
    seed: int, round_number: int, counts: tuple[int, int], faces: int
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Both players' dice for a round: a pure function of the match's seed and the round, so a
    match resumed from its stored turns rolls the same dice."""
    rng = np.random.Generator(np.random.PCG64([seed, round_number]))
    first, second = (tuple(sorted(int(x) for x in rng.integers(1, faces + 1, n))) for n in counts)
    return first, second


def initial_state(rules: LiarsDiceRules, seed: int) -> LiarsDiceState:
    counts = (rules.dice_per_player, rules.dice_per_player)
    return LiarsDiceState(
        rules=rules,
        seed=seed,
        round_number=1,
        dice=roll(seed, 1, counts, rules.faces),
        to_move=0,
        opener=0,
    )


def counts_for(rules: LiarsDiceRules, face: int, die: int) -> bool:
    """Whether one die counts towards a bid on `face`."""
    return die == face or (rules.wild_ones and die == 1 and face != 1)


def matching(rules: LiarsDiceRules, dice: tuple[int, ...], face: int) -> int:
    return sum(counts_for(rules, face, die) for die in dice)


def is_raise(rules: LiarsDiceRules, new: Bid, current: Bid | None, total_dice: int) -> str | None:
    """Why `new` is not a legal bid over `current` (None: it is)."""
    if not 1 <= new.face <= rules.faces:
        return f"face {new.face} is not between 1 and {rules.faces}"
    if not 1 <= new.quantity <= total_dice:
        return f"quantity {new.quantity} is not between 1 and the {total_dice} dice in play"
    if current is None:
        return None
    if rules.wild_ones and (new.face == 1) != (current.face == 1):
        if new.face == 1:  # to 1s: at least half the quantity, rounded up
            needed = math.ceil(current.quantity / 2)
            if new.quantity < needed:
                return f"a bid on 1s after {_said(current)} needs at least {needed} dice"
            return None
        needed = 2 * current.quantity + 1  # from 1s: more than twice the quantity
        if new.quantity < needed:
            return f"a bid on {new.face}s after {_said(current)} needs at least {needed} dice"
        return None
    if new.quantity > current.quantity or (
        new.quantity == current.quantity and new.face > current.face
    ):
        return None
    return (
        f"{_said(new)} does not raise {_said(current)}: bid more dice, or as many of a higher face"
    )


def _said(bid: Bid) -> str:
    return f"{bid.quantity} x {bid.face}"


def problem(state: LiarsDiceState, player: Player, move: Move) -> str | None:
    """Why `move` is not legal for `player` now (None: it is)."""
    if state.winner is not None:
        return "the match is over"
    if player != state.to_move:
        return "it is not this player's turn"
    if isinstance(move, Challenge):
        return None if state.bids else "there is no bid to challenge yet: open with a bid"
    return is_raise(state.rules, move, state.current_bid, sum(state.dice_counts))


def legal_moves(state: LiarsDiceState) -> list[Move]:
    """Every legal move of the player to move, challenge first (when a bid stands)."""
    return legal_after(state.rules, state.current_bid, sum(state.dice_counts))


def legal_after(rules: LiarsDiceRules, current: Bid | None, total_dice: int) -> list[Move]:
    """The legal moves over `current` with `total_dice` in play: challenge first (when a bid
    stands), then every raise, fewest dice first."""
    moves: list[Move] = [CHALLENGE] if current is not None else []
    for quantity in range(1, total_dice + 1):
        for face in range(1, rules.faces + 1):
            if is_raise(rules, Bid(quantity, face), current, total_dice) is None:
                moves.append(Bid(quantity, face))
    return moves


def apply(state: LiarsDiceState, move: Move) -> LiarsDiceState:
    """The state after the player to move plays `move` (legal: see `problem`)."""
    reason = problem(state, state.to_move, move)
    if reason is not None:
        raise ValueError(reason)
    player, other = state.to_move, _other(state.to_move)
    if isinstance(move, Bid):
        return replace(
            state,
            bids=(*state.bids, (player, move)),
            to_move=other,
            turn_number=state.turn_number + 1,
        )
    bidder, bid = state.bids[-1]
    met = matching(state.rules, state.dice[0] + state.dice[1], bid.face)
    loser = player if met >= bid.quantity else bidder
    showdown = Showdown(
        round_number=state.round_number,
        opener=state.opener,
        bids=state.bids,
        dice=state.dice,
        challenger=player,
        loser=loser,
        matching=met,
    )
    counts = list(state.dice_counts)
    counts[loser] -= 1
    next_round = state.round_number + 1
    return replace(
        state,
        round_number=next_round,
        dice=roll(state.seed, next_round, (counts[0], counts[1]), state.rules.faces),
        to_move=loser,
        opener=loser,
        bids=(),
        finished=(*state.finished, showdown),
        turn_number=1,
    )


def _other(player: Player) -> Player:
    return 1 if player == 0 else 0


def parse_action(action: object) -> Move:
    """An agent's action dict (the platform's shape) as a move: `{"type": "bid", "quantity": N,
    "face": F}` or `{"type": "challenge"}`. Raises ValueError saying what is wrong."""
    if not isinstance(action, dict):
        raise ValueError(f"an action is a JSON object, got {type(action).__name__}")
    kind = action.get("type")
    if kind == "challenge":
        return CHALLENGE
    if kind != "bid":
        raise ValueError(f'type must be "bid" or "challenge", got {kind!r}')
    values = []
    for key in ("quantity", "face"):
        value = action.get(key)
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"a bid's {key} is a whole number, got {value!r}")
        values.append(value)
    return Bid(values[0], values[1])


def action_dict(move: Move) -> dict[str, object]:
    """A move in the platform's action shape (the inverse of `parse_action`)."""
    if isinstance(move, Challenge):
        return {"type": "challenge"}
    return {"type": "bid", **move.as_dict()}


def scores(state: LiarsDiceState) -> tuple[float, float]:
    """1 for the winner, 0 for the loser; (0, 0) while the match is on."""
    winner = state.winner
    if winner is None:
        return (0.0, 0.0)
    return (1.0, 0.0) if winner == 0 else (0.0, 1.0)


# --- what a player sees ------------------------------------------------------------------------


def _who(player: Player, viewer: Player) -> str:
    return "you" if player == viewer else "opponent"


def observe(state: LiarsDiceState, viewer: Player) -> dict:
    """The round_state `viewer` is given: its own dice, both dice counts, the bids of this round,
    and the finished rounds with the dice their showdowns revealed. Never the opponent's dice of
    the round in play. Round and turn are sent in both of the platform's spellings."""
    opponent = _other(viewer)
    bids = [{"player": _who(p, viewer), **bid.as_dict()} for p, bid in state.bids]
    current = state.current_bid
    history = [
        {
            "round": showdown.round_number,
            "bids": [{"player": _who(p, viewer), **bid.as_dict()} for p, bid in showdown.bids],
            "your_dice": list(showdown.dice[viewer]),
            "opponent_dice": list(showdown.dice[opponent]),
            "challenger": _who(showdown.challenger, viewer),
            "loser": _who(showdown.loser, viewer),
            "matching": showdown.matching,
        }
        for showdown in state.finished
    ]
    return {
        "game": "liars-dice",
        "round_number": state.round_number,
        "round": state.round_number,
        "turn_number": state.turn_number,
        "turn": state.turn_number,
        "phase": "bid",
        "your_turn": state.to_move == viewer,
        "your_dice": list(state.dice[viewer]),
        "your_dice_count": len(state.dice[viewer]),
        "opponent_dice_count": len(state.dice[opponent]),
        "current_bid": None if current is None else current.as_dict(),
        "bid_history": bids,
        "rounds_history": history,
        "faces": state.rules.faces,
        "wild_ones": state.rules.wild_ones,
    }
