"""The offline mock as the Secret Keeper: it reads the Keeper's prompt back (prompts/passcode/,
filled by `pdbench.games.judged_prompts`) and answers as the truthful house Keeper does, so a
match with the mock as Keeper plays exactly as one with the house Keeper
(tests/unit/test_mock_roles.py).

The prompt says "You are the Secret Keeper", "The secret word is: W" and, last, "Question: Q";
the answer is `keeper_answer(W, Q)`. Declared as the Keeper role's `mock`
(`pdbench.games.roles.ThirdRole`); None for any other prompt.
"""

from __future__ import annotations

import re

from pdbench.games.passcode.keeper_answers import keeper_answer

KEEPER_MARK = "You are the Secret Keeper"
_WORD = re.compile(r"^The secret word is: (\S+)\s*$", re.MULTILINE)
_QUESTION = re.compile(r"^Question: (.*)$", re.MULTILINE)


def answer_as_keeper(prompt: str) -> str | None:
    """The mock's answer as the Keeper, or None when `prompt` is not a Keeper's."""
    if KEEPER_MARK not in prompt:
        return None
    word, questions = _WORD.search(prompt), _QUESTION.findall(prompt)
    if word is None or not questions:
        return None
    return keeper_answer(word.group(1), questions[-1])
