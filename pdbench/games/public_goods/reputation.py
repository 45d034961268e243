"""What CoopEval's reputation mechanism shows a player of public goods before a round
(`reputation_depth` k > 0): for itself and each member of its new group, their rounds among the
last k (round_state's `reputation`, docs/public-goods.md), each entry's move its `contribution`
and its points the round's `earnings`. The tree itself is the shared `pdbench.games.
reputation_tree` (a 2x2 game's `mechanism=reputation` reads the same code); this module binds it
to public goods' words.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

from pdbench.games import reputation_tree as tree
from pdbench.games.reputation_tree import YOU, Played, pseudonyms, window

__all__ = [
    "FIELDS",
    "YOU",
    "Played",
    "co_players_shown_share",
    "pseudonyms",
    "shown_reputation",
    "window",
]

FIELDS = tree.Fields(move="contribution", points="earnings")


def shown_reputation[P: Hashable](
    rounds: Sequence[Played[P]],
    current: int,
    depth: int,
    order: int,
    listed: Sequence[tuple[P, str]],
    name: Callable[[P], str],
) -> dict[str, Any]:
    """round_state's `reputation` before round `current` (`reputation_tree.shown_reputation`)
    in public goods' words."""
    return tree.shown_reputation(rounds, current, depth, order, listed, name, FIELDS)


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
