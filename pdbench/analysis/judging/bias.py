"""Order and length bias of a decider: how often the side that spoke first wins, and how often
the side with the longer arguments wins. With comparable players either share should be near
50 %; a decider that always picks the first speaker is 100 % order-biased.

Input: one row per verdict with `winner_seat`, `first_speaker` ("a" / "b") and, for length,
`length_a` and `length_b` (characters of each player's arguments in that round). Rounds whose
lengths are equal say nothing about length and are left out of that share (counted as `ties`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from pdbench.analysis.judging.proportions import Share, share


def _table(verdicts: pd.DataFrame | list[dict[str, Any]], columns: set[str]) -> pd.DataFrame:
    table = pd.DataFrame(verdicts)
    missing = columns - set(table.columns)
    if missing:
        raise ValueError(f"the verdict table lacks the columns {sorted(missing)}")
    return table


def order_bias(verdicts: pd.DataFrame | list[dict[str, Any]], confidence: float = 0.95) -> Share:
    """The share of verdicts won by the first speaker."""
    table = _table(verdicts, {"winner_seat", "first_speaker"})
    wins = int((table["winner_seat"] == table["first_speaker"]).sum())
    return share(wins, len(table), confidence)


@dataclass(frozen=True)
class LengthBias:
    longer_wins: Share  # among rounds with unequal lengths
    ties: int

    def __str__(self) -> str:
        return (
            f"the longer side wins {self.longer_wins} ({self.ties} rounds of equal length left out)"
        )


def length_bias(
    verdicts: pd.DataFrame | list[dict[str, Any]], confidence: float = 0.95
) -> LengthBias:
    """The share of verdicts won by the side with more characters of argument."""
    table = _table(verdicts, {"winner_seat", "length_a", "length_b"})
    unequal = table[table["length_a"] != table["length_b"]]
    longer = (unequal["length_a"] > unequal["length_b"]).map({True: "a", False: "b"})
    wins = int((unequal["winner_seat"] == longer).sum())
    return LengthBias(share(wins, len(unequal), confidence), len(table) - len(unequal))
