"""The donor game's prompt under continuous giving (`amount: continuous`, Vallinder & Hughes
2024), the part of `prompts` it dispatches to: the state lines (your resources, the recipient's
resources, its trace with amounts and shares: V&H's "donated p% of their resources"), the
answer format and the answer read back. With punishment the trace names punishments, and the
answer may be `PUNISH x`.

Answer (strict): `GIVE x` (x a number of units) or, with punishment, `PUNISH x`; the rules
refuse an amount below 0 or above your resources and the model is re-asked with the reason.
"""

from __future__ import annotations

import re
from typing import Any

from pdbench.core.phrases import Phrase, written_number
from pdbench.games.donor_game.phrases import (
    LABEL,
    NOTHING_YET,
    NUMBER,
    RECENT_HEADER,
    RECIPIENT,
    YOU,
)

_LABEL, _NUMBER = LABEL, NUMBER

# continuous giving: amounts, shares and resources (Vallinder & Hughes 2024)
_SHARE = r"\d+(?:\.\d+)?% of its resources|nothing, holding nothing"
YOUR_RESOURCES = Phrase("You have {resources} units.", slots={"resources": _NUMBER})
THEIR_RESOURCES = Phrase("It has {resources} units.", slots={"resources": _NUMBER})
_ACT = {"verb": r"gave|spent", "link": r"to|punishing"}
# one shown action: a gift ("gave 5 units (50% of its resources) to P3") or, with punishment,
# a punishment ("spent 2 units (20% of its resources) punishing P3")
GIFT = Phrase(
    "- round {round}: {donor} {verb} {amount} units ({share}) {link} {target}.",
    slots={"round": r"\d+", "donor": _LABEL, "amount": _NUMBER, "share": _SHARE, "target": _LABEL}
    | _ACT,
)
EARLIER_GIFT = Phrase(
    "before that, round {round}: {donor} {verb} {amount} units ({share}) {link} {target}.",
    slots={"round": r"\d+", "donor": _LABEL, "amount": _NUMBER, "share": _SHARE, "target": _LABEL}
    | _ACT,
)
PAST_GIFT = Phrase(
    "- round {round}: you {yours}; {donor} {theirs}; earnings {earnings}.",
    slots={
        "round": r"\d+",
        "yours": r".+?",
        "donor": _LABEL,
        "theirs": r".+?",
        "earnings": _NUMBER,
    },
)
# pairing halves: a player donates or receives in a round, never both
PAST_ONE_SIDE = Phrase(
    "- round {round}: {what}; earnings {earnings}.",
    slots={"round": r"\d+", "what": r".+?", "earnings": _NUMBER},
)
GIVE_AMOUNT_FORMAT = Phrase(
    "Answer with exactly GIVE x, where x is the number of units you give up, from 0 to "
    "{resources} ({recipient} gains {factor} times x).",
    slots={"resources": _NUMBER, "recipient": _LABEL, "factor": _NUMBER},
)
PUNISH_FORMAT = Phrase(
    "Or answer PUNISH x to spend x units, from 0 to {resources}, taking {factor} times x "
    "away from {recipient}.",
    slots={"resources": _NUMBER, "recipient": _LABEL, "factor": _NUMBER},
)
NOTHING_ELSE = "Nothing else."
ANSWER = re.compile(rf"(GIVE|PUNISH) ({_NUMBER})")


def continuous(round_state: dict[str, Any]) -> bool:
    """Whether the round_state is one of continuous giving."""
    return round_state.get("amount") == "continuous"


def _share(entry: dict[str, Any]) -> str:
    share = entry["share"]
    if share is None:
        return "nothing, holding nothing"
    return f"{written_number(round(100 * float(share), 2))}% of its resources"


def _gift_lines(entry: dict[str, Any], donor: str, depth: int = 0) -> list[str]:
    """One shown gift and, second order, the chain before it (indented one step a link)."""
    fields = {
        "round": entry["round_number"],
        "donor": donor,
        "amount": written_number(entry["amount"]),
        "share": _share(entry),
        "target": entry["recipient"],
    }
    fields |= (
        {"verb": "spent", "link": "punishing"}
        if entry.get("punished")
        else {"verb": "gave", "link": "to"}
    )
    line = GIFT.render(**fields) if depth == 0 else "    " * depth + EARLIER_GIFT.render(**fields)
    lines = [line]
    for earlier in entry.get("recipient_recent_actions", []):
        lines += _gift_lines(earlier, entry["recipient"], depth + 1)
    return lines


