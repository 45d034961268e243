"""The sentences pdbench writes into a prompt from data and reads back from one: one row each.

An LLM agent's prompt says the payoff rules, the rounds played and the answer it wants in
sentences rendered from the game and the history (`pdbench.games.matrix.wording`). The offline mock
model reads those sentences back, as a model would (`pdbench.providers.prompt_reading`). Both
sides take them from this table: a row is a template with named slots, `render` writes it and
`pattern` is the regular expression that reads it, derived from the same template. A new
published prompt design is a new row (or a new voice of one), and the mock reads what the agent
writes by construction.

Each row has a second-person voice ("you", "the other player") and a third-person one, as
Fontana et al. 2025 wrote their prompts (the agent is player "A", its opponent "B"). Slots:
`round`, `played` and `count` are whole numbers, `own` and `other` action words (any text),
`mine` and `theirs` payoffs as `pdbench.games.matrix.wording.number` writes them.
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
                read = self.slots[slot] if slot in self.slots else SLOT_PATTERNS[slot]
                parts.append(f"(?P<{slot}>{read})")
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


def written_number(value: object) -> str:
    """A number as a prompt writes it: a whole one without its ".0" (20, not 20.0), any other
    in Python's shortest general form (1.5, 0.333333)."""
    number = float(value)  # type: ignore[arg-type]
    return str(int(number)) if number.is_integer() else f"{number:g}"


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

# --- Liar's Dice (prompts/liars_dice/turn.md, rendered by pdbench.games.liars_dice.prompts) -----
# The mock reads these back (pdbench.games.liars_dice.mock): what the variant is, the dice
# it holds and counts, and the bid it must beat.

LIARS_FACES = Phrase(
    "Each die shows a face from 1 to {faces}.", anchor="anywhere", slots={"faces": r"\d+"}
)
LIARS_WILD = Phrase(
    "Ones are wild: {wild}.",
    anchor="anywhere",
    slots={"wild": r"yes|no"},
)
LIARS_OWN_DICE = Phrase("Your dice: {dice}", slots={"dice": r"\d+(?:, \d+)*|none"})
LIARS_COUNTS = Phrase(
    "Dice in play: you have {own_count}, your opponent has {other_count}.",
    slots={"own_count": r"\d+", "other_count": r"\d+"},
)
LIARS_BID_TO_BEAT = Phrase(
    "The bid to beat: {quantity} x {face}.", slots={"quantity": r"\d+", "face": r"\d+"}
)
LIARS_NO_BID = Phrase("There is no bid yet this round: open with a bid.")
# One bid of the round in play, in order.
LIARS_BID_LINE = Phrase(
    "- bid {turn}: {who} bid {quantity} x {face}",
    slots={"turn": r"\d+", "who": r"you|opponent", "quantity": r"\d+", "face": r"\d+"},
)

# The one answer format of a Liar's Dice turn: a raise, or a challenge of the bid to beat.
# The agent parses an answer strictly (`liars_answer_action`): the whole answer, spaces around it
# and letter case aside, must be one of these.
LIARS_BID_ANSWER = Phrase("BID {quantity} {face}", slots={"quantity": r"\d+", "face": r"\d+"})
LIARS_CHALLENGE_ANSWER = "CHALLENGE"
LIARS_ANSWER_FORMAT = (
    'Answer with one line and nothing else: "BID <quantity> <face>" to raise '
    '(e.g. "BID 3 5": at least three dice show 5), or "CHALLENGE" to call the bid to beat a lie.'
)


def liars_answer_text(action: dict[str, object]) -> str:
    """An action in the platform's shape as the answer a model writes for it."""
    if action.get("type") == "challenge":
        return LIARS_CHALLENGE_ANSWER
    return LIARS_BID_ANSWER.render(quantity=action["quantity"], face=action["face"])


_LIARS_ANSWER = re.compile(
    r"(?:BID\s+(?P<quantity>\d{1,4})\s+(?P<face>\d{1,4})|(?P<challenge>CHALLENGE))"
)


def liars_answer_action(answer: str) -> dict[str, object]:
    """The platform's action for a model's answer; ValueError (the reason shown to the model when
    it is re-asked) unless the whole answer is "BID <quantity> <face>" or "CHALLENGE"."""
    found = _LIARS_ANSWER.fullmatch(answer.strip().upper())
    if found is None:
        shown = answer.strip()
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        raise ValueError(
            f'{shown!r} is not "BID <quantity> <face>" or "CHALLENGE" (one line, nothing else)'
        )
    if found.group("challenge"):
        return {"type": "challenge"}
    return {"type": "bid", "quantity": int(found["quantity"]), "face": int(found["face"])}
