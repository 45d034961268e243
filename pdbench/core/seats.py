"""The names of a game's player seats, the one source every part of pdbench reads them from.

Seats are named in order: "a" .. "z", then "za" .. "zz", then "zza" .. "zzz", and so on (the
k-th block of 26 is k "z"s before a letter), so that sorting seat names as text keeps their
order ("z" < "za" < "zb" < ... < "zz" < "zza") wherever they are sorted: a table's columns
(`contribution_share_za`), a dict's keys, pandas' groups. A game declares at most MAX_SEATS.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

# the seats a condition binds one by one, as agent_a .. agent_j (more by a population)
SEAT_LETTERS = "abcdefghij"
MAX_SEATS = 100  # the most player seats a game may declare ("a" .. "zzzv")
SEAT_PATTERN = "z*[a-z]"  # a regular expression matching a player seat's name (a column suffix)


def player_seats(count: int) -> tuple[str, ...]:
    """The first `count` player seats: "a", "b", ..., "z", "za", ..., "zz", "zza", ..."""
    if not 1 <= count <= MAX_SEATS:
        raise ValueError(f"a game seats 1 to {MAX_SEATS} players, not {count}")
    return tuple("z" * (index // 26) + chr(ord("a") + index % 26) for index in range(count))


def seat_index(seat: str) -> int:
    """The position of player seat `seat` from 0: "a" -> 0, "z" -> 25, "za" -> 26."""
    if not re.fullmatch(SEAT_PATTERN, seat):
        raise ValueError(f"{seat!r} is not a player seat")
    return 26 * (len(seat) - 1) + ord(seat[-1]) - ord("a")


def seats_among(names: Iterable[str]) -> tuple[str, ...]:
    """The player seats among `names` (seat names and others: a third role, "<role>:a"), in
    order."""
    return tuple(sorted(name for name in set(names) if re.fullmatch(SEAT_PATTERN, name)))


def stored_seat_agents(condition: Mapping[str, Any]) -> dict[str, Any]:
    """The agent of each player seat of a stored condition (its config as the manifest keeps
    it), by field: agent_a, agent_b, ... from the seats' own fields, or from its `population`
    (entries {agent, count} filling the seats in order)."""
    population = condition.get("population")
    if population:
        agents = [entry["agent"] for entry in population for _ in range(int(entry["count"]))]
        seats = player_seats(len(agents))
        return {f"agent_{seat}": agent for seat, agent in zip(seats, agents, strict=True)}
    return {
        f"agent_{seat}": condition[f"agent_{seat}"]
        for seat in SEAT_LETTERS
        if condition.get(f"agent_{seat}") is not None
    }
