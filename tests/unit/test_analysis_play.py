"""Seeded simulated play for the analysis tests, and a check that it is pdbench's own play.

`play_against_random` plays a registered policy (its numpy batch form) against RANDOM(p) for many
matches at once, optionally with trembles (each intended move flipped with a probability; the
policy then sees the move actually played, as pdbench's noise does). The test below holds it equal,
move for move, to the same policy played through pdbench's match runner.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import ScriptedAgent, play

from pdbench.analysis.identification.moves import MatchBatch
from pdbench.core.actions import Action
from pdbench.core.game import Game
from pdbench.games.tables import GAMES
from pdbench.strategies import LastRounds, make_policy

PD = GAMES["pd"]


def play_against_random(
    policy_name: str,
    *,
    n_matches: int,
    n_rounds: int | np.ndarray,
    p_cooperate: float = 0.5,
    tremble: float = 0.0,
    seed: int = 0,
    game: Game = PD,
) -> MatchBatch:
    """`n_matches` matches of the policy against RANDOM(p_cooperate); `n_rounds` may give every
    match its own length."""
    rng = np.random.Generator(np.random.PCG64(seed))
    lengths = np.broadcast_to(np.asarray(n_rounds, dtype=np.int64), (n_matches,)).copy()
    longest = int(lengths.max())
    opponent = rng.random((n_matches, longest)) < p_cooperate
    flips = rng.random((n_matches, longest)) < tremble
    policy = make_policy(policy_name, game)
    policy.reset_batch(list(range(n_matches)), longest)
    p = game.payoffs
    own_payoff = np.array([[p.R, p.S], [p.T, p.P]])
    own = np.empty((n_matches, longest), dtype=bool)
    last = None
    for t in range(longest):
        own[:, t] = np.asarray(policy.act_batch(t + 1, last), dtype=bool) ^ flips[:, t]
        payoff = own_payoff[(~own[:, t]).astype(np.intp), (~opponent[:, t]).astype(np.intp)]
        last = LastRounds(own[:, t].copy(), opponent[:, t].copy(), payoff)
    return MatchBatch(own, opponent, lengths)


def concatenate(*batches: MatchBatch) -> MatchBatch:
    """The matches of several batches in one (padded to the longest)."""
    longest = max(batch.longest for batch in batches)

    def padded(array: np.ndarray) -> np.ndarray:
        return np.pad(array, ((0, 0), (0, longest - array.shape[1])))

    return MatchBatch(
        np.concatenate([padded(b.own) for b in batches]),
        np.concatenate([padded(b.opponent) for b in batches]),
        np.concatenate([b.lengths for b in batches]),
    )


@pytest.mark.parametrize("policy_name", ["allc", "alld", "tft", "grim", "wsls"])
def test_simulated_play_is_the_match_runners_play(policy_name):
    batch = play_against_random(policy_name, n_matches=5, n_rounds=[7, 12, 1, 30, 9], seed=3)
    for m in range(batch.n_matches):
        length = int(batch.lengths[m])
        script = [Action.C if c else Action.D for c in batch.opponent[m, :length]]
        result = play(make_policy(policy_name, PD), ScriptedAgent(script), length)
        played = [r.played.action_a is Action.C for r in result.rounds]
        assert played == batch.own[m, :length].tolist(), f"match {m}"


def test_trembles_flip_about_the_asked_share_of_moves():
    batch = play_against_random("allc", n_matches=200, n_rounds=50, tremble=0.1, seed=1)
    assert abs((~batch.own).mean() - 0.1) < 0.01


def test_batches_from_sequences_and_from_flat_rounds_agree():
    own = [[True, False, True], [False], [True, True]]
    opponent = [[False, False, True], [True], [True, False]]
    from_sequences = MatchBatch.from_sequences(own, opponent)
    flat_own = np.array([move for match in own for move in match])
    flat_opponent = np.array([move for match in opponent for move in match])
    from_flat = MatchBatch.from_flat(np.array([0, 3, 4]), flat_own, flat_opponent)
    assert from_sequences.lengths.tolist() == [3, 1, 2]
    np.testing.assert_array_equal(from_sequences.own, from_flat.own)
    np.testing.assert_array_equal(from_sequences.opponent, from_flat.opponent)
    np.testing.assert_array_equal(from_sequences.lengths, from_flat.lengths)


def test_a_batch_refuses_empty_matches_and_clears_padding():
    with pytest.raises(ValueError, match="at least one round"):
        MatchBatch(np.ones((1, 3), bool), np.ones((1, 3), bool), np.array([0]))
    batch = MatchBatch(np.ones((1, 3), bool), np.ones((1, 3), bool), np.array([2]))
    assert batch.own.tolist() == [[True, True, False]]
