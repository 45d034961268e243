"""Every registered turn-based game honours the contract of pdbench.games.base: its house players
play whole legal matches, a match replays move for move from its seed and its stored actions, and
no observation carries what its seat may not see (checked per game by the game's own tests; here
the part every game shares: an observation is JSON and names the game as the platform does)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pdbench.core.errors import ConfigError
from pdbench.games.base import PLAYER_SEATS, TurnGame, role_of
from pdbench.games.registry import (
    TURN_GAMES,
    build_turn_game,
    house_third_parties,
    turn_game_entry,
    turn_policies,
)

GAME_IDS = sorted(TURN_GAMES)


def default_third_parties(game_id: str) -> dict:
    """The game's default house third party per role (the first listed), built with defaults."""
    return {
        role: next(iter(factories.values()))()
        for role, factories in house_third_parties(game_id).items()
    }


def play(game: TurnGame, policies: dict, seed: int, limit: int = 5_000) -> tuple[list, object]:
    """Play a match: `policies` maps a role ("a", "b", "keeper", "judge") to its house policy;
    a third role's qualified seats ("keeper:a") are played by the policy of their role."""
    rngs: dict = {}
    state = game.initial_state(seed)
    turns = []
    for _ in range(limit):
        if game.match_over(state):
            return turns, state
        seats = game.to_move(state)
        assert seats, "to_move is empty only when the match is over"
        actions = {}
        for seat in seats:
            seen = game.observe(state, seat)
            json.dumps(seen)  # an observation is what an arena agent receives: JSON
            rng = rngs.setdefault(seat, np.random.default_rng([seed, len(rngs)]))
            action = policies[role_of(seat)].act(seen, rng)
            assert game.problem(state, seat, action) is None, (seat, action)
            actions[seat] = action
        turns.append(actions)
        state = game.apply(state, actions)
    raise AssertionError(f"no end after {limit} turns")


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_the_registry_row_agrees_with_the_rules_class(game_id):
    game = build_turn_game(game_id)
    entry = turn_game_entry(game_id)
    assert isinstance(game, TurnGame)
    assert (game.id, game.platform_name) == (entry.id, entry.platform_name)
    state = game.initial_state(0)
    seat = game.to_move(state)[0]
    assert game.observe(state, seat)["game"] == entry.platform_name
    assert set(house_third_parties(game_id)) == set(game.third_roles)


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_house_players_play_whole_legal_matches_that_replay_from_seed_and_actions(game_id):
    game = build_turn_game(game_id)
    policies = {name: factory() for name, factory in turn_policies(game_id).items()}
    names = sorted(policies)
    for seed in range(6):
        pair = {"a": policies[names[seed % len(names)]], "b": policies[names[-1 - seed % 2]]}
        pair |= default_third_parties(game_id)
        turns, final = play(game, pair, seed)
        again, _ = play(game, pair, seed)
        assert again == turns  # same seed, same players: the same match
        state = game.initial_state(seed)
        for actions in turns:  # the stored actions alone rebuild the final state (resume)
            state = game.apply(state, actions)
        assert state == final
        assert game.match_over(final)
        assert set(game.scores(final)) == set(PLAYER_SEATS)


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_an_illegal_action_is_refused_with_a_reason_and_the_fallback_is_legal(game_id):
    game = build_turn_game(game_id)
    state = game.initial_state(3)
    seat = game.to_move(state)[0]
    reason = game.problem(state, seat, {"type": "no such action"})
    assert isinstance(reason, str) and reason
    for why in ("invalid", "timeout"):
        assert game.problem(state, seat, game.fallback(state, seat, why)) is None


def test_an_unknown_game_names_the_field_and_the_choices():
    with pytest.raises(ConfigError, match=r"game\.id.*liars_dice"):
        build_turn_game("liars_die")
