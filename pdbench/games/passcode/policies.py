"""House players and the house Keeper of passcode. Each answers from what its seat is shown
(`Passcode.observe`) alone.

Players (`PASSCODE_POLICIES`):
- `passcode_halving`: keeps the words of the public list it is shown (`candidate_words`, the
  game's word list) that agree with every answer it was given, asking each answer again of the
  truthful Keeper's grammar (`pdbench.games.passcode.keeper_answers`); asks "Does the word come before "m"
  alphabetically?" at the median candidate, which halves the list, and guesses once one word is
  left (else passes). With a truthful Keeper and the word in its list it needs about
  log2(len(list)) rounds; when no word agrees (a lying Keeper, another list) it asks the length.
- `passcode_lengths`: asks the length, then guesses a random word of the list of that length every
  round (a weak baseline).

Keepers (`KEEPERS`, the third role the registry declares):
- `truthful`: answers with `keeper_answer(secret_word, question)`, exactly.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from pdbench.games.passcode.keeper_answers import keeper_answer

LENGTH_QUESTION = "How many letters does the word have?"


def _candidates(words: tuple[str, ...], history: list[dict[str, str]]) -> list[str]:
    return [
        word
        for word in words
        if all(keeper_answer(word, qa["question"]) == qa["answer"] for qa in history)
    ]


@dataclass(frozen=True)
class HalvingQuestioner:
    """Halves the word list it is shown with the Keeper's grammar (module docstring)."""

    def act(self, round_state: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        words = tuple(round_state["candidate_words"])
        left = _candidates(words, round_state["your_qa_history"])
        if round_state["phase"] == "guess":
            return {"type": "guess", "word": left[0]} if len(left) == 1 else {"type": "pass"}
        if len(left) < 2:
            return {"type": "question", "text": LENGTH_QUESTION}
        median = left[len(left) // 2]
        return {
            "type": "question",
            "text": f'Does the word come before "{median}" alphabetically?',
        }


@dataclass(frozen=True)
class LengthGuesser:
    """Asks the length, then guesses a random word of that length from the list it is shown."""

    def act(self, round_state: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        if round_state["phase"] == "question":
            return {"type": "question", "text": LENGTH_QUESTION}
        words = list(round_state["candidate_words"])
        left = _candidates(tuple(words), round_state["your_qa_history"]) or words
        return {"type": "guess", "word": left[int(rng.integers(len(left)))]}


@dataclass(frozen=True)
class TruthfulKeeper:
    """Answers the fixed grammar exactly; anything else gets the fixed "I can only answer" reply."""

    def act(self, round_state: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {
            "type": "answer",
            "text": keeper_answer(round_state["secret_word"], round_state["question"]),
        }


PASSCODE_POLICIES: dict[str, Callable[..., Any]] = {
    "passcode_halving": HalvingQuestioner,
    "passcode_lengths": LengthGuesser,
}

# name -> factory; the first is the role's default
KEEPERS: dict[str, Callable[..., Any]] = {"truthful": TruthfulKeeper}
