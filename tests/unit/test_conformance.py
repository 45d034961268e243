"""One checker over every registered policy in every game (Gymnasium's check_env, for agents).

Each policy plays a 50-round match against every registered policy (itself included) in every
built-in game. The match must hold only Actions, consistent round records, and replay identically
from the same seeds.
"""

import pytest

from pdbench.agents.base import Agent
from pdbench.core.actions import Action
from pdbench.core.game import GAMES
from pdbench.core.rng import agent_stream, derive_seed
from pdbench.runners.match import play_match_sync
from pdbench.strategies import POLICIES, make_policy

N_ROUNDS = 50

GAME_IDS = sorted(GAMES)
POLICY_NAMES = sorted(POLICIES)


def play(policy: str, opponent: str, game_id: str, replicate: int):
    game = GAMES[game_id]
    agent_a, agent_b = make_policy(policy, game), make_policy(opponent, game)
    assert isinstance(agent_a, Agent) and isinstance(agent_b, Agent)
    condition = f"conformance-{game_id}-{policy}-{opponent}"
    return play_match_sync(
        game,
        N_ROUNDS,
        agent_a,
        agent_b,
        seed_a=derive_seed(0, condition, replicate, agent_stream("a")),
        seed_b=derive_seed(0, condition, replicate, agent_stream("b")),
        disclose_rounds=True,
    )


def moves_and_payoffs(result) -> list[tuple]:
    return [
        (r.played.round_index, r.played.action_a, r.played.action_b, r.cum_payoff_a, r.cum_payoff_b)
        for r in result.rounds
    ]


@pytest.mark.parametrize("opponent", POLICY_NAMES)
@pytest.mark.parametrize("policy", POLICY_NAMES)
@pytest.mark.parametrize("game_id", GAME_IDS)
def test_policy_conformance(policy, opponent, game_id):
    game = GAMES[game_id]
    result = play(policy, opponent, game_id, replicate=0)

    assert result.completed and result.error is None
    assert result.planned_rounds == N_ROUNDS
    assert [r.played.round_index for r in result.rounds] == list(range(1, N_ROUNDS + 1))

    running_a = running_b = 0.0
    for record in result.rounds:
        played = record.played
        for action in (played.action_a, played.action_b, record.decision_a.action):
            assert isinstance(action, Action), f"round {played.round_index}: {action!r}"
        assert record.decision_a.action is played.action_a
        assert record.decision_b.action is played.action_b
        assert (played.payoff_a, played.payoff_b) == game.payoffs.payoffs(
            played.action_a, played.action_b
        )
        running_a += played.payoff_a
        running_b += played.payoff_b
        assert (record.cum_payoff_a, record.cum_payoff_b) == (running_a, running_b), (
            f"round {played.round_index}"
        )

    # Determinism: the same seeds replay the same match, even with fresh policy objects.
    assert moves_and_payoffs(play(policy, opponent, game_id, replicate=0)) == moves_and_payoffs(
        result
    )
