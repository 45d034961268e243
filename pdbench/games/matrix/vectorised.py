"""The 2x2 games' vectorised path (their entries' `vectorised`): every match of a condition of
two policies with a numpy form, at once, the moves the turn loop plays with the 2x2 rules (the
policies' `act_batch` is their `act` over arrays, with the same seeded draws, and the same
trembling-hand flips under noise: `rules.flips` draws them one by one, `_tremble_draws` as
arrays).

Its contract is the vectorised one of `games.entry.TurnGameEntry.vectorised` with what a 2x2
match differs in: `problem(rules, players, max_turns)` as every game's; and instead of `play`,
which plays one rules object's matches into turns, `play_arrays(rules, players, agent_seeds,
noise_seeds)`: each match has its own rules (its drawn length, its noise) and noise streams,
and what comes back is arrays over its rounds (`MatchArrays`), from which the runner writes the same turn lines
the turn loop's writer gives, byte for byte apart from timestamps (`runners.batch.match_lines`;
tests/integration/test_batch_equivalence.py and test_matrix_equivalence.py hold it to that).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from pdbench.games.matrix.rules import MatrixGame, flip_draws
from pdbench.strategies import Policy
from pdbench.strategies.play import BatchArrays
from pdbench.strategies.play import play_arrays as play_arrays_core

# One match as arrays over its rounds (True = C): the actions played, their payoffs and, with
# noise only, the actions intended; the batch core's arrays, one row of them.
MatchArrays = BatchArrays


def problem(rules: MatrixGame, players: Mapping[str, Policy], max_turns: int) -> str | None:
    """Why a condition of these rules cannot be played as arrays (None: it can): the policies
    have no talk phase here (a talking game's matches play the turn loop)."""
    if rules.game.negotiation is not None:
        return "the array path has no talk phase"
    return None


def _tremble_draws(seeds: list[int], noise: float, longest: int) -> np.ndarray:
    """Per match (row) and round, whether the trembling hand flips the move: the loop's draws
    (one uniform per round from the side's noise stream)."""
    return np.stack([flip_draws(seed, noise, longest) for seed in seeds])


def play_arrays(
    rules: Sequence[MatrixGame],
    players: Mapping[str, Policy],
    agent_seeds: Sequence[Mapping[str, int]],
    noise_seeds: Sequence[tuple[int, int]],
) -> list[MatchArrays]:
    """Play matches of one condition (the same table and noise) together: per match its rules
    (its length), each seat's seed and each seat's noise stream; `players` each seat's policy
    (its batch form, given the game from its own side). Each match stops at its own length."""
    lengths = [match.rounds for match in rules]
    longest = max(lengths)
    noise = rules[0].noise
    flips = (
        (
            _tremble_draws([seeds[0] for seeds in noise_seeds], noise, longest),
            _tremble_draws([seeds[1] for seeds in noise_seeds], noise, longest),
        )
        if noise > 0
        else None
    )
    played = play_arrays_core(
        players["a"],
        players["b"],
        rules[0].game,
        longest,
        seeds_a=[seeds["a"] for seeds in agent_seeds],
        seeds_b=[seeds["b"] for seeds in agent_seeds],
        flips=flips,
    )
    return [
        MatchArrays(
            played.coop_a[i, :n],
            played.coop_b[i, :n],
            played.payoff_a[i, :n],
            played.payoff_b[i, :n],
            None if played.intended_a is None else played.intended_a[i, :n],
            None if played.intended_b is None else played.intended_b[i, :n],
        )
        for i, n in enumerate(lengths)
    ]
