"""The verdict table the judge measures read, from a debate game's stored decisions: each
decision's `revealed` record (`DebateGame.revealed`: decision, sides, first speaker, scenario,
lengths) with the match it belongs to."""

from __future__ import annotations

from typing import Any

import pandas as pd


def verdict_table(decisions: list[tuple[Any, dict[str, Any]]]) -> pd.DataFrame:
    """One row per (match, revealed decision): `pair` (match and scenario number: the two rounds
    of a side swap share it), `winner_seat`, `winner_side`, `first_speaker`, `length_a`,
    `length_b`."""
    rows = [
        {
            "match": match,
            "pair": f"{match}/{shown['scenario']['number']}",
            "winner_seat": shown["decision"]["winner_seat"],
            "winner_side": shown["decision"]["winner_side"],
            "first_speaker": shown["first_speaker"],
            "length_a": shown["lengths"]["a"],
            "length_b": shown["lengths"]["b"],
        }
        for match, shown in decisions
    ]
    return pd.DataFrame(rows)
