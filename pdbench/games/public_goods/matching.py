"""Who plays with whom, under which label, and who speaks when: pure functions of the match's
seed and the round, so a match replays (and resumes) with the same groups and labels.

- Seats. The population is `players x groups` seats, named as every game's player seats
  (`pdbench.games.base.player_seats`: "a" .. "z", "za", ...), the ids the runner binds agents to. A player never sees a seat id, only labels.
- Labels. Each round every group's members are shown as "P1" .. "PN" (N the group size), a
  seeded permutation per group (under `seat_groups` each member's position). Under `partners` the groups and labels are drawn once (round 0)
  and kept all match; under `strangers` and `perfect_strangers` both are drawn again each round,
  so a label says nothing about who a player was last round.
- `strangers`: each round a seeded permutation of the population cut into groups (two players
  may meet again).
- `perfect_strangers`: no two players share a group twice within a block of `block` rounds
  (Fehr & Gaechter 2002's "perfect stranger" matching). The population is laid on a grid of N
  rows and G columns (a seeded assignment, fresh each block); in the block's t-th round
  (t = 0, 1, ...) group g holds the player of row r in column (g + r * t) mod G. Two players of
  rows r1 != r2 meet in rounds t1 != t2 of a block only if G divides (r2 - r1) * (t2 - t1),
  so the design is valid when G divides no product d * e with 1 <= d < N and 1 <= e < block
  (any prime G >= max(N, block) will do); `perfect_stranger_problem` says when it is not.
- `seat_groups`: CoopEval's reputation matching (`RandomMatcher`, utils/
  match_scheduler_reputation.py@8559e85:20-56): seat p always plays position p mod N; each round
  every position's seats are shuffled (a seeded permutation per position) and group g holds the
  g-th of each, so a group has one player of each position, and a player's label is its
  position's (P1 for seats a, a + N, ...), as CoopEval shows "Player {seat}".
- Talk order. `rotate`: the group's labels in order, starting one further each round (P1 opens
  round 1, P2 round 2, ...), as split-or-steal's talk alternates its first speaker; `shuffle`: a
  seeded order per group per round (what pgg_bench's logs show).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np

Matching = Literal["partners", "strangers", "perfect_strangers", "seat_groups"]
TalkOrder = Literal["rotate", "shuffle"]
MATCHINGS: tuple[str, ...] = ("partners", "strangers", "perfect_strangers", "seat_groups")
TALK_ORDERS: tuple[str, ...] = ("rotate", "shuffle")

# purposes of the seeded streams (each a pure function of (seed, purpose, round))
_GROUPS, _LABELS, _TALK, _GRID, _PUNISH_ORDER = 1, 2, 3, 4, 5


def stream(seed: int, purpose: int, number: int) -> np.random.Generator:
    """The seeded random stream of one purpose in one round (or block) of a match."""
    return np.random.Generator(np.random.PCG64([seed, purpose, number]))


def label_names(size: int) -> tuple[str, ...]:
    return tuple(f"P{k}" for k in range(1, size + 1))


@dataclass(frozen=True)
class RoundGroups:
    """One round's groups: each group's members (population indices) in label order, and each
    member's label."""

    groups: tuple[tuple[int, ...], ...]
    labels: tuple[str, ...]  # by population index
    # by population index: its group (derived from `groups`)
    group_index: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        index = [0] * len(self.labels)
        for g, members in enumerate(self.groups):
            for player in members:
                index[player] = g
        object.__setattr__(self, "group_index", tuple(index))

    def group_of(self, player: int) -> int:
        return self.group_index[player]


def perfect_stranger_problem(size: int, groups: int, block: int) -> str | None:
    """Why the grid design cannot keep `size`-player groups of a `groups`-group population
    apart for `block` rounds (None: it can), naming the fewest groups that would."""
    bad = [(d, e) for d in range(1, size) for e in range(1, block) if (d * e) % groups == 0]
    if not bad:
        return None
    fewest = next(
        g
        for g in range(size, size * block + 2)
        if all((d * e) % g for d in range(1, size) for e in range(1, block))
    )
    return (
        f"perfect strangers with groups of {size} over blocks of {block} rounds need a number "
        f"of groups that divides no product d*e (d < {size}, e < {block}); {groups} does not "
        f"(the fewest that works is {fewest}: {fewest * size} players)"
    )


def _members(
    seed: int, round_number: int, size: int, groups: int, matching: Matching, block: int
) -> tuple[tuple[int, ...], ...]:
    """Each group's members (unordered) in round `round_number`."""
    if matching == "perfect_strangers":
        block_index, t = divmod(round_number - 1, block)
        cell_of = stream(seed, _GRID, block_index).permutation(size * groups)
        grid = cell_of.reshape(size, groups)  # grid[row, column] -> population index
        return tuple(
            tuple(int(grid[row, (g + row * t) % groups]) for row in range(size))
            for g in range(groups)
        )
    if matching == "seat_groups":
        rng = stream(seed, _GROUPS, round_number)
        shuffled = [rng.permutation(np.arange(k, size * groups, size)) for k in range(size)]
        return tuple(tuple(int(shuffled[k][g]) for k in range(size)) for g in range(groups))
    number = 0 if matching == "partners" else round_number
    order = stream(seed, _GROUPS, number).permutation(size * groups)
    return tuple(tuple(int(p) for p in order[g * size : (g + 1) * size]) for g in range(groups))


def draw_round(
    seed: int, round_number: int, size: int, groups: int, matching: Matching, block: int
) -> RoundGroups:
    """The groups and labels of round `round_number` (from 1)."""
    members = _members(seed, round_number, size, groups, matching, block)
    number = 0 if matching == "partners" else round_number
    rng = stream(seed, _LABELS, number)
    labels = [""] * (size * groups)
    ordered = []
    names = label_names(size)
    for group in members:
        # by_label[k] is "P{k+1}"; under seat_groups a group is in position order already
        positions = range(size) if matching == "seat_groups" else rng.permutation(size)
        by_label = [group[int(i)] for i in positions]
        for k, player in enumerate(by_label):
            labels[player] = names[k]
        ordered.append(tuple(by_label))
    return RoundGroups(groups=tuple(ordered), labels=tuple(labels))


def talk_order(
    seed: int, round_number: int, draw: RoundGroups, order: TalkOrder
) -> tuple[tuple[int, ...], ...]:
    """Per group, its members in the order they speak in round `round_number`."""
    if order == "shuffle":
        rng = stream(seed, _TALK, round_number)
        return tuple(
            tuple(group[int(i)] for i in rng.permutation(len(group))) for group in draw.groups
        )
    return tuple(
        tuple(group[(k + round_number - 1) % len(group)] for k in range(len(group)))
        for group in draw.groups
    )


def punish_order(seed: int, round_number: int, draw: RoundGroups) -> tuple[tuple[int, ...], ...]:
    """Per group, the order its members' punishments are applied in when caps make the order
    matter (pgg_bench applies them one after another; its logs show no fixed order)."""
    rng = stream(seed, _PUNISH_ORDER, round_number)
    return tuple(tuple(group[int(i)] for i in rng.permutation(len(group))) for group in draw.groups)
