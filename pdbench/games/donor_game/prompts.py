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
| pairing_rule     | who donates to whom each round (`phrases.pairing_rule`)                 |
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

Generations: the strategy phase's prompt is prompts/donor_game/strategy.md, its answer the
strategy as free text (`strategy_prompts`); a donation prompt of a match of several games adds
where the round falls and the strategy its donor wrote.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pdbench.core.phrases import Phrase, written_number
from pdbench.games.donor_game.amount_prompts import (
    amount_action,
    amount_answer_format,
    amount_state,
    continuous,
    punishment_rule,
)
from pdbench.games.donor_game.phrases import (
    LABEL,
    NOTHING_YET,
    NUMBER,
    RECENT_HEADER,
    RECIPIENT,
    ROUND,
    ROUND_UNDISCLOSED,
    YOU,
    pairing_rule,
)
from pdbench.games.donor_game.strategy_prompts import (
    stage_lines,
    strategy_action,
    strategy_fields,
    strategy_format,
)

_LABEL, _NUMBER = LABEL, NUMBER
GIVE, REFUSE = "GIVE", "REFUSE"
VERBS = {True: "gave to", False: "refused to give to"}

SCORE = Phrase("Your score so far: {score}.", slots={"score": _NUMBER})
IMAGE = Phrase("Its image: {image}.", slots={"image": r"good|bad"})
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
# pairing halves: a player donates or receives in a round, never both
PAST_DONATED = Phrase(
    "- round {round}: you {verb} {target}; earnings {earnings}.",
    slots={"round": r"\d+", "verb": r"gave to|refused to give to", "target": _LABEL}
    | {"earnings": _NUMBER},
)
PAST_RECEIVED = Phrase(
    "- round {round}: {donor} {their_verb} you; earnings {earnings}.",
    slots={"round": r"\d+", "donor": _LABEL, "their_verb": r"gave to|refused to give to"}
    | {"earnings": _NUMBER},
)
DONATE_FORMAT = Phrase(
    "Answer with exactly GIVE (you pay {cost}, {recipient} gains {benefit}) or REFUSE "
    "(nobody pays or gains), nothing else.",
    slots={"cost": _NUMBER, "recipient": _LABEL, "benefit": _NUMBER},
)

NORM_RULES = {
    "image_scoring": "a donor who gives becomes good, one who refuses becomes bad, whoever "
    "its recipient",
    "standing": "a donor who gives becomes good; one who refuses a bad recipient becomes good, "
    "one who refuses a good recipient bad",
    "stern_judging": "a donor who gives to a good recipient or refuses a bad one becomes good; "
    "one who gives to a bad recipient or refuses a good one becomes bad",
    "shunning": "a donor who gives to a good recipient becomes good; every other donor becomes bad",
}


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


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
        return "\n".join([heading, *stage_lines(round_state), *amount_state(round_state)])
    lines = [
        heading,
        *stage_lines(round_state),
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
        lines.append(_past_line(past))
    if not round_state["history"]:
        lines.append(NOTHING_YET)
    return "\n".join(lines)


def _past_line(past: dict[str, Any]) -> str:
    """A past round: what you gave and what you received (under pairing halves, one of them)."""
    earnings = written_number(past["earnings"])
    if "gave_to" not in past:
        their_verb = VERBS[bool(past["received"])]
        return PAST_RECEIVED.render(
            round=past["round_number"],
            donor=past["received_from"],
            their_verb=their_verb,
            earnings=earnings,
        )
    verb, target = VERBS[bool(past["gave"])], past["gave_to"]
    if "received_from" not in past:
        return PAST_DONATED.render(
            round=past["round_number"], verb=verb, target=target, earnings=earnings
        )
    return PAST_ROUND.render(
        round=past["round_number"],
        verb=verb,
        target=target,
        donor=past["received_from"],
        their_verb=VERBS[bool(past["received"])],
        earnings=earnings,
    )


def _answer_format(round_state: dict[str, Any]) -> str:
    if continuous(round_state):
        return amount_answer_format(round_state)
    return DONATE_FORMAT.render(
        cost=written_number(round_state["cost"]),
        recipient=round_state["recipient"]["label"],
        benefit=written_number(round_state["benefit"]),
    )


@dataclass(frozen=True)
class DonorGamePrompts:
    """The adapter (module docstring)."""

    lists_answers = True
    move_tokens: int = 10
    strategy_tokens: int = 600  # a strategy of up to 2,000 characters

    def prompt_file(self, round_state: dict[str, Any]) -> str:
        if round_state["phase"] == "strategy":
            return "strategy.md"
        if continuous(round_state):
            return f"{round_state['phase']}_amount.md"
        return f"{round_state['phase']}.md"

    def fields(self, round_state: dict[str, Any]) -> dict[str, str]:
        if round_state["phase"] == "strategy":
            return strategy_fields(round_state)
        if continuous(round_state):
            return {
                "endowment": written_number(round_state["endowment"]),
                "factor": written_number(round_state["benefit_factor"]),
                "pairing_rule": _capitalised(pairing_rule(round_state)),
                "reputation_rule": reputation_rule(round_state),
                "punishment_rule": punishment_rule(round_state),
                "round_number": str(round_state["round_number"]),
                "state": _state(round_state),
                "answer_format": _answer_format(round_state),
            }
        return {
            "cost": written_number(round_state["cost"]),
            "benefit": written_number(round_state["benefit"]),
            "pairing_rule": pairing_rule(round_state),
            "reputation_rule": reputation_rule(round_state),
            "round_number": str(round_state["round_number"]),
            "state": _state(round_state),
            "answer_format": _answer_format(round_state),
        }

    def action(self, round_state: dict[str, Any], answer: str) -> dict[str, Any]:
        text = answer.strip()
        if round_state["phase"] == "strategy":
            return strategy_action(text)
        if continuous(round_state):
            return amount_action(round_state, text)
        if text not in (GIVE, REFUSE):
            raise ValueError("answer GIVE or REFUSE, nothing else")
        return {"type": "donate", "give": text == GIVE}

    def reminder(self, round_state: dict[str, Any]) -> str:
        if round_state["phase"] == "strategy":
            return strategy_format(round_state)
        return _answer_format(round_state)

    def legal_answers(self, round_state: dict[str, Any]) -> tuple[str, ...] | None:
        if round_state["phase"] == "strategy" or continuous(round_state):
            return None
        return (GIVE, REFUSE)

    def max_tokens(self, round_state: dict[str, Any]) -> int:
        if round_state["phase"] == "strategy":
            return self.strategy_tokens
        return self.move_tokens


PROMPTS = DonorGamePrompts()
