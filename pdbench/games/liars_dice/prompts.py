"""Liar's Dice's prompt adapter (`pdbench.games.prompt_adapter.PromptAdapter`, named by the
game's registry entry): the placeholders of its prompt (prompts/liars_dice/turn.md), filled from the seat's
round_state alone (`pdbench.games.liars_dice.rules.observe`), in the sentences of the one phrase table
(`pdbench.core.phrases`), so the offline mock reads back exactly what the agent wrote.

| placeholder       | what it holds                                                          |
| ----------------- | ---------------------------------------------------------------------- |
| round_number      | the round in play                                                      |
| faces_rule        | "Each die shows a face from 1 to 6."                                   |
| wild_rule         | "Ones are wild: yes." (they count for every other face) or "...: no."  |
| wild_raise_rule   | with wild ones, the rule for switching to and from 1s; else empty      |
| dice_counts       | "Dice in play: you have 5, your opponent has 4."                       |
| own_dice          | "Your dice: 2, 3, 3, 5, 6"                                             |
| bids              | this round's bids in order, "- bid 1: you bid 2 x 3", or "(none yet)"  |
| bid_to_beat       | "The bid to beat: 2 x 3." or "There is no bid yet this round: ..."     |
| finished_rounds   | one line per finished round: its bids, both hands, who lost a die      |
| answer_format     | the one answer format: "BID <quantity> <face>" or "CHALLENGE"          |

The opponent's dice appear only in finished rounds, as the observation holds them.
"""

from __future__ import annotations

from typing import Any

from pdbench.core import phrases
from pdbench.games.liars_dice.rules import Bid, LiarsDiceRules, action_dict, legal_after


def _dice(values: list[int]) -> str:
    return ", ".join(map(str, values)) or "none"


def _bids_said(bids: list[dict[str, Any]]) -> str:
    return ", ".join(f"{b['player']} {b['quantity']} x {b['face']}" for b in bids)


def _finished_line(past: dict[str, Any]) -> str:
    bidder = past["bids"][-1]
    challenger = "You" if past["challenger"] == "you" else "Your opponent"
    loser = "you" if past["loser"] == "you" else "your opponent"
    return (
        f"- round {past['round']}: bids {_bids_said(past['bids'])}. Revealed: your dice "
        f"{_dice(past['your_dice'])}; your opponent's dice {_dice(past['opponent_dice'])}. "
        f"{challenger} challenged {bidder['quantity']} x {bidder['face']}; "
        f"{past['matching']} dice matched; {loser} lost a die."
    )


def liars_dice_fields(round_state: dict[str, Any]) -> dict[str, str]:
    """Every placeholder prompts/liars_dice/turn.md may use (see the module docstring)."""
    wild = bool(round_state["wild_ones"])
    current = round_state["current_bid"]
    bids = [
        phrases.LIARS_BID_LINE.render(
            turn=number, who=bid["player"], quantity=bid["quantity"], face=bid["face"]
        )
        for number, bid in enumerate(round_state["bid_history"], 1)
    ]
    return {
        "round_number": str(round_state["round_number"]),
        "faces_rule": phrases.LIARS_FACES.render(faces=round_state["faces"]),
        "wild_rule": phrases.LIARS_WILD.render(wild="yes" if wild else "no")
        + (" A 1 counts for every other face." if wild else ""),
        "wild_raise_rule": (
            " A bid on 1s after a bid on another face needs at least half its quantity (rounded"
            " up); a bid on another face after a bid on 1s needs more than twice its quantity."
            if wild
            else ""
        ),
        "dice_counts": phrases.LIARS_COUNTS.render(
            own_count=round_state["your_dice_count"],
            other_count=round_state["opponent_dice_count"],
        ),
        "own_dice": phrases.LIARS_OWN_DICE.render(dice=_dice(round_state["your_dice"])),
        "bids": "\n".join(bids) or "(none yet)",
        "bid_to_beat": phrases.LIARS_NO_BID.render()
        if current is None
        else phrases.LIARS_BID_TO_BEAT.render(quantity=current["quantity"], face=current["face"]),
        "finished_rounds": "\n".join(map(_finished_line, round_state["rounds_history"]))
        or "(none yet)",
        "answer_format": phrases.LIARS_ANSWER_FORMAT,
    }


def liars_dice_answers(round_state: dict[str, Any]) -> tuple[str, ...]:
    """Every legal answer this turn, in the answer format (challenge first when a bid stands,
    then each raise, fewest dice first): what a constrained model may answer."""
    rules = LiarsDiceRules(
        dice_per_player=max(1, round_state["your_dice_count"]),
        faces=round_state["faces"],
        wild_ones=round_state["wild_ones"],
    )
    current = round_state["current_bid"]
    total = round_state["your_dice_count"] + round_state["opponent_dice_count"]
    moves = legal_after(rules, None if current is None else Bid(**current), total)
    return tuple(phrases.liars_answer_text(action_dict(move)) for move in moves)


# A move is a few tokens ("BID 3 4", "CHALLENGE").
ANSWER_MAX_TOKENS = 16


class LiarsDicePrompts:
    """How an LLM player is asked for a Liar's Dice turn and how its answer is read: one prompt
    file for every turn (prompts/liars_dice/turn.md), the answer "BID <quantity> <face>" or
    "CHALLENGE" read strictly (`pdbench.core.phrases.liars_answer_action`)."""

    lists_answers = True  # every bid and the challenge

    def prompt_file(self, round_state: dict[str, Any]) -> str:
        return "turn.md"

    def fields(self, round_state: dict[str, Any]) -> dict[str, str]:
        return liars_dice_fields(round_state)

    def action(self, round_state: dict[str, Any], answer: str) -> dict[str, Any]:
        return phrases.liars_answer_action(answer.strip())

    def reminder(self, round_state: dict[str, Any]) -> str:
        return phrases.LIARS_ANSWER_FORMAT

    def legal_answers(self, round_state: dict[str, Any]) -> tuple[str, ...] | None:
        return liars_dice_answers(round_state)

    def max_tokens(self, round_state: dict[str, Any]) -> int:
        return ANSWER_MAX_TOKENS


PROMPTS = LiarsDicePrompts()
