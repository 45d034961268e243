"""The sentences pdbench writes into a prompt from data and reads back from one: one row each.

An LLM agent's prompt says the payoff rules, the rounds played and the answer it wants in
sentences rendered from the game and the history (`pdbench.agents.llm.wording`). The offline mock
model reads those sentences back, as a model would (`pdbench.providers.prompt_reading`). Both
sides take them from this table: a row is a template with named slots, `render` writes it and
`pattern` is the regular expression that reads it, derived from the same template. A new
published prompt design is a new row (or a new voice of one), and the mock reads what the agent
writes by construction.

Each row has a second-person voice ("you", "the other player") and a third-person one, as
Fontana et al. 2025 wrote their prompts (the agent is player "A", its opponent "B"). Slots:
`round`, `played` and `count` are whole numbers, `own` and `other` action words (any text),
`mine` and `theirs` payoffs as `wording.number` writes them.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

# How each slot reads back, unless a row says otherwise.
SLOT_PATTERNS = {
    "round": r"\d+",
    "played": r"\d+",
    "count": r"\d+",
    "own": r".+?",
    "other": r".+?",
    "first": r".+?",
    "second": r".+?",
    "mine": r"\S+",
    "theirs": r"\S+",
    "pairs": r".+",
}


@dataclass(frozen=True)
class Phrase:
    """One sentence with named slots, written by `render` and read by `pattern`.

    Where it is read: `anchor="line"` (the default) only where it fills a line, `"word"`
    anywhere it is followed by white space or the end of the text, `"anywhere"` anywhere."""

    template: str
    anchor: Literal["line", "word", "anywhere"] = "line"
    slots: dict[str, str] = field(default_factory=dict)  # slot -> pattern, where not the default

    def render(self, **values: object) -> str:
        return self.template.format(**values)

    @cached_property
    def pattern(self) -> re.Pattern[str]:
        parts = []
        for literal, slot, _, _ in string.Formatter().parse(self.template):
            parts.append(re.escape(literal))
            if slot is not None:
                parts.append(f"(?P<{slot}>{self.slots.get(slot, SLOT_PATTERNS[slot])})")
        body = "".join(parts)
        if self.anchor == "line":
            return re.compile(f"^{body}$", re.MULTILINE)
        if self.anchor == "word":
            return re.compile(rf"{body}(?=\s|$)")
        return re.compile(body)


@dataclass(frozen=True)
class Voiced:
    """A phrase in the second person and in the third (Fontana et al.'s "A" and "B")."""

    second: Phrase
    third: Phrase

    def of(self, third_person: bool) -> Phrase:
        return self.third if third_person else self.second

    @property
    def both(self) -> tuple[Phrase, Phrase]:
        return (self.second, self.third)


def _voiced(second: str, third: str) -> Voiced:
    return Voiced(Phrase(second), Phrase(third))


# --- the rules: one line per outcome, own action first, in the order CC, CD, DC, DD -------------

# pdbench's own table of outcomes.
PAYOFF_LINE = _voiced(
    '- you choose "{own}", the other player chooses "{other}": '
    "you score {mine}, the other player scores {theirs}",
    '- A chooses "{own}", B chooses "{other}": A scores {mine}, B scores {theirs}',
)
# Akata et al.'s sentences (second person) and Fontana et al.'s (third).
PAYOFF_SENTENCE = _voiced(
    "If you choose {own} and the other player chooses {other}, "
    "then you win {mine} points and the other player wins {theirs} points.",
    'If A plays "{own}" and B plays "{other}", A collects {mine} points and B collects {theirs} '
    "points.",
)

# --- the history: one past round -----------------------------------------------------------------

# pdbench's line (second person) and Fontana et al.'s, word for word (no punctuation before
# "A collected").
HISTORY_LINE = _voiced(
    "Round {round}: you played {own}, opponent played {other}; "
    "you scored {mine}, opponent scored {theirs}.",
    'Round {round}: A played "{own}" and B played "{other}" '
    "A collected {mine} points and B collected {theirs} points.",
)
# Akata et al.'s sentence, word for word, and its third-person form.
HISTORY_SENTENCE = _voiced(
    "In round {round}, you chose {own} and the other player chose {other}. "
    "Thus, you won {mine} points and the other player won {theirs} points.",
    "In round {round}, A chose {own} and B chose {other}. "
    "Thus, A won {mine} points and B won {theirs} points.",
)
TABLE_HEADER = _voiced(
    "Round | You | Opponent | Your points | Opponent's points",
    "Round | A | B | A's points | B's points",
)
TABLE_ROW = Phrase("{round} | {own} | {other} | {mine} | {theirs}")
# Payne and Alloui-Cros's form: the number of moves so far and the last move pairs.
MOVES_SO_FAR = Phrase("Moves so far: {played}.")
LAST_MOVES = _voiced(
    "The last {count} moves (you, opponent): {pairs}",
    "The last {count} moves (A, B): {pairs}",
)
# One pair of the list; an action word in it holds no parenthesis or comma.
MOVE_PAIR = Phrase(
    "({own}, {other})", anchor="anywhere", slots={"own": r"[^(),]+", "other": r"[^(),]+"}
)
HISTORY_HIDDEN = _voiced(
    "You are not shown what happened in earlier rounds.",
    "A and B are not shown what happened in earlier rounds.",
)

# --- the answer ----------------------------------------------------------------------------------

# The two labels in the order shown this round.
ANSWER_CHOICE = Phrase("Answer with exactly one of: {first}, {second}.", anchor="word")

# Every phrase that shows one past round, with the slots round, own and other.
PAST_ROUND_PHRASES: tuple[Phrase, ...] = (*HISTORY_LINE.both, *HISTORY_SENTENCE.both, TABLE_ROW)
# Every phrase that shows one payoff rule, with the slots own, other, mine and theirs.
PAYOFF_PHRASES: tuple[Phrase, ...] = (*PAYOFF_LINE.both, *PAYOFF_SENTENCE.both)
