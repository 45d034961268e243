"""The donor game's prompt adapter (`pdbench.games.prompt_adapter.PromptAdapter`): an LLM
donor's prompt, filled from its round_state alone, and its answer read back.

File: prompts/donor_game/donate.md: the game's fixed rules first (cost, benefit and what the
reputation shows are the same every round and for every seat, so a provider's prompt cache reuses
the prefix), then the persona, then `{state}`, the round written line by line from the phrases
below, and last `{answer_format}`. The offline mock (`mock`) reads the same phrases back, so the
two cannot drift apart.

| placeholder      | what it holds                                                           |
| ---------------- | ----------------------------------------------------------------------- |
| cost, benefit    | what giving costs the donor and brings the recipient                    |
| reputation_rule  | what a donor is shown of its recipient: the norm judging images, or     |
|                  | none, and how many of its recent actions                                |
| round_number     | the round in play                                                       |
| state            | round, you, your score, your recipient, its image (under a norm), its   |
|                  | recent actions (and theirs, second order), your past rounds             |
| answer_format    | the one answer format                                                   |

Answer (strict; anything else is refused with the reason and the model is re-asked): `GIVE` or
`REFUSE`, listed for grammar-constrained decoding.

Continuous giving (round_state `amount` "continuous"): the file is prompts/donor_game/
donate_amount.md, the state shows your resources, the recipient's resources and its trace with
amounts and shares (Vallinder & Hughes's "donated p% of their resources"), and the answer is
`GIVE x` (x a number of units; the rules refuse one below 0 or above your resources, and the
model is re-asked with the reason); no list of answers (free amounts).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from pdbench.core.phrases import Phrase, written_number

_LABEL = r"[A-Za-z0-9]+"
_NUMBER = r"-?\d+(?:\.\d+)?"
GIVE, REFUSE = "GIVE", "REFUSE"
VERBS = {True: "gave to", False: "refused to give to"}

ROUND = Phrase("Round {round} of {limit}.", slots={"round": r"\d+", "limit": r"\d+"})
ROUND_UNDISCLOSED = Phrase(
    "Round {round} (the number of rounds is not told).", slots={"round": r"\d+"}
)
YOU = Phrase("You are player {you}.", slots={"you": _LABEL})
SCORE = Phrase("Your score so far: {score}.", slots={"score": _NUMBER})
RECIPIENT = Phrase("Your recipient this round: {recipient}.", slots={"recipient": _LABEL})
IMAGE = Phrase("Its image: {image}.", slots={"image": r"good|bad"})
RECENT_HEADER = Phrase("Its last actions as a donor (oldest first):", slots={})
# one of the recipient's actions (no indent), and, second order, its recipient's (indented)
ACTION = Phrase(
    "- round {round}: {donor} {verb} {target}.",
    slots={
        "round": r"\d+",
        "donor": _LABEL,
        "verb": r"gave to|refused to give to",
        "target": _LABEL,
    },
)
EARLIER = Phrase(
    "    before that, round {round}: {donor} {verb} {target}.",
    slots={
        "round": r"\d+",
        "donor": _LABEL,
        "verb": r"gave to|refused to give to",
        "target": _LABEL,
    },
)
PAST_ROUND = Phrase(
    "- round {round}: you {verb} {target}; {donor} {their_verb} you; earnings {earnings}.",
    slots={
        "round": r"\d+",
        "verb": r"gave to|refused to give to",
        "target": _LABEL,
        "donor": _LABEL,
        "their_verb": r"gave to|refused to give to",
        "earnings": _NUMBER,
    },
)
DONATE_FORMAT = Phrase(
    "Answer with exactly GIVE (you pay {cost}, {recipient} gains {benefit}) or REFUSE "
    "(nobody pays or gains), nothing else.",
    slots={"cost": _NUMBER, "recipient": _LABEL, "benefit": _NUMBER},
)
NOTHING_YET = "(none yet)"

# continuous giving: amounts, shares and resources (Vallinder & Hughes 2024)
_SHARE = r"\d+(?:\.\d+)?% of its resources|nothing, holding nothing"
YOUR_RESOURCES = Phrase("You have {resources} units.", slots={"resources": _NUMBER})
THEIR_RESOURCES = Phrase("It has {resources} units.", slots={"resources": _NUMBER})
GIFT = Phrase(
    "- round {round}: {donor} gave {amount} units ({share}) to {target}.",
    slots={"round": r"\d+", "donor": _LABEL, "amount": _NUMBER, "share": _SHARE, "target": _LABEL},
)
EARLIER_GIFT = Phrase(
    "before that, round {round}: {donor} gave {amount} units ({share}) to {target}.",
    slots={"round": r"\d+", "donor": _LABEL, "amount": _NUMBER, "share": _SHARE, "target": _LABEL},
)
PAST_GIFT = Phrase(
    "- round {round}: you gave {amount} units to {target}; {donor} gave you {received} "
    "units; earnings {earnings}.",
    slots={
        "round": r"\d+",
        "amount": _NUMBER,
        "target": _LABEL,
        "donor": _LABEL,
        "received": _NUMBER,
        "earnings": _NUMBER,
    },
)
GIVE_AMOUNT_FORMAT = Phrase(
    "Answer with exactly GIVE x, where x is the number of units you give up, from 0 to "
    "{resources} ({recipient} gains {factor} times x), nothing else.",
    slots={"resources": _NUMBER, "recipient": _LABEL, "factor": _NUMBER},
)
GIVE_AMOUNT = re.compile(rf"GIVE ({_NUMBER})")

NORM_RULES = {
    "image_scoring": "a donor who gives becomes good, one who refuses becomes bad, whoever "
    "its recipient",
    "standing": "a donor who gives becomes good; one who refuses a bad recipient becomes good, "
    "one who refuses a good recipient bad",
    "stern_judging": "a donor who gives to a good recipient or refuses a bad one becomes good; "
    "one who gives to a bad recipient or refuses a good one becomes bad",
    "shunning": "a donor who gives to a good recipient becomes good; every other donor becomes bad",
}


def reputation_rule(round_state: dict[str, Any]) -> str:
    """What a donor is told of its recipient, in words (the same every round of a match)."""
    norm = round_state["norm"]
    if norm == "none":
        images = "No public image is kept."
    else:
        images = (
            "Every player has a public image, good or bad; everyone starts good, and after "
            f"each round {NORM_RULES[norm]}."
        )
    if continuous(round_state):
        return (
            f"{images} A donor is shown the units its recipient holds and its most recent "
            "actions as a donor."
        )
    return (
        f"{images} A donor is shown its recipient's image, if one is kept, and its most recent "
        "actions as a donor."
    )


def _action_lines(entry: dict[str, Any], donor: str) -> list[str]:
    lines = [
        ACTION.render(
            round=entry["round_number"],
            donor=donor,
            verb=VERBS[bool(entry["gave"])],
            target=entry["recipient"],
        )
    ]
    for earlier in entry.get("recipient_recent_actions", []):
        lines.append(
            EARLIER.render(
                round=earlier["round_number"],
                donor=entry["recipient"],
                verb=VERBS[bool(earlier["gave"])],
                target=earlier["recipient"],
            )
        )
    return lines


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
    line = GIFT.render(**fields) if depth == 0 else "    " * depth + EARLIER_GIFT.render(**fields)
    lines = [line]
    for earlier in entry.get("recipient_recent_actions", []):
        lines += _gift_lines(earlier, entry["recipient"], depth + 1)
    return lines


def _amount_state(round_state: dict[str, Any]) -> list[str]:
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
        lines.append(
            PAST_GIFT.render(
                round=past["round_number"],
                amount=written_number(past["amount"]),
                target=past["gave_to"],
                donor=past["received_from"],
                received=written_number(past["received_amount"]),
                earnings=written_number(past["earnings"]),
            )
        )
    if not round_state["history"]:
        lines.append(NOTHING_YET)
    return lines


def continuous(round_state: dict[str, Any]) -> bool:
    return round_state.get("amount") == "continuous"


def _state(round_state: dict[str, Any]) -> str:
    number_, limit = round_state["round_number"], round_state["round_limit"]
    recipient = round_state["recipient"]
    label, reputation = recipient["label"], recipient["reputation"]
    heading = (
        ROUND_UNDISCLOSED.render(round=number_)
        if limit is None
        else ROUND.render(round=number_, limit=limit)
    )
    if continuous(round_state):
        return "\n".join([heading, *_amount_state(round_state)])
    lines = [
        heading,
        YOU.render(you=round_state["you"]),
        SCORE.render(score=written_number(round_state["your_score"])),
        "",
        RECIPIENT.render(recipient=label),
    ]
    if reputation["image_score"] is not None:
        lines.append(IMAGE.render(image="good" if reputation["image_score"] else "bad"))
    lines.append(RECENT_HEADER.render())
    for entry in reputation["recent_actions"]:
        lines += _action_lines(entry, label)
    if not reputation["recent_actions"]:
        lines.append(NOTHING_YET)
    lines += ["", "Your past rounds:"]
    for past in round_state["history"]:
        lines.append(
            PAST_ROUND.render(
                round=past["round_number"],
                verb=VERBS[bool(past["gave"])],
                target=past["gave_to"],
                donor=past["received_from"],
                their_verb=VERBS[bool(past["received"])],
                earnings=written_number(past["earnings"]),
            )
        )
    if not round_state["history"]:
        lines.append(NOTHING_YET)
    return "\n".join(lines)


def _answer_format(round_state: dict[str, Any]) -> str:
    if continuous(round_state):
        return GIVE_AMOUNT_FORMAT.render(
            resources=written_number(round_state["your_score"]),
            recipient=round_state["recipient"]["label"],
            factor=written_number(round_state["benefit_factor"]),
        )
    return DONATE_FORMAT.render(
        cost=written_number(round_state["cost"]),
        recipient=round_state["recipient"]["label"],
        benefit=written_number(round_state["benefit"]),
    )


def _number(text: str) -> int | float:
    number = float(text)
    return int(number) if number.is_integer() and "." not in text else number


@dataclass(frozen=True)
class DonorGamePrompts:
    """The adapter (module docstring)."""

    lists_answers = True
    move_tokens: int = 10

    def prompt_file(self, round_state: dict[str, Any]) -> str:
        if continuous(round_state):
            return f"{round_state['phase']}_amount.md"
        return f"{round_state['phase']}.md"

    def fields(self, round_state: dict[str, Any]) -> dict[str, str]:
        if continuous(round_state):
            return {
                "endowment": written_number(round_state["endowment"]),
                "factor": written_number(round_state["benefit_factor"]),
                "reputation_rule": reputation_rule(round_state),
                "round_number": str(round_state["round_number"]),
                "state": _state(round_state),
                "answer_format": _answer_format(round_state),
            }
        return {
            "cost": written_number(round_state["cost"]),
            "benefit": written_number(round_state["benefit"]),
            "reputation_rule": reputation_rule(round_state),
            "round_number": str(round_state["round_number"]),
            "state": _state(round_state),
            "answer_format": _answer_format(round_state),
        }

    def action(self, round_state: dict[str, Any], answer: str) -> dict[str, Any]:
        text = answer.strip()
        if continuous(round_state):
            found = GIVE_AMOUNT.fullmatch(text)
            if found is None:
                raise ValueError("answer GIVE x, x the number of units you give up, nothing else")
            return {"type": "donate", "amount": _number(found[1])}
        if text not in (GIVE, REFUSE):
            raise ValueError("answer GIVE or REFUSE, nothing else")
        return {"type": "donate", "give": text == GIVE}

    def reminder(self, round_state: dict[str, Any]) -> str:
        return _answer_format(round_state)

    def legal_answers(self, round_state: dict[str, Any]) -> tuple[str, ...] | None:
        return None if continuous(round_state) else (GIVE, REFUSE)

    def max_tokens(self, round_state: dict[str, Any]) -> int:
        return self.move_tokens


PROMPTS = DonorGamePrompts()
