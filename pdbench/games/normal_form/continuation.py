"""A match's length under `continuation` p (repetition, reputation): the classic random stop of
a repeated game. After each round another follows with chance p, so the length L is geometric,
P(L > k) = p^k, mean 1 / (1 - p), and `rounds` caps it (the length is min(L, rounds), its mean
(1 - p^rounds) / (1 - p)): `rounds` stays the most rounds a match plays, which validate and the
plan's call bound read (`Options.fixed_length`, an upper bound then).

The length is drawn once per match from the match's seed, on a stream of its own: `rounds` - 1
uniform draws u_1, u_2, ..., the match going on after round k while u_k < p. No player is shown
the seed or the length (round_state and the prompt tell the chance, `round_limit` is null), so
no agent can tell the last round from any other. Without `continuation` a match plays `rounds`.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

_LENGTH = 5  # the seeded stream's purpose (rules.py's are 1, 2; matching's 3, 4)


@lru_cache(maxsize=4096)
def match_length(seed: int, continuation: float | None, rounds: int) -> int:
    """The rounds a match of seed `seed` plays (module docstring)."""
    if continuation is None or rounds == 1:
        return rounds
    rng = np.random.Generator(np.random.PCG64([seed, _LENGTH]))
    stops = np.flatnonzero(rng.random(rounds - 1) >= continuation)
    return int(stops[0]) + 1 if stops.size else rounds
