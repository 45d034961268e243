"""Reading a rendered prompt back, as a model would: the two action words, the payoff rules, the
rounds played so far and the current round. The offline mock's 2x2 play (`pdbench.games.matrix.mock`)
answers from what this finds, so a scripted model sees exactly what a real one is shown.

It reads every piece `pdbench.games.matrix.wording` renders, with the patterns of the same rows of
`pdbench.core.phrases` the agent's sentences are written from, in both voices (second person, and
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

from pdbench.core import phrases
from pdbench.core.actions import Action
from pdbench.core.payoff import PayoffMatrix
from pdbench.core.transcript import PastRound

# A round the prompt's own template names ("Round 3", "round: 3"), when no history says it.
ROUND_MENTION_RE = re.compile(r"\bround:? (\d+)\b", re.IGNORECASE)


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
    for phrase in phrases.PAYOFF_PHRASES:
        lines = [
            (m["own"], m["other"], m["mine"], m["theirs"]) for m in phrase.pattern.finditer(text)
        ]
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
    found = list(phrases.ANSWER_CHOICE.pattern.finditer(text))
    return (found[-1]["first"], found[-1]["second"]) if found else ("C", "D")


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

    moves_so_far = phrases.MOVES_SO_FAR.pattern.search(text)
    if moves_so_far:  # the pairs format: the last k pairs end with the last round played
        played = int(moves_so_far["played"])
        pairs_line = next(
            filter(None, (p.pattern.search(text) for p in phrases.LAST_MOVES.both)), None
        )
        pairs = (
            [
                (m["own"], m["other"])
                for m in phrases.MOVE_PAIR.pattern.finditer(pairs_line["pairs"])
            ]
            if pairs_line
            else []
        )
        first = played - len(pairs) + 1
        rounds = tuple(past(first + i, own, other) for i, (own, other) in enumerate(pairs))
        return rounds, played + 1
    for phrase in phrases.PAST_ROUND_PHRASES:
        found = list(phrase.pattern.finditer(text))
        if found:
            rounds = tuple(past(int(m["round"]), m["own"], m["other"]) for m in found)
            return rounds, rounds[-1].round_index + 1
    mentions = ROUND_MENTION_RE.findall(text)
    round_index = int(mentions[-1]) if mentions else 1
    if round_index > 1 and not any(p.template in text for p in phrases.HISTORY_HIDDEN.both):
        raise UnreadablePrompt(
            f"round {round_index}, but no history in a format it reads (lines, sentences, "
            "table, pairs) and no word that earlier rounds are hidden"
        )
    return (), round_index
