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


def pairing_rule(round_state_or_rules: dict) -> str:
    """Who donates to whom each round, in words, lower case (`pairing` "halves" in a
    round_state or a strategy phase's rules: Vallinder & Hughes's pairing, whose prompt says
    "If you were a donor in one round, you will be a recipient in the next round, and vice
    versa", ipynb line 1127; it holds every round but one change of half, hence "usually")."""
    if round_state_or_rules.get("pairing") == "halves":
        return (
            "every round each player is paired with another, one of the two the donor and the "
            "other its recipient (if you were a donor in one round, you will usually be a "
            "recipient in the next, and vice versa)"
        )
    return "every round each player is a donor once, to a recipient drawn at random"
