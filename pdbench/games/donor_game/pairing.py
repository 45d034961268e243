"""Who is shown as whom and who donates to whom: pure functions of the match's seed and the
round, so a match replays (and resumes) with the same labels and pairs.

- Labels. Each seat is shown as "P1" .. "PN", a seeded permutation drawn once a match (a
  player never sees a seat id; the label is the name the others know it by all match, as
  Vallinder & Hughes's agents keep their names, so a reputation follows its player).
- Pairs. Every round every player donates once and receives once: the round's donor -> recipient
  map is a uniformly drawn derangement of the population (a permutation with no fixed point,
  by rejection from seeded permutations), drawn afresh each round from (seed, round). Two
  players may donate to each other in one round and may meet again. No agent can derive it: the
  seed is never shown.
"""

from __future__ import annotations

import numpy as np

_LABELS, _PAIRS = 1, 2  # purposes of the seeded streams


def stream(seed: int, purpose: int, number: int) -> np.random.Generator:
    """The seeded random stream of one purpose in one round of a match."""
    return np.random.Generator(np.random.PCG64([seed, purpose, number]))


def draw_labels(seed: int, players: int) -> tuple[str, ...]:
    """Each seat's label ("P1" .. "PN") by population index, for the whole match."""
    order = stream(seed, _LABELS, 0).permutation(players)
    return tuple(f"P{int(k) + 1}" for k in order)


def draw_recipients(seed: int, round_number: int, players: int) -> tuple[int, ...]:
    """Round `round_number`'s recipient of each donor (population indices): a derangement."""
    rng = stream(seed, _PAIRS, round_number)
    while True:
        order = rng.permutation(players)
        if not np.any(order == np.arange(players)):
            return tuple(int(k) for k in order)
