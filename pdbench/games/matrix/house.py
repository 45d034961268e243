"""The classic strategies (`pdbench.strategies`: ALLC, TFT, GRIM, GTFT, ...) as house players of
the turn contract (`pdbench.games.base.TurnPolicy`), answering from a seat's round_state alone.

A house player keeps no memory between turns (one player object may sit in both seats, and
`pdbench check-game` replays a match with the same objects), while a classic strategy keeps its
own (GRIM's trigger, a memory-one player's last move, its random stream). So at each commit the
strategy is built afresh from the payoffs and labels the seat is shown, seeded, and replayed
through every finished round the round_state lists before it answers this one: the moves it
would have made in a match loop, at O(rounds) a turn. Its seed is read from a copy of the
seat's own stream (`rng`), so it is the same at every turn of a match and the stream is never
advanced. At a talk turn a house player says nothing.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from pdbench.core.actions import Action
from pdbench.core.game import Game
from pdbench.core.payoff import PayoffMatrix
from pdbench.core.transcript import PlayedRound, Transcript
from pdbench.games.base import agent_game
from pdbench.strategies import POLICIES, Policy, make_policy, policy_has_batch_form

RoundState = dict[str, Any]


def game_seen(round_state: RoundState) -> Game:
    """The 2x2 game as the seat is shown it, from its own side (its own move first)."""
    shown = round_state["payoffs"]
    labels = round_state["actions"]
    return Game(
        id=round_state["game"],
        arena_id=round_state["game"],
        description="the game as the seat is shown it",
        payoffs=PayoffMatrix.from_outcomes(*(tuple(shown[o]) for o in ("CC", "CD", "DC", "DD"))),
        cooperate_label=labels["C"],
        defect_label=labels["D"],
        is_prisoners_dilemma=False,
    )


@dataclass(frozen=True)
class ClassicPlayer:
    """The classic strategy `policy` (a `pdbench.strategies` name) with its `params`."""

    policy: str
    params: Mapping[str, Any] = field(default_factory=dict)

    def act(self, round_state: RoundState, rng: Any) -> dict[str, Any]:
        if round_state["phase"] == "talk":
            return {"type": "message", "text": ""}
        return {"type": "commit", "action": self.move(round_state, rng).value}

    def move(self, round_state: RoundState, rng: Any) -> Action:
        strategy: Policy[Any] = make_policy(self.policy, game_seen(round_state), self.params)
        strategy.reset(int(copy.deepcopy(rng).integers(2**63)))
        played = Transcript()
        for past in round_state["history"]:
            strategy.act(_shown(played, strategy))  # the move made then (what counts is its memory)
            played.append(
                PlayedRound(
                    past["round"],
                    Action(past["your_action"]),
                    Action(past["opponent_action"]),
                    past["your_points"],
                    past["opponent_points"],
                )
            )
        return strategy.act(_shown(played, strategy))


def _shown(played: Transcript, strategy: Policy[Any]) -> Any:
    return played.observe(
        side="a", history_window=strategy.history_window, include_totals=strategy.include_totals
    )


@dataclass(frozen=True)
class ClassicHouse:
    """The classic strategy `name` as one of the 2x2 games' house players: called with the
    strategy's parameters it is the house player of the turn contract (`ClassicPlayer`), as a
    turn game's house factory is; a policy agent of it asks it how it plays otherwise: whether
    it draws at random, and the strategy itself played on the table its seat is shown (the
    match loop's agent, `on_table`; the numpy batch, `batch_player`)."""

    name: str

    def __call__(self, **params: Any) -> ClassicPlayer:
        return ClassicPlayer(self.name, params)

    @property
    def deterministic(self) -> bool:
        return not POLICIES[self.name].stochastic

    @property
    def has_batch_form(self) -> bool:
        return policy_has_batch_form(self.name)

    def on_table(self, game: Game, params: Mapping[str, Any]) -> Policy[Any]:
        """The strategy playing `game` (the table from its seat's side) with `params`."""
        return make_policy(self.name, game, params)

    def batch_player(self, rules: Any, seat: str, params: Mapping[str, Any]) -> Policy[Any]:
        """The strategy's numpy form, on the table the rules show `seat`."""
        return self.on_table(agent_game(rules, seat), params)


class _ClassicPlayers(Mapping[str, ClassicHouse]):
    """Every classic strategy registered now (`strategies.POLICIES`, a strategy registered after
    this module was imported too), by its name, as its `ClassicHouse`."""

    def __getitem__(self, name: str) -> ClassicHouse:
        if name not in POLICIES:
            raise KeyError(name)
        return ClassicHouse(name)

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(POLICIES))

    def __len__(self) -> int:
        return len(POLICIES)


# Every classic strategy, by its name: factories taking the strategy's parameters (a registry
# entry's `policies`).
CLASSIC_PLAYERS = _ClassicPlayers()
