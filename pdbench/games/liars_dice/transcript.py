"""A Liar's Dice match as a transcript, from its stored turn lines (rounds.jsonl, one line per
turn: round, turn, seats, actions, revealed): each round's moves in order, with the probability of
each bid given what its bidder could see (its own dice, the count of its opponent's), and each
showdown: both hands, the challenged bid, how many dice met it, who lost a die.

Hidden information: dice come only from a showdown's `revealed` record. A round still in play
(no showdown stored yet) shows its moves alone: no dice, and no probability, since a bid's
probability given its bidder's dice would tell what those dice are.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

from pdbench.games.liars_dice.odds import bid_probability
from pdbench.games.liars_dice.rules import Bid, LiarsDiceRules

MOVE_COLUMNS = ("round", "turn", "player", "move", "probability")
SHOWDOWN_COLUMNS = (
    "round",
    "dice_a",
    "dice_b",
    "bid",
    "bidder",
    "challenger",
    "matching",
    "met",
    "loser",
)


def _said(action: Mapping[str, Any]) -> str:
    if action.get("type") == "challenge":
        return "challenge"
    return f"bid {action['quantity']} x {action['face']}"


def transcript_frames(
    turns: Iterable[Mapping[str, Any]], *, faces: int = 6, wild_ones: bool = False
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(moves, showdowns) of one match from its turn lines, in turn order (see the module
    docstring); `faces` and `wild_ones` are the match's game options."""
    ordered = sorted(turns, key=lambda line: int(line["turn"]))
    showdowns: dict[int, dict[str, Any]] = {}
    for line in ordered:
        showdown = (line.get("revealed") or {}).get("showdown")
        if showdown is not None:
            showdowns[int(showdown["round"])] = showdown
    moves = []
    for line in ordered:
        for seat in line["seats"]:
            action = line["actions"][seat]
            moves.append(
                {
                    "round": int(line["round"]),
                    "turn": int(line["turn"]),
                    "player": seat,
                    "move": _said(action),
                    "probability": _probability(
                        action, seat, showdowns.get(int(line["round"])), faces, wild_ones
                    ),
                }
            )
    shown = []
    for number, showdown in sorted(showdowns.items()):
        bid = showdown["bid"]
        shown.append(
            {
                "round": number,
                "dice_a": " ".join(map(str, showdown["dice"]["a"])),
                "dice_b": " ".join(map(str, showdown["dice"]["b"])),
                "bid": f"{bid['quantity']} x {bid['face']}",
                "bidder": bid["player"],
                "challenger": showdown["challenger"],
                "matching": int(showdown["matching"]),
                "met": int(showdown["matching"]) >= int(bid["quantity"]),
                "loser": showdown["loser"],
            }
        )
    return (
        pd.DataFrame(moves, columns=list(MOVE_COLUMNS)),
        pd.DataFrame(shown, columns=list(SHOWDOWN_COLUMNS)),
    )


def _probability(
    action: Mapping[str, Any],
    seat: str,
    showdown: Mapping[str, Any] | None,
    faces: int,
    wild_ones: bool,
) -> float | None:
    """P(the bid is met | its bidder's own dice); None for a challenge, and for a round whose
    dice are not revealed yet."""
    if action.get("type") != "bid" or showdown is None:
        return None
    own = tuple(showdown["dice"][seat])
    other = showdown["dice"]["b" if seat == "a" else "a"]
    rules = LiarsDiceRules(dice_per_player=max(1, len(own)), faces=faces, wild_ones=wild_ones)
    return bid_probability(rules, Bid(action["quantity"], action["face"]), own, len(other))