def amount_state(round_state: dict[str, Any]) -> list[str]:
    recipient = round_state["recipient"]
    label, reputation = recipient["label"], recipient["reputation"]
    lines = [
        YOU.render(you=round_state["you"]),
        YOUR_RESOURCES.render(resources=written_number(round_state["your_score"])),
        "",
        RECIPIENT.render(recipient=label),
        THEIR_RESOURCES.render(resources=written_number(recipient["resources"])),
        RECENT_HEADER.render(),
    ]
    for entry in reputation["recent_actions"]:
        lines += _gift_lines(entry, label)
    if not reputation["recent_actions"]:
        lines.append(NOTHING_YET)
    lines += ["", "Your past rounds:"]
    for past in round_state["history"]:
        lines.append(_past_line(past))
    if not round_state["history"]:
        lines.append(NOTHING_YET)
    return lines


def _past_line(past: dict[str, Any]) -> str:
    """A past round: what you gave and what you received (under pairing halves, one of them)."""
    earnings = written_number(past["earnings"])
    if "gave_to" not in past:
        what = f"{past['received_from']} {_theirs(past)}"
        return PAST_ONE_SIDE.render(round=past["round_number"], what=what, earnings=earnings)
    if "received_from" not in past:
        what = f"you {_yours(past)}"
        return PAST_ONE_SIDE.render(round=past["round_number"], what=what, earnings=earnings)
    return PAST_GIFT.render(
        round=past["round_number"],
        yours=_yours(past),
        donor=past["received_from"],
        theirs=_theirs(past),
        earnings=earnings,
    )


def _yours(past: dict[str, Any]) -> str:
    amount, target = written_number(past["amount"]), past["gave_to"]
    if past.get("punished"):
        return f"spent {amount} units punishing {target}"
    return f"gave {amount} units to {target}"


def _theirs(past: dict[str, Any]) -> str:
    amount = written_number(past["received_amount"])
    if past.get("punished_by_donor"):
        return f"spent {amount} units punishing you"
    return f"gave you {amount} units"


def punishment_rule(round_state: dict[str, Any]) -> str:
    """The rules' sentence on costly punishment ("" without it)."""
    if "punishment_factor" not in round_state:
        return ""
    factor = written_number(round_state["punishment_factor"])
    return (
        f" Instead of giving, a donor may punish its recipient: it spends x units and the "
        f"recipient loses {factor} times x units (a player never goes below 0 units). Bear in "
        "mind that others may punish you too."
    )


def amount_answer_format(round_state: dict[str, Any]) -> str:
    held = written_number(round_state["your_score"])
    recipient = round_state["recipient"]["label"]
    lines = [
        GIVE_AMOUNT_FORMAT.render(
            resources=held,
            recipient=recipient,
            factor=written_number(round_state["benefit_factor"]),
        )
    ]
    if "punishment_factor" in round_state:
        factor = written_number(round_state["punishment_factor"])
        lines.append(PUNISH_FORMAT.render(resources=held, recipient=recipient, factor=factor))
    return "\n".join([*lines, NOTHING_ELSE])


def _number(text: str) -> int | float:
    number = float(text)
    return int(number) if number.is_integer() and "." not in text else number


def amount_action(round_state: dict[str, Any], text: str) -> dict[str, Any]:
    """The action an answer names; ValueError with the reason when it names none."""
    found = ANSWER.fullmatch(text)
    punishes = "punishment_factor" in round_state
    if found is None or (found[1] == "PUNISH" and not punishes):
        either = " or PUNISH x" if punishes else ""
        raise ValueError(f"answer GIVE x{either}, x the number of units you spend, nothing else")
    kind = "punish" if found[1] == "PUNISH" else "donate"
    return {"type": kind, "amount": _number(found[2])}
