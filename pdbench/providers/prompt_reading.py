"""Reading a rendered prompt back, as a model would: the two action words, the payoff rules, the
rounds played so far and the current round. The offline mock (`pdbench.providers.mock`) answers
from what this finds, so a scripted model sees exactly what a real one is shown.

It reads every piece `pdbench.agents.llm.wording` renders, in both voices (second person, and
Fontana et al.'s third person with the agent as "A") and both label styles ("J", "Option J"):

- the payoff rules, as a table (`- you choose "C", the other player chooses "D": ...`) or as
  sentences (`If you choose Option J and the other player chooses Option F, then you win ...`);
  their first line is the cooperative outcome, which tells the cooperative word from the other
  however the options are ordered in the question;
- the history in each format: lines, sentences, table and pairs (with "Moves so far: N.");
- the answer instruction `Answer with exactly one of: X, Y.` (the labels when no rules are shown).

tests/unit/test_prompt_reading.py renders every format and reads it back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pdbench.core.actions import Action
from pdbench.core.payoff import PayoffMatrix
from pdbench.core.transcript import PastRound

ANSWER_LABELS_RE = re.compile(r"Answer with exactly one of: (.+?), (.+?)\.(?=\s|$)")
# One payoff line: (own word, other word, own payoff, other payoff).
RULE_PATTERNS = (
    re.compile(
        r'^- you choose "(.+?)", the other player chooses "(.+?)": '
        r"you score (\S+), the other player scores (\S+)$",
        re.MULTILINE,
    ),
    re.compile(r'^- A chooses "(.+?)", B chooses "(.+?)": A scores (\S+), B scores (\S+)$', re.M),
    re.compile(
        r"^If you choose (.+?) and the other player chooses (.+?), then you win (\S+) points "
        r"and the other player wins (\S+) points\.$",
        re.MULTILINE,
    ),
    re.compile(
        r'^If A plays "(.+?)" and B plays "(.+?)", A collects (\S+) points and B collects '
        r"(\S+) points\.$",
        re.MULTILINE,
    ),
)
# One past round: (round, own word, other word).
HISTORY_PATTERNS = (
    re.compile(r"^Round (\d+): you played (.+?), opponent played (.+?); you scored", re.M),
    re.compile(r'^Round (\d+): A played "(.+?)" and B played "(.+?)" A collected', re.M),
    re.compile(r"^In round (\d+), you chose (.+?) and the other player chose (.+?)\. Thus,", re.M),
    re.compile(r"^In round (\d+), A chose (.+?) and B chose (.+?)\. Thus,", re.M),
    re.compile(r"^(\d+) \| (.+?) \| (.+?) \| \S+ \| \S+$", re.MULTILINE),
)
MOVES_SO_FAR_RE = re.compile(r"^Moves so far: (\d+)\.$", re.MULTILINE)
PAIRS_RE = re.compile(r"^The last \d+ moves \((?:you, opponent|A, B)\): (.+)$", re.MULTILINE)
PAIR_RE = re.compile(r"\(([^(),]+), ([^(),]+)\)")
ROUND_MENTION_RE = re.compile(r"\bround:? (\d+)\b", re.IGNORECASE)
NOT_SHOWN = "not shown what happened in earlier rounds"


class UnreadablePrompt(ValueError):
    """The prompt shows something the reader cannot take apart (it says what)."""


@dataclass(frozen=True)
class ReadPrompt:
    """What a prompt tells its reader."""

    labels: tuple[str, str]  # the cooperative word first, as answered (no "Option")
    payoffs: PayoffMatrix | None  # from the reader's side; None when no rules are shown
    history: tuple[PastRound, ...]  # the rounds shown, oldest first
    round_index: int  # the round to answer for


def word_key(word: str) -> str:
    """A shown action word as the label it names: quotes and an "Option " prefix dropped."""
    word = word.strip().strip('"').strip()
    if word.casefold().startswith("option "):
        word = word[len("option ") :]
    return word.strip().casefold()


def read_prompt(text: str) -> ReadPrompt:
    """Read the rules, history and round from a prompt (its system and round messages)."""
    rules = _rules(text)
    labels = rules[0] if rules else _answer_labels(text)
    payoffs = rules[1] if rules else None
    history, round_index = _history(text, labels, payoffs)
    return ReadPrompt(labels=labels, payoffs=payoffs, history=history, round_index=round_index)


def read_labels_only(text: str) -> ReadPrompt:
    """The action words of the answer instruction and nothing else (for a strategy that needs no
    history, when the rest of the prompt cannot be read)."""
    return ReadPrompt(labels=_answer_labels(text), payoffs=None, history=(), round_index=1)


def _rules(text: str) -> tuple[tuple[str, str], PayoffMatrix] | None:
    for pattern in RULE_PATTERNS:
        lines = pattern.findall(text)
        if len(lines) < 4:
            continue
        (cc, cd, dc, dd) = lines[:4]
        cooperate, defect = cc[0], dd[0]
        expected = [
            (cooperate, cooperate),
            (cooperate, defect),
            (defect, cooperate),
            (defect, defect),
        ]
        got = [(line[0], line[1]) for line in (cc, cd, dc, dd)]
        if got != expected:
            raise UnreadablePrompt(f"the payoff lines are not in the order CC, CD, DC, DD: {got}")
        payoffs = PayoffMatrix.from_outcomes(
            *((float(line[2]), float(line[3])) for line in (cc, cd, dc, dd))
        )
        return (_bare(cooperate), _bare(defect)), payoffs
    return None


def _bare(word: str) -> str:
    word = word.strip().strip('"').strip()
    return word[len("Option ") :] if word.casefold().startswith("option ") else word


def _answer_labels(text: str) -> tuple[str, str]:
    found = ANSWER_LABELS_RE.findall(text)
    return found[-1] if found else ("C", "D")


def _history(
    text: str, labels: tuple[str, str], payoffs: PayoffMatrix | None
) -> tuple[tuple[PastRound, ...], int]:
    keys = {word_key(labels[0]): Action.C, word_key(labels[1]): Action.D}

    def action(word: str) -> Action:
        try:
            return keys[word_key(word)]
        except KeyError:
            raise UnreadablePrompt(
                f'"{word}" in the history is neither of the actions {list(labels)}'
            ) from None

    def past(index: int, own_word: str, other_word: str) -> PastRound:
        own, other = action(own_word), action(other_word)
        mine, theirs = (payoffs or PayoffMatrix()).payoffs(own, other)
        return PastRound(index, own, other, mine, theirs)

    moves_so_far = MOVES_SO_FAR_RE.search(text)
    if moves_so_far:  # the pairs format: the last k pairs end with the last round played
        played = int(moves_so_far.group(1))
        pairs_line = PAIRS_RE.search(text)
        pairs = PAIR_RE.findall(pairs_line.group(1)) if pairs_line else []
        first = played - len(pairs) + 1
        rounds = tuple(past(first + i, own, other) for i, (own, other) in enumerate(pairs))
        return rounds, played + 1
    for pattern in HISTORY_PATTERNS:
        found = pattern.findall(text)
        if found:
            rounds = tuple(past(int(index), own, other) for index, own, other in found)
            return rounds, rounds[-1].round_index + 1
    mentions = ROUND_MENTION_RE.findall(text)
    round_index = int(mentions[-1]) if mentions else 1
    if round_index > 1 and NOT_SHOWN not in text:
        raise UnreadablePrompt(
            f"round {round_index}, but no history in a format it reads (lines, sentences, "
            "table, pairs) and no word that earlier rounds are hidden"
        )
    return (), round_index
