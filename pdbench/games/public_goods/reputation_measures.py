"""How a player's contribution follows the reputation it was shown (CoopEval's reputation,
`reputation_depth` > 0), from the stored rounds alone: the reputation each round showed is
rebuilt from the stored groups, contributions and earnings with the same reader the observation
uses (`reputation.shown_reputation`), so a measure is of what the player saw.

Per player, over its rounds in which at least one co-player had a round shown:
- the group's shown reputation x: the co-players' mean shown contribution share
  (`reputation.co_players_shown_share`: each co-player's own rounds of the window, pooled), and
  its own contribution share y that round;
- `reputation_gap`: its mean y facing a group with x >= 1/2 minus its mean y facing one with
  x < 1/2 (None without rounds on both sides): about 1 for a player that gives to reputable
  groups only, 0 for one that ignores reputation;
- `reputation_slope`: the OLS slope of y on x (None when x never varied): about 1 for a player
  giving in proportion to the shown share (`pgg_reputation_reciprocator`).
Both None in a match without reputation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pdbench.games.public_goods.reputation import (
    YOU,
    Played,
    co_players_shown_share,
    shown_reputation,
)
from pdbench.games.public_goods.schedule import fit
from pdbench.games.public_goods.stored import StoredRound

HIGH_REPUTATION = 0.5  # a group's shown share at or above it counts as high


def shown_to(
    rounds: Sequence[StoredRound],
    options: Mapping[str, Any],
    seat: str,
    index: int,
    names: Mapping[str, str],
) -> dict[str, Any]:
    """round_state's `reputation` as `seat` saw it before `rounds[index]`, rebuilt from the
    stored rounds; `names` gives every other seat's "Agent #n" (any stable name will do for a
    measure)."""
    now = rounds[index]
    group = now.group_of(seat)
    listed = [(seat, now.labels[seat])] + [(s, now.labels[s]) for s in group if s != seat]
    played = [Played(r.round_number, r.groups, r.contributions, r.earnings) for r in rounds]
    return shown_reputation(
        played[:index],
        now.round_number,
        int(options.get("reputation_depth", 0)),
        int(options.get("reputation_order", 1)),
        listed,
        lambda s: YOU if s == seat else names[s],
    )


def faced(
    rounds: Sequence[StoredRound], options: Mapping[str, Any], seat: str
) -> list[tuple[float, float]]:
    """(the group's shown reputation x, the seat's contribution share y), one per round in
    which some co-player had a round shown."""
    depth = int(options.get("reputation_depth", 0))
    if not depth:
        return []
    endowment = float(options["endowment"])
    first_order = {**options, "reputation_order": 1}  # the co-players' own rounds suffice
    itself = {s: s for s in rounds[0].labels} if rounds else {}
    points = []
    for index, now in enumerate(rounds):
        shown = shown_to(rounds, first_order, seat, index, itself)
        share = co_players_shown_share({"reputation": shown, "endowment": endowment})
        if share is not None:
            points.append((share, now.contributions[seat] / endowment))
    return points


def reputation_row(
    rounds: Sequence[StoredRound], options: Mapping[str, Any], seat: str
) -> dict[str, float | None]:
    """The seat's `reputation_gap` and `reputation_slope` (module docstring)."""
    points = faced(rounds, options, seat)
    high = [y for x, y in points if x >= HIGH_REPUTATION]
    low = [y for x, y in points if x < HIGH_REPUTATION]
    gap = sum(high) / len(high) - sum(low) / len(low) if high and low else None
    return {"reputation_gap": gap, "reputation_slope": fit(points).slope}
