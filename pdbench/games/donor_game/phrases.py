"""The phrases every donor prompt shares (binary `prompts` and continuous `amount_prompts`),
so the mock reads both back through one set."""

from __future__ import annotations

from pdbench.core.phrases import Phrase

LABEL = r"[A-Za-z0-9]+"
NUMBER = r"-?\d+(?:\.\d+)?"

ROUND = Phrase("Round {round} of {limit}.", slots={"round": r"\d+", "limit": r"\d+"})
ROUND_UNDISCLOSED = Phrase(
    "Round {round} (the number of rounds is not told).", slots={"round": r"\d+"}
)
YOU = Phrase("You are player {you}.", slots={"you": LABEL})
RECIPIENT = Phrase("Your recipient this round: {recipient}.", slots={"recipient": LABEL})
RECENT_HEADER = Phrase("Its last actions as a donor (oldest first):", slots={})
NOTHING_YET = "(none yet)"
