"""Two policies playing each other: the loop form (one `act` per round, from the observation the
runner would give) and the batch form (many matches at once with numpy).

The match loop, `play_rounds`, is the reference loop of a 2x2 match (tests/reference_loop.py adds
agents that wait on providers, negotiation, the trembling hand and the records; the runner plays
2x2 matches on the one turn loop with pdbench.games.matrix's rules, held to this loop's rounds by
the tests); the batch core, `play_arrays`, is the one the runner's fast path plays
(pdbench.games.matrix.vectorised adds the trembling hand's draws, pdbench.runners.batch the
records). The conformance checker
compares the loop with the batch form.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from pdbench.core.actions import Action
from pdbench.core.game import Game
from pdbench.core.transcript import Observation, PlayedRound, Transcript
from pdbench.strategies.base import LastRounds, Policy


class BadMove(TypeError):
    """A policy answered something that is not a move: `act` not an Action, or `act_batch` not
    one bool per match."""


@dataclass(frozen=True)
class Moves:
    """The moves of one match, side a and side b."""

    a: list[Action]
    b: list[Action]

    @property
    def text(self) -> tuple[str, str]:
        """Both sides as strings such as "CCDC"."""
        return "".join(self.a), "".join(self.b)


# Both sides' moves for a round, given the rounds played so far and the round's number.
Choose = Callable[[Transcript, int], Awaitable[tuple[Action, Action]]]


async def play_rounds(
    game: Game,
    n_rounds: int,
    choose: Choose,
    played: Transcript,
    on_round: Callable[[PlayedRound], None] | None = None,
) -> None:
    """The match loop: each round, both sides' moves (`choose`), scored by the game and appended
    to `played`; `on_round` sees each round as it is played. The reference match
    (tests/reference_loop.py) chooses with its agents (awaiting those
    that wait on a provider, after a negotiation phase, with a trembling hand) and records each
    round; `play_loop` chooses with two policies. An exception from `choose` ends the match."""
    for round_index in range(1, n_rounds + 1):
        action_a, action_b = await choose(played, round_index)
        payoff_a, payoff_b = game.payoffs.payoffs(action_a, action_b)
        round_ = PlayedRound(round_index, action_a, action_b, payoff_a, payoff_b)
        played.append(round_)
        if on_round is not None:
            on_round(round_)


def run_at_once[T](coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine that never waits (policies answer at once) without an event loop."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return cast(T, done.value)
    coroutine.close()
    raise RuntimeError("the coroutine waited: run it in an event loop")


def play_loop(
    policy_a: Policy,
    policy_b: Policy,
    game: Game,
    n_rounds: int,
    *,
    seed_a: int | None = None,
    seed_b: int | None = None,
) -> Moves:
    """One match, round by round, as the match runner plays it (both policies are reset first)."""
    policy_a.reset(seed_a)
    policy_b.reset(seed_b)

    async def choose(transcript: Transcript, round_index: int) -> tuple[Action, Action]:
        move_a = policy_a.act(_observe(transcript, "a", policy_a))
        move_b = policy_b.act(_observe(transcript, "b", policy_b))
        for move in (move_a, move_b):
            if not isinstance(move, Action):
                raise BadMove(f"act returned {move!r} in round {round_index}, not an Action")
        return move_a, move_b

    transcript = Transcript()
    run_at_once(play_rounds(game, n_rounds, choose, transcript))
    return Moves([r.action_a for r in transcript.rounds], [r.action_b for r in transcript.rounds])


def _observe(transcript: Transcript, side: str, policy: Policy) -> Observation:
    return transcript.observe(
        side=side, history_window=policy.history_window, include_totals=policy.include_totals
    )


@dataclass(frozen=True)
class BatchArrays:
    """Many matches played to the same length, as arrays [match, round] (True = C): the moves
    played, each side's payoff and, with trembles, the moves intended."""

    coop_a: np.ndarray
    coop_b: np.ndarray
    payoff_a: np.ndarray
    payoff_b: np.ndarray
    intended_a: np.ndarray | None = None
    intended_b: np.ndarray | None = None


