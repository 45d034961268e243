"""Liar's Dice as the engine plays it: the `pdbench.games.base.TurnGame` over the rules functions
of `pdbench.games.liars_dice.rules` (seats "a" and "b" for players 0 and 1; the showdown made public)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from pdbench.games.liars_dice.rules import (
    LiarsDiceRules,
    LiarsDiceState,
    Player,
    action_dict,
    apply,
    initial_state,
    legal_moves,
    observe,
    parse_action,
    problem,
    scores,
)

_SEAT_PLAYER: dict[str, Player] = {"a": 0, "b": 1}
_PLAYER_SEAT: tuple[str, str] = ("a", "b")


@dataclass(frozen=True)
class LiarsDice:
    """Liar's Dice as a `pdbench.games.base.TurnGame`: seats "a" (player 0, who opens the first
    round) and "b"; one seat moves at a time; no third role. Options as in `LiarsDiceRules`."""

    id: ClassVar[str] = "liars_dice"
    platform_name: ClassVar[str] = "liars-dice"
    third_roles: ClassVar[tuple[str, ...]] = ()

    dice_per_player: int = 5
    faces: int = 6
    wild_ones: bool = False

    def __post_init__(self) -> None:
        self.rules  # noqa: B018 (the variant's checks: a bad option fails when the game is built)

    @property
    def rules(self) -> LiarsDiceRules:
        return LiarsDiceRules(self.dice_per_player, self.faces, self.wild_ones)

    def initial_state(self, seed: int) -> LiarsDiceState:
        return initial_state(self.rules, seed)

    def to_move(self, state: LiarsDiceState) -> tuple[str, ...]:
        return () if state.winner is not None else (_PLAYER_SEAT[state.to_move],)

    def observe(self, state: LiarsDiceState, seat: str) -> dict[str, Any]:
        return observe(state, _SEAT_PLAYER[seat])

    def problem(self, state: LiarsDiceState, seat: str, action: Mapping[str, Any]) -> str | None:
        try:
            move = parse_action(dict(action))
        except ValueError as error:
            return str(error)
        return problem(state, _SEAT_PLAYER[seat], move)

    def fallback(self, state: LiarsDiceState, seat: str, reason: str) -> dict[str, Any]:
        """Challenge the standing bid; with none, the lowest opening bid (1 x 1): the moves that
        claim the least. A condition may abort the match instead."""
        return action_dict(legal_moves(state)[0])

    def apply(
        self, state: LiarsDiceState, actions: Mapping[str, Mapping[str, Any]]
    ) -> LiarsDiceState:
        (seat, action), *others = actions.items()
        if others or _SEAT_PLAYER[seat] != state.to_move:
            raise ValueError(f"only {_PLAYER_SEAT[state.to_move]} moves now, got {list(actions)}")
        return apply(state, parse_action(dict(action)))

    def round_number(self, state: LiarsDiceState) -> int:
        return state.round_number

    def phase(self, state: LiarsDiceState) -> str:
        return "bid"

    def revealed(self, before: LiarsDiceState, after: LiarsDiceState) -> dict[str, Any] | None:
        """A challenge's showdown: both hands, the challenged bid, how many dice met it, who lost
        a die (the players' dice are public once a challenge is made)."""
        if len(after.finished) == len(before.finished):
            return None
        showdown = after.finished[-1]
        bidder, bid = showdown.bids[-1]
        return {
            "showdown": {
                "round": showdown.round_number,
                "dice": {"a": list(showdown.dice[0]), "b": list(showdown.dice[1])},
                "bid": {"player": _PLAYER_SEAT[bidder], **bid.as_dict()},
                "challenger": _PLAYER_SEAT[showdown.challenger],
                "matching": showdown.matching,
                "loser": _PLAYER_SEAT[showdown.loser],
            }
        }

    def match_over(self, state: LiarsDiceState) -> bool:
        return state.winner is not None

    def scores(self, state: LiarsDiceState) -> dict[str, float]:
        first, second = scores(state)
        return {"a": first, "b": second}

    def redraw_hidden(self, state: LiarsDiceState, seat: str, rng: Any) -> LiarsDiceState:
        """The same state with what `seat` may not see drawn again (pdbench.games.check): the
        opponent's dice of the round in play and the match's seed, which rolls the rounds to
        come. An observation of `seat` must not change."""
        me = _SEAT_PLAYER[seat]
        theirs = tuple(
            sorted(int(x) for x in rng.integers(1, self.faces + 1, len(state.dice[1 - me])))
        )
        dice = (state.dice[0], theirs) if me == 0 else (theirs, state.dice[1])
        return replace(state, dice=dice, seed=int(rng.integers(2**62)))
