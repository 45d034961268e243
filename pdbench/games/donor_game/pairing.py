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
- Halves (`pairing: halves`, Vallinder & Hughes 2024; aronvallinder/llm-donor-game@c53df27,
  Donor_Game_with_Cultural_Evolution.ipynb): each generation the players are shuffled (ipynb
  lines 290, 1086) and split into halves A and B (`bipartiteRoundRobin`, lines 302-319). In
  round i (from 0) of the first N / 2, A's k-th player is paired with B's (k - i) mod (N / 2)-th
  (B "rotated" by i, line 312), A donating when i is even and B when it is odd (the toggle,
  lines 313-318); rounds N / 2 + 1 .. N replay those pairs with donor and recipient swapped
  (`extendRounds`, lines 330-337; so a game is N rounds). A generation's second game replays
  its first's rounds with every pair reversed (line 679); here every even-numbered game does
  (V&H play two). Every player is donor or recipient every round, and donates N / 2 times a
  game. The shuffle is drawn from (seed, generation), so no agent can derive it.
"""

from __future__ import annotations

import numpy as np

_LABELS, _PAIRS, _HALVES = 1, 2, 4  # purposes of the seeded streams (3: generations)


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


def first_half_donates(players: int, game: int, round_in_game: int) -> bool:
    """Under `pairing: halves`, whether half A (else B) donates in round `round_in_game` (from
    1) of a generation's game `game` (the module docstring's schedule, V&H's)."""
    base = (round_in_game - 1) % (players // 2)  # the bipartiteRoundRobin round it replays
    donates = base % 2 == 0  # the toggle: A donates in its even rounds (from 0)
    if round_in_game > players // 2:  # extendRounds: the same pairs, roles swapped
        donates = not donates
    return donates if game % 2 else not donates  # the second game: every pair reversed


def draw_halves(
    seed: int, players: int, generation: int, game: int, round_in_game: int
) -> tuple[int | None, ...]:
    """Under `pairing: halves`, round `round_in_game` (from 1, at most `players`) of game
    `game` of `generation`: each player's recipient when it donates, None when it receives."""
    half = players // 2
    order = [int(k) for k in stream(seed, _HALVES, generation).permutation(players)]
    group_a, group_b = order[:half], order[half:]
    base = (round_in_game - 1) % half
    a_donates = first_half_donates(players, game, round_in_game)
    recipients: list[int | None] = [None] * players
    for k, a in enumerate(group_a):
        b = group_b[(k - base) % half]  # B rotated by `base` (ipynb line 312)
        donor, recipient = (a, b) if a_donates else (b, a)
        recipients[donor] = recipient
    return tuple(recipients)