def payoff_tables(game: Game) -> tuple[np.ndarray, np.ndarray]:
    """Each side's payoff as table[a_defects, b_defects] (asymmetric games included)."""
    moves = (Action.C, Action.D)
    table = np.array([[game.payoffs.payoffs(a, b) for b in moves] for a in moves])
    return table[:, :, 0], table[:, :, 1]


def play_arrays(
    policy_a: Policy,
    policy_b: Policy,
    game: Game,
    longest: int,
    *,
    seeds_a: Sequence[int],
    seeds_b: Sequence[int],
    flips: tuple[np.ndarray, np.ndarray] | None = None,
) -> BatchArrays:
    """len(seeds_a) matches at once with the policies' batch forms, each `longest` rounds long.

    `flips` (with noise only) says per match and round whether each side's trembling hand flips
    its intended move: the flipped move is the one played, scored and shown to both policies
    afterwards, as in the match loop."""
    size = len(seeds_a)
    policy_a.reset_batch(seeds_a, longest)
    policy_b.reset_batch(seeds_b, longest)
    table_a, table_b = payoff_tables(game)
    coop_a = np.empty((size, longest), dtype=bool)
    coop_b = np.empty((size, longest), dtype=bool)
    intended_a = np.empty((size, longest), dtype=bool) if flips is not None else None
    intended_b = np.empty((size, longest), dtype=bool) if flips is not None else None
    pay_a = np.empty((size, longest))
    pay_b = np.empty((size, longest))
    last_a = last_b = None
    for t in range(longest):
        a = _batch_moves(policy_a.act_batch(t + 1, last_a), size, t + 1)
        b = _batch_moves(policy_b.act_batch(t + 1, last_b), size, t + 1)
        if flips is not None and intended_a is not None and intended_b is not None:
            intended_a[:, t], intended_b[:, t] = a, b
            a, b = a ^ flips[0][:, t], b ^ flips[1][:, t]
        coop_a[:, t], coop_b[:, t] = a, b
        defects_a, defects_b = (~a).astype(np.intp), (~b).astype(np.intp)
        pay_a[:, t] = table_a[defects_a, defects_b]
        pay_b[:, t] = table_b[defects_a, defects_b]
        last_a = LastRounds(own_coop=a, opponent_coop=b, own_payoff=pay_a[:, t])
        last_b = LastRounds(own_coop=b, opponent_coop=a, own_payoff=pay_b[:, t])
    return BatchArrays(coop_a, coop_b, pay_a, pay_b, intended_a, intended_b)


def play_batch(
    policy_a: Policy,
    policy_b: Policy,
    game: Game,
    lengths: Sequence[int],
    *,
    seeds_a: Sequence[int],
    seeds_b: Sequence[int],
) -> list[Moves]:
    """len(lengths) matches at once with the policies' batch forms; match i has lengths[i] rounds
    and seeds (seeds_a[i], seeds_b[i]). Every match is played to the longest length and cut."""
    played = play_arrays(policy_a, policy_b, game, max(lengths), seeds_a=seeds_a, seeds_b=seeds_b)
    return [
        Moves(_actions(played.coop_a[i, :length]), _actions(played.coop_b[i, :length]))
        for i, length in enumerate(lengths)
    ]


def _batch_moves(moves: object, size: int, round_index: int) -> np.ndarray:
    if not (isinstance(moves, np.ndarray) and moves.dtype == bool and moves.shape == (size,)):
        shown = (
            f"{moves.dtype} array of shape {moves.shape}"
            if isinstance(moves, np.ndarray)
            else repr(moves)
        )
        raise BadMove(
            f"act_batch returned {shown} in round {round_index}, not {size} bools (True = C)"
        )
    return moves


def _actions(cooperated: np.ndarray) -> list[Action]:
    return [Action.C if c else Action.D for c in cooperated.tolist()]
