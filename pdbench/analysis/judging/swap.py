"""Position swap: each scenario played twice with the players' sides swapped (a debate game's
`swap_sides`). A decider that decides on the arguments' side gives the win to the same side
both times; one that follows the player (its order, its style, its name) gives it to the same
player both times. With two sides exactly one of the two holds for every pair.

Input: one row per verdict with the columns `pair` (what identifies the scenario: e.g. match and
scenario number), `winner_seat` ("a" / "b") and `winner_side` ("for" / a university); each pair
has exactly two rows, whose sides were swapped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from pdbench.analysis.judging.proportions import Share, share


@dataclass(frozen=True)
class SwapReport:
    pairs: int
    follows_player: Share  # the same player won both rounds of a pair
    follows_side: Share  # the same side won both rounds

    def __str__(self) -> str:
        return (
            f"{self.pairs} swapped pairs: verdict follows the player {self.follows_player}; "
            f"follows the side {self.follows_side}"
        )


def position_swap(
    verdicts: pd.DataFrame | list[dict[str, Any]], confidence: float = 0.95
) -> SwapReport:
    table = pd.DataFrame(verdicts)
    missing = {"pair", "winner_seat", "winner_side"} - set(table.columns)
    if missing:
        raise ValueError(f"the verdict table lacks the columns {sorted(missing)}")
    sizes = table.groupby("pair").size()
    if (sizes != 2).any():
        raise ValueError(f"every pair needs two verdicts; {list(sizes[sizes != 2].index)} do not")
    same_seat = table.groupby("pair")["winner_seat"].nunique() == 1
    same_side = table.groupby("pair")["winner_side"].nunique() == 1
    if (same_seat & same_side).any():
        raise ValueError("a pair whose sides were not swapped: the same seat and side won twice")
    pairs = len(same_seat)
    return SwapReport(
        pairs=pairs,
        follows_player=share(int(same_seat.sum()), pairs, confidence),
        follows_side=share(int(same_side.sum()), pairs, confidence),
    )
