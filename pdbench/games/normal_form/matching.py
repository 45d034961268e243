"""How a normal-form population under `mechanism: reputation` is re-matched into groups every
round (option `matching`; `reputation` says what each player is then shown). Population index p
always plays position p mod `players` (CoopEval's seat groups: seats a, c, e, ... Player 1 of a
2x2 game, b, d, f, ... Player 2), and every group holds one player of each position, in position
order.

- `random` (the default). Each round every seat group is shuffled by a seeded
  permutation of the match's seed and that round (`draw_groups`, a stream no agent can derive:
  the seed is never shown), and group i is the i-th member of each (CoopEval: `random.sample`
  per seat group, group i from the i-th of each; no constraint against meeting again).
- `round_robin` (`rotate_groups`). Each seat group (position k = 0 .. P-1, n =
  `groups` members) is put once per match in a seeded order o_k (a permutation of the match's
  seed, its own stream). Round r (1, 2, ...) forms group i (0 .. n-1) of o_0[i] and, for every
  other position k, o_k[(i + k (r - 1)) mod n]. So in a 2-player game the row player o_0[i]
  meets the column player o_1[(i + r - 1) mod n]: every player meets every player of the other
  seat group once in n consecutive rounds, and the cycle repeats. With P positions, players of
  positions k and l meet when (l - k)(r - 1) takes each value mod n once, which holds exactly
  when n shares no factor with 1 .. P-1 (`round_robin_problem` refuses any other n): then every
  pair of players of different positions meets once in each cycle of n rounds and never twice
  in one.

Both are drawn from the match's seed, which no player is shown, so no agent can derive a round's
groups before the round opens (`pdbench check-game`'s redraw of the seed leaves every
observation unchanged).
"""

from __future__ import annotations

import math

import numpy as np

_MATCHING = 3  # the seeded streams' purposes (rules.py's are 1, 2)
_ROTATION = 4
MATCHINGS: tuple[str, ...] = ("random", "round_robin")


def draw_groups(
    seed: int, round_number: int, players: int, groups: int
) -> tuple[tuple[int, ...], ...]:
    """Round `round_number`'s groups, each in position order (module docstring)."""
    rng = np.random.Generator(np.random.PCG64([seed, _MATCHING, round_number]))
    shuffled = [
        [int(p) for p in rng.permutation(np.arange(position, players * groups, players))]
        for position in range(players)
    ]
    return tuple(tuple(shuffled[k][i] for k in range(players)) for i in range(groups))


def rotate_groups(
    seed: int, round_number: int, players: int, groups: int
) -> tuple[tuple[int, ...], ...]:
    """Round `round_number`'s groups under round_robin, each in position order (module
    docstring): the seat groups' seeded orders, position k rotated by k (r - 1)."""
    rng = np.random.Generator(np.random.PCG64([seed, _ROTATION]))
    orders = [
        [int(p) for p in rng.permutation(np.arange(position, players * groups, players))]
        for position in range(players)
    ]
    step = round_number - 1
    return tuple(
        tuple(orders[k][(i + k * step) % groups] for k in range(players)) for i in range(groups)
    )


def round_robin_problem(players: int, groups: int) -> str | None:
    """Why round_robin cannot give every pair of positions one meeting per cycle of `groups`
    rounds (module docstring), or None."""
    shared = [k for k in range(2, players) if math.gcd(k, groups) != 1]
    if not shared:
        return None
    return (
        f"round_robin with {players} players a group needs a number of groups sharing no factor "
        f"with 2 .. {players - 1} (so that every pair meets once a cycle), got {groups}"
    )


def groups_of(
    matching: str, seed: int, round_number: int, players: int, groups: int
) -> tuple[tuple[int, ...], ...]:
    """Round `round_number`'s groups under `matching` (module docstring)."""
    draw = rotate_groups if matching == "round_robin" else draw_groups
    return draw(seed, round_number, players, groups)
