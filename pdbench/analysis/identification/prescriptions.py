"""SFEM's candidates and what each would have played: every candidate strategy replayed on the
observed history of every match (pdbench.analysis.identification.sfem fits the mixture to these prescriptions).

Candidates are the registered policies of pdbench.strategies, replayed through their numpy batch
form (`reset_batch` / `act_batch`) on the observed moves: at round t each candidate sees a
`LastRounds` built from what really happened at t-1, so a rule with memory (GRIM's trigger) updates
from the real history, not from what it would have played. Only deterministic policies qualify: a
policy flagged `stochastic`, or whose prescriptions change with its seeds, is refused.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pdbench.analysis.identification.moves import MatchBatch
from pdbench.core.errors import ConfigError
from pdbench.core.game import Game
from pdbench.core.payoff import PayoffMatrix
from pdbench.strategies import POLICIES, LastRounds, Policy, make_policy

# The candidate set of issue 17. Only the registered ones are used (`default_candidates`): stft, tf2t
# and alternator join as soon as pdbench.strategies registers them.
DEFAULT_CANDIDATES = ("allc", "alld", "tft", "stft", "grim", "wsls", "tf2t", "alternator")


def default_candidates() -> tuple[list[str], list[str]]:
    """(used, missing): DEFAULT_CANDIDATES split by whether pdbench.strategies registers them."""
    used = [name for name in DEFAULT_CANDIDATES if name in POLICIES]
    return used, [name for name in DEFAULT_CANDIDATES if name not in POLICIES]


def _as_game(game: Game | PayoffMatrix) -> Game:
    if isinstance(game, Game):
        return game
    return Game(
        id="analysis",
        arena_id="analysis",
        description="payoffs given to the analysis",
        payoffs=game,
        is_prisoners_dilemma=False,
    )


def _play_along(policy: Policy, batch: MatchBatch, game: Game, seeds: list[int]) -> np.ndarray:
    """What `policy` prescribes in every round of every match, given the observed history."""
    p = game.payoffs
    own_payoff = np.array([[p.R, p.S], [p.T, p.P]])  # [own defected, opponent defected]
    policy.reset_batch(seeds, batch.longest)
    prescribed = np.empty((batch.n_matches, batch.longest), dtype=bool)
    last = None
    for t in range(batch.longest):
        prescribed[:, t] = np.asarray(policy.act_batch(t + 1, last), dtype=bool)
        own, opponent = batch.own[:, t].copy(), batch.opponent[:, t].copy()
        last = LastRounds(
            own_coop=own,
            opponent_coop=opponent,
            own_payoff=own_payoff[(~own).astype(np.intp), (~opponent).astype(np.intp)],
        )
    return prescribed


def candidate_prescriptions(
    batch: MatchBatch, candidates: Sequence[str], game: Game | PayoffMatrix
) -> np.ndarray:
    """(n_candidates, n_matches, longest) bool: each candidate's move in every observed round.

    Raises ConfigError for an unknown name (with "did you mean") or a stochastic policy."""
    game = _as_game(game)
    valid = batch.valid()
    prescriptions = np.empty((len(candidates), batch.n_matches, batch.longest), dtype=bool)
    for k, name in enumerate(candidates):
        policy = make_policy(name, game)
        if getattr(policy, "stochastic", False):
            raise ConfigError(
                f'"{name}" is stochastic; SFEM candidates must be deterministic rules',
                field="sfem.candidates",
            )
        prescriptions[k] = _play_along(policy, batch, game, list(range(batch.n_matches)))
        # A deterministic rule prescribes the same moves whatever its seeds.
        other_seeds = list(range(batch.n_matches, 2 * batch.n_matches))
        replay = _play_along(make_policy(name, game), batch, game, other_seeds)
        if np.any((replay != prescriptions[k]) & valid):
            raise ConfigError(
                f'"{name}" plays differently with other seeds; SFEM candidates must be '
                "deterministic rules",
                field="sfem.candidates",
            )
    return prescriptions


def indistinguishable(
    prescriptions: np.ndarray, valid: np.ndarray, names: Sequence[str]
) -> tuple[tuple[str, ...], ...]:
    """Groups of candidates that prescribed the same move in every observed (`valid`) round."""
    groups: list[list[int]] = []
    for k in range(len(names)):
        for group in groups:
            if np.array_equal(prescriptions[k][valid], prescriptions[group[0]][valid]):
                group.append(k)
                break
        else:
            groups.append([k])
    return tuple(tuple(names[k] for k in group) for group in groups if len(group) > 1)
