"""The public goods game's prompt adapter (`pdbench.games.prompt_adapter.PromptAdapter`): an LLM
player's prompt for each phase, filled from its round_state alone, and its answer read back.

Files (prompts/public_goods/): `talk.md`, `contribute.md`, `punish.md`, each the game's fixed
rules first (the same text every round and for every seat, so a provider's prompt cache reuses
the prefix), then the persona, then `{state}`: the round's state, written line by line from the
phrases below, and last `{answer_format}`. The offline mock (`mock`) reads the same phrases
back, so the two cannot drift apart.

| placeholder    | what it holds                                                             |
| -------------- | ------------------------------------------------------------------------- |
| group_size     | players in your group (the same every round)                              |
| multiplier     | the factor the group's account is multiplied by                           |
| round_number   | the round in play                                                         |
| state          | round, you, players, what you may contribute (not in punish), scores,     |
|                | past rounds, the reputation block (only with `reputation_depth` > 0:      |
|                | `reputation_prompt`, CoopEval's wording), this round's messages; in       |
|                | punish also this round's                                                  |
|                | contributions, the cost and fine of a point, the most points you may give |
| answer_format  | the phase's one answer format                                             |

Answers (strict; anything else is refused with the reason and the model is re-asked):
- talk: the message itself, the whole answer stripped of surrounding white space. A message
  longer than the game's cap (`talk_max_chars`, `talk_max_words`) is refused by the rules with
  the limit and re-asked, never cut: a cut message would say something the model did not.
- contribute: `CONTRIBUTE <n>`, n a whole number from 0 to what you may contribute; the legal
  answers are listed for grammar-constrained decoding.
- punish: `PUNISH <label>=<n>, <label>=<n>` (other players of your group, each once) or
  `PUNISH NONE`; the rules check the total against the cap. No grammar (the answers are
  combinatorial): a constrained request is sent unconstrained.

A contribute prompt holds no contribution of the round being played: round_state has none
before all are in (`view.round_state`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from pdbench.core.phrases import Phrase, written_number
from pdbench.games.public_goods import reputation_prompt

_LABEL = r"[A-Za-z0-9]+"
_NUMBER = r"-?\d+(?:\.\d+)?"
_PAIRS = rf"(?:{_LABEL}={_NUMBER}(?:, )?)+"

ROUND = Phrase("Round {round} of {limit}.", slots={"round": r"\d+", "limit": r"\d+"})
ROUND_UNDISCLOSED = Phrase(
    "Round {round} (the number of rounds is not told).", slots={"round": r"\d+"}
)
YOU = Phrase("You are player {you}.", slots={"you": _LABEL})
PLAYERS = Phrase("Players in your group this round: {players}.", slots={"players": r".+?"})
AVAILABLE = Phrase("You may contribute from 0 to {most} points this round.", slots={"most": r"\d+"})
SCORES = Phrase("Scores so far: {scores}.", slots={"scores": r".+?"})
PAST_ROUND = Phrase(
    "- round {round}: you were {you}; contributions {contributions}; earnings {earnings}; "
    "punishment {punished}.",
    slots={
        "round": r"\d+",
        "you": _LABEL,
        "contributions": _PAIRS,
        "earnings": _PAIRS,
        "punished": r".+?",
    },
)
MESSAGE = Phrase("- {author}: {text}", slots={"author": _LABEL, "text": r".*"})
CONTRIBUTIONS_NOW = Phrase(
    "This round's contributions: {contributions}.", slots={"contributions": _PAIRS}
)
PUNISH_TERMS = Phrase(
    "Each punishment point you give costs you {cost} and takes {fine} from its target; you may "
    "give at most {most} points in all this round.",
    slots={"cost": _NUMBER, "fine": _NUMBER, "most": r"\d+"},
)
TALK_FORMAT = Phrase(
    "Answer with your message to the group alone, nothing else: one short public message "
    "(a message longer than the game allows is refused and you are asked again)."
)
CONTRIBUTE_FORMAT = Phrase(
    "Answer with exactly CONTRIBUTE <amount>, a whole number from 0 to {most}, e.g. "
    "CONTRIBUTE {example}.",
    slots={"most": r"\d+", "example": r"\d+"},
)
PUNISH_FORMAT = Phrase(
    "Answer with exactly PUNISH <player>=<points>, ... naming other players of your group "
    "(e.g. PUNISH {example}=1), or PUNISH NONE to punish nobody.",
    slots={"example": _LABEL},
)
NOTHING_YET = "(none yet)"

_CONTRIBUTE = re.compile(r"CONTRIBUTE\s+(\d+)")
_PUNISH_NONE = re.compile(r"PUNISH\s+NONE")
_PUNISH = re.compile(rf"PUNISH\s+((?:{_LABEL})\s*=\s*\d+(?:\s*,\s*{_LABEL}\s*=\s*\d+)*)")


def pairs(values: dict[str, Any]) -> str:
    """{"P1": 10, "P2": 5} -> "P1=10, P2=5" (a number as the round_state holds it)."""
    return ", ".join(f"{label}={written_number(value)}" for label, value in values.items())


def read_pairs(text: str) -> dict[str, float]:
    """`pairs` read back."""
    found = re.findall(rf"({_LABEL})=({_NUMBER})", text)
    return {label: float(value) for label, value in found}


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _punished(punished: dict[str, dict[str, int]]) -> str:
    given = [
        f"{punisher} gave {target} {points}"
        for punisher, targets in punished.items()
        for target, points in targets.items()
    ]
    return ", ".join(given) or "none"


def _state(round_state: dict[str, Any]) -> str:
    number, limit = round_state["round_number"], round_state["round_limit"]
    scores = [f"you {written_number(round_state['your_score'])}"] + [
        f"{label} {written_number(total)}"
        for label, total in round_state["scores"].items()
        if label != round_state["you"]
    ]
    lines = [
        ROUND_UNDISCLOSED.render(round=number)
        if limit is None
        else ROUND.render(round=number, limit=limit),
        YOU.render(you=round_state["you"]),
        PLAYERS.render(players=", ".join(round_state["players"])),
        *([] if round_state["phase"] == "punish" else [AVAILABLE.render(most=_most(round_state))]),
        SCORES.render(scores=", ".join(scores)),
        "",
        "Past rounds:",
        *(
            PAST_ROUND.render(
                round=past["round_number"],
                you=past["you"],
                contributions=pairs(past["contributions"]),
                earnings=pairs(past["earnings"]),
                punished=_punished(past["punished"]),
            )
            for past in round_state["history"]
        ),
    ]
    if not round_state["history"]:
        lines.append(NOTHING_YET)
    if "reputation" in round_state:  # CoopEval's reputation mechanism (`reputation_prompt`)
        lines += ["", *reputation_prompt.render(round_state["reputation"])]
    said = [
        MESSAGE.render(author=m["author"], text=_one_line(m["text"]))
        for m in round_state["messages"]
    ]
    lines += ["", "This round's messages:", *(said or [NOTHING_YET])]
    if round_state["phase"] == "punish":
        lines += [
            "",
            CONTRIBUTIONS_NOW.render(contributions=pairs(round_state["contributions"])),
            PUNISH_TERMS.render(
                cost=written_number(round_state["punish_cost"]),
                fine=written_number(round_state["punish_fine"]),
                most=round_state["max_punish"],
            ),
        ]
    return "\n".join(lines)


def _most(round_state: dict[str, Any]) -> int:
    return int(round_state["endowment"] // 1)


def _answer_format(round_state: dict[str, Any]) -> str:
    phase = round_state["phase"]
    if phase == "talk":
        return TALK_FORMAT.render()
    if phase == "contribute":
        most = _most(round_state)
        return CONTRIBUTE_FORMAT.render(most=most, example=most // 2)
    others = [label for label in round_state["players"] if label != round_state["you"]]
    return PUNISH_FORMAT.render(example=others[0] if others else round_state["you"])


@dataclass(frozen=True)
class PublicGoodsPrompts:
    """The adapter (module docstring)."""

    lists_answers = True  # contribute: 0..E; talk and punish are free

    talk_tokens: int = 120  # a message of at most 280 characters is about 70 tokens
    move_tokens: int = 40

    def prompt_file(self, round_state: dict[str, Any]) -> str:
        return f"{round_state['phase']}.md"

    def fields(self, round_state: dict[str, Any]) -> dict[str, str]:
        return {
            "group_size": str(len(round_state["players"])),
            "multiplier": written_number(round_state["multiplier"]),
            "round_number": str(round_state["round_number"]),
            "state": _state(round_state),
            "answer_format": _answer_format(round_state),
        }

    def action(self, round_state: dict[str, Any], answer: str) -> dict[str, Any]:
        text = answer.strip()
        phase = round_state["phase"]
        if phase == "talk":
            return {"type": "message", "text": text}
        if phase == "contribute":
            found = _CONTRIBUTE.fullmatch(text)
            if found is None:
                raise ValueError("answer CONTRIBUTE and a whole number, nothing else")
            return {"type": "contribute", "amount": int(found.group(1))}
        if _PUNISH_NONE.fullmatch(text):
            return {"type": "punish", "points": {}}
        found = _PUNISH.fullmatch(text)
        if found is None:
            raise ValueError("answer PUNISH and <player>=<points> pairs, or PUNISH NONE")
        points: dict[str, int] = {}
        for pair in found.group(1).split(","):
            label, _, given = (part.strip() for part in pair.partition("="))
            if label in points:
                raise ValueError(f"{label} is named twice; name each player once")
            points[label] = int(given)
        return {"type": "punish", "points": points}

    def reminder(self, round_state: dict[str, Any]) -> str:
        return _answer_format(round_state)

    def legal_answers(self, round_state: dict[str, Any]) -> tuple[str, ...] | None:
        if round_state["phase"] != "contribute":
            return None
        return tuple(f"CONTRIBUTE {n}" for n in range(_most(round_state) + 1))

    def max_tokens(self, round_state: dict[str, Any]) -> int:
        return self.talk_tokens if round_state["phase"] == "talk" else self.move_tokens


PROMPTS = PublicGoodsPrompts()
