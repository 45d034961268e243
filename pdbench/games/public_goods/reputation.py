"""What CoopEval's reputation mechanism shows a player before a round (`reputation_depth` k > 0):
for itself and each member of its new group, their rounds among the last k (round_state's
`reputation`, docs/public-goods.md). Read from Xiao215/CoopEval@8559e85
src/coopeval/mechanisms/reputation.py (`_format_reputation`, `_format_player_history_recursive`):

- The window is the global rounds [t - k, t - 1] for round t (every player plays every round).
- Each listed player's rounds in the window, each with its contribution and the round's
  earnings, and every co-player it met there with theirs (CoopEval: "played A1, received 1pts"
  for both sides).
- `reputation_order` levels (CoopEval's `max_recursion_depth`: 1 for Reputation-, 3 for
  Reputation+): at level l < order each co-player met in a round r is expanded with its own
  rounds of the window before r (`idx < encounter_round`), to `order` levels in all.
- Players are named "You" (the observer, wherever it appears) or "Agent #n", a number fixed for
  the whole match. CoopEval's n is the player's index in its population list, which says nothing
  an agent could use; a seat letter here is the runner's binding, never shown, so n is a seeded
  per-match permutation of the population (`pseudonyms`), not the seat's position.

Every function is generic over the player key (a population index in the rules, a seat id when
the measures read the stored rounds), so the observation and the measures read the same rounds
the same way; the tests recompute it independently from the stored records.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pdbench.games.public_goods.matching import stream

_PSEUDONYMS = 6  # the seeded stream's purpose (matching.py's are 1-5)
YOU = "You"


@dataclass(frozen=True)
class Played[P: Hashable]:
    """One finished round as reputation reads it: the groups (members in label order), each
    player's contribution and the round's earnings."""

    round_number: int
    groups: Sequence[Sequence[P]]
    contributions: Mapping[P, int]
    earnings: Mapping[P, float]

    def group_of(self, player: P) -> Sequence[P]:
        return next(group for group in self.groups if player in group)


def pseudonyms(seed: int, population: int) -> tuple[str, ...]:
    """Each population index's name for the match: "Agent #1" .. "Agent #<population>"."""
    order = stream(seed, _PSEUDONYMS, 0).permutation(population)
    return tuple(f"Agent #{int(n) + 1}" for n in order)


def window(current: int, depth: int) -> tuple[int, int]:
    """The rounds shown before round `current`: [max(1, current - depth), current - 1]."""
    return max(1, current - depth), current - 1


def _entries[P: Hashable](
    rounds: Sequence[Played[P]],
    player: P,
    before: int,
    first: int,
    level: int,
    order: int,
    name: Callable[[P], str],
) -> list[dict[str, Any]]:
    """`player`'s rounds from `first` to before `before`, oldest first; co-players expanded
    while `level` < `order`."""
    found = []
    for played in rounds:
        if not first <= played.round_number < before:
            continue
        co_players = []
        for other in played.group_of(player):
            if other == player:
                continue
            seen: dict[str, Any] = {
                "agent": name(other),
                "contribution": played.contributions[other],
                "earnings": played.earnings[other],
            }
            if level < order:
                seen["history"] = _entries(
                    rounds, other, played.round_number, first, level + 1, order, name
                )
            co_players.append(seen)
        found.append(
            {
                "round_number": played.round_number,
                "contribution": played.contributions[player],
                "earnings": played.earnings[player],
                "co_players": co_players,
            }
        )
    return found


def shown_reputation[P: Hashable](
    rounds: Sequence[Played[P]],
    current: int,
    depth: int,
    order: int,
    listed: Sequence[tuple[P, str]],
    name: Callable[[P], str],
) -> dict[str, Any]:
    """round_state's `reputation` before round `current`: `listed` are (player, its label this
    round), the observer first; `name` gives "You" or "Agent #n"; `rounds` the finished rounds
    (only those in the window are read)."""
    first, last = window(current, depth)
    return {
        "rounds": [first, last] if first <= last else [],
        "players": [
            {
                "label": label,
                "agent": name(player),
                "history": _entries(rounds, player, current, first, 1, order, name),
            }
            for player, label in listed
        ],
    }


def co_players_shown_share(round_state: Mapping[str, Any]) -> float | None:
    """The mean contribution share (of the endowment) of the co-players' own shown rounds (the
    first level, each round counted once), None when none of them has a round shown or nothing
    is shown: what the reputation players and the measures condition on."""
    reputation = round_state.get("reputation")
    endowment = round_state.get("endowment")
    if not reputation or not endowment:
        return None
    shares = [
        entry["contribution"] / endowment
        for listed in reputation["players"]
        if listed["agent"] != YOU
        for entry in listed["history"]
    ]
    return sum(shares) / len(shares) if shares else None
