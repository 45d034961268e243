"""Cheap talk before the commit: the rules of a negotiation phase, who speaks when, and what an
agent is shown of the conversation.

AgentDuel's Split or Steal has each round open with a negotiate phase: the two players alternate
messages (2 exchanges, so 4 messages), each at most 280 characters; a player that times out sends
an empty message; player A speaks first in round 1 and the first speaker alternates every round.
Then both commit at the same time. These are pure functions of the rules and the round number,
so the turn order is the same in every run.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Literal

FirstSpeaker = Literal["alternate", "a", "b"]
PROMISE_PHRASES: tuple[str, ...] = (
    "I will split",
    "I'll split",
    "I split",
    "let's split",
    "let's both split",
    "we both split",
    "I will cooperate",
    "I'll cooperate",
    "let's cooperate",
    "I promise",
)


@dataclass(frozen=True, slots=True)
class Negotiation:
    """The negotiation phase of every round of a game (None on the game: no talking)."""

    exchanges: int = 2  # one exchange is one message from each side
    max_chars: int = 280  # longer messages are cut to this and marked
    first_speaker: FirstSpeaker = "alternate"  # alternate: A in round 1, B in round 2, ...
    # Seconds an arena agent gets to answer a negotiate turn (None: its own per-turn limit).
    message_timeout_s: float | None = None
    timeout_message: str = ""  # what is said for an agent that did not answer in time
    # Phrases that make a message a promise (matched case-insensitively as whole words): the
    # talk metrics' promise share and promise keeping count them. First-person commitments, so
    # that naming the options ("split" or "steal") or refusing ("I won't split") is no promise.
    promise_phrases: tuple[str, ...] = PROMISE_PHRASES

    @property
    def messages_per_round(self) -> int:
        return 2 * self.exchanges

    def speakers(self, round_index: int) -> tuple[str, ...]:
        """The side ("a" or "b") that speaks at each turn of round `round_index` (from 1)."""
        if self.first_speaker == "alternate":
            first = "a" if round_index % 2 == 1 else "b"
        else:
            first = self.first_speaker
        second = "b" if first == "a" else "a"
        return tuple(first if turn % 2 == 0 else second for turn in range(self.messages_per_round))


@dataclass(frozen=True, slots=True)
class Said:
    """One message of the round's conversation, as one agent sees it."""

    turn: int  # from 1, counted over both speakers
    mine: bool  # True: this agent said it; False: the opponent did
    text: str


def cut_to_limit(text: str, max_chars: int) -> tuple[str, bool]:
    """The message as delivered and whether it was cut: a longer one keeps its first
    `max_chars` characters (the mark is stored on the message, not added to the text)."""
    if len(text) <= max_chars:
        return text, False
    return text[:max_chars], True


def is_promise(text: str, phrases: tuple[str, ...]) -> bool:
    """Whether a message contains one of the promise phrases as whole words, ignoring case
    ("I will split." and "SPLIT!" do for "split"; "splitting" does not)."""
    pattern = _promise_pattern(phrases)
    # a typographic apostrophe reads as a plain one
    return pattern is not None and pattern.search(text.replace("\u2019", "'")) is not None


@functools.cache
def _promise_pattern(phrases: tuple[str, ...]) -> re.Pattern[str] | None:
    """One pattern for a game's phrases, compiled once (every message of a match asks): any of
    them as whole words; the regex tries each alternative at each position, so it matches where
    one phrase's own search would. None when no phrase is given."""
    words = [re.escape(phrase.strip()) for phrase in phrases if phrase.strip()]
    if not words:
        return None
    return re.compile(rf"(?<!\w)(?:{'|'.join(words)})(?!\w)", re.IGNORECASE)
