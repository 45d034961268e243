"""Scripted judges of the debate games (nuclear_war, nil_recruitment): pure rules over what a judge
is shown (its priorities, the sides to choose between, the arguments in speaking order). The house
judges (`pdbench.games.debate.policies`) and the offline mock reading a judge prompt
(`ThirdRole.mock`: `pdbench.games.passcode.keeper_mock`, `pdbench.games.debate.judge_mock`) both decide with these functions, so they agree by construction.

Rules (`JUDGE_RULES`):
- `priorities` (the default, meant to be fair): a side scores one point per priority of the judge
  that its arguments name (a priority is named when any of its words of 4 letters or more occurs
  in the side's arguments, case ignored); the higher score wins. A tie is broken by the parity of
  a hash of all arguments' text, which depends on what was said, not on the side, the speaker or
  the order of the choices.
- `first_speaker` (biased, for tests): the side that spoke first in the debate.
- `first_listed` (biased, for tests): the first of the choices (in nuclear_war always "for").
- `longer` (biased, for tests): the side whose arguments have more characters (a tie: the first
  listed).

A response between phases (`judge_response`) names the first of the judge's priorities that no
side has named yet, so a transcript stays deterministic and says what the judge would weigh.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence

Argument = tuple[str, str]  # (side, text), in speaking order

_WORD = re.compile(r"[a-z0-9]+")


def priority_words(priority: str) -> tuple[str, ...]:
    """The words of a priority that count as naming it (4 letters or more)."""
    return tuple(w for w in _WORD.findall(priority.casefold()) if len(w) >= 4)


def names_priority(text: str, priority: str) -> bool:
    words = set(_WORD.findall(text.casefold()))
    return any(word in words for word in priority_words(priority))


def priority_score(arguments: Sequence[Argument], side: str, priorities: Sequence[str]) -> int:
    """How many of `priorities` the arguments of `side` name."""
    said = " ".join(text for speaker, text in arguments if speaker == side)
    return sum(names_priority(said, priority) for priority in priorities)


def _content_coin(arguments: Sequence[Argument]) -> int:
    texts = sorted(text for _, text in arguments)
    return hashlib.sha256("\n".join(texts).encode()).digest()[0] % 2


def decide_by_priorities(
    arguments: Sequence[Argument], choices: Sequence[str], priorities: Sequence[str]
) -> str:
    scores = [priority_score(arguments, side, priorities) for side in choices]
    if scores[0] != scores[1]:
        return choices[0] if scores[0] > scores[1] else choices[1]
    # the tie-break must not favour a side: order the sides by what they said, then flip a coin
    # made of the content alone
    by_text = sorted(
        choices, key=lambda side: " ".join(t for s, t in arguments if s == side) + "\0" + side
    )
    return by_text[_content_coin(arguments)]


def decide_first_speaker(
    arguments: Sequence[Argument], choices: Sequence[str], priorities: Sequence[str]
) -> str:
    spoken = [side for side, _ in arguments if side in choices]
    return spoken[0] if spoken else choices[0]


def decide_first_listed(
    arguments: Sequence[Argument], choices: Sequence[str], priorities: Sequence[str]
) -> str:
    return choices[0]


def decide_longer(
    arguments: Sequence[Argument], choices: Sequence[str], priorities: Sequence[str]
) -> str:
    lengths = [sum(len(t) for s, t in arguments if s == side) for side in choices]
    return choices[1] if lengths[1] > lengths[0] else choices[0]


JudgeRule = Callable[[Sequence[Argument], Sequence[str], Sequence[str]], str]

JUDGE_RULES: dict[str, JudgeRule] = {
    "priorities": decide_by_priorities,
    "first_speaker": decide_first_speaker,
    "first_listed": decide_first_listed,
    "longer": decide_longer,
}


def judge_response(name: str, arguments: Sequence[Argument], priorities: Sequence[str]) -> str:
    """The scripted judge's words between phases (see the module docstring)."""
    said = " ".join(text for _, text in arguments)
    missing = [p for p in priorities if not names_priority(said, p)]
    if missing:
        return f"{name}: I have heard {len(arguments)} arguments. What about {missing[0]}?"
    return f"{name}: I have heard {len(arguments)} arguments. Every priority of mine was addressed."
