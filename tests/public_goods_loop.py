"""A tiny pure-Python play loop for the public goods game's tests (the one game contract's runner
will replace it): every seat answers from its observation with its house player, every answer is
checked by the rules, and each turn is kept as the turn runner stores it (round, turn, phase,
seats, actions, revealed; the last line's outcome with the scores, the seed and the options)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from pdbench.games.base import recorded_options
from pdbench.games.public_goods.rules import PublicGoods

Policy = Any  # act(round_state, rng) -> action
Seen = Callable[[Any, str, dict[str, Any]], None]  # (state, seat, observation)


def stored_options(game: PublicGoods) -> dict[str, Any]:
    """The options as the runner stores them (`pdbench.games.base.recorded_options`)."""
    return recorded_options(game)


def play(
    game: PublicGoods,
    players: Mapping[str, Policy],
    seed: int,
    *,
    seen: Seen | None = None,
    check_json: bool = False,
) -> tuple[list[dict[str, Any]], Any]:
    """Play one match; `players` maps every seat to its house player. Returns the stored turns
    and the final state."""
    rngs = {seat: np.random.default_rng([seed, index]) for index, seat in enumerate(game.seats)}
    state = game.initial_state(seed)
    lines: list[dict[str, Any]] = []
    while not game.match_over(state):
        actions = {}
        for seat in game.to_move(state):
            observation = game.observe(state, seat)
            if check_json:
                json.dumps(observation)
            if seen is not None:
                seen(state, seat, observation)
            actions[seat] = players[seat].act(observation, rngs[seat])
            reason = game.problem(state, seat, actions[seat])
            assert reason is None, (seat, actions[seat], reason)
        before = state
        state = game.apply(state, actions)
        lines.append(
            {
                "round": game.round_number(before),
                "turn": len(lines) + 1,
                "phase": game.phase(before),
                "seats": list(actions),
                "actions": actions,
                "revealed": game.revealed(before, state),
            }
        )
    lines[-1]["outcome"] = {
        "scores": game.scores(state),
        "seed": seed,
        "options": stored_options(game),
    }
    return lines, state


def mixed(game: PublicGoods, kinds: list[Policy], rng: np.random.Generator) -> dict[str, Policy]:
    """Every seat of `game` a house player drawn from `kinds`."""
    return {seat: kinds[int(rng.integers(len(kinds)))] for seat in game.seats}
