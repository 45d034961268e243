"""The offline mock as a game's third party: it reads a Keeper's or a judge's prompt back (the
files of prompts/<game>/, filled by `pdbench.games.judged_prompts`) and answers with the same
pure functions as the house third parties, so a match with the mock as Keeper or judge plays
exactly as one with the house Keeper or the `priorities` judge (tests/unit/test_mock_roles.py).

- Keeper: the prompt says "You are the Secret Keeper", "The secret word is: W" and, last,
  "Question: Q"; the answer is `keeper_answer(W, Q)` (pdbench.core.keeper_answers).
- Judge: the prompt has "Your name: ", "Your priorities: a; b", "Choices: "x", "y"" and the
  transcript as "- [phase] speaker: text" lines. With "Answer with exactly one of:" it decides by
  `JUDGE_RULES[rule]` (default "priorities") and answers the chosen side alone; otherwise it
  responds with `judge_response`.

`answer_role_prompt` returns None for any other prompt, and the mock answers it as a player.
"""

from __future__ import annotations

import re

from pdbench.core.judge_rules import JUDGE_RULES, judge_response
from pdbench.core.keeper_answers import keeper_answer

KEEPER_MARK = "You are the Secret Keeper"
_WORD = re.compile(r"^The secret word is: (\S+)\s*$", re.MULTILINE)
_QUESTION = re.compile(r"^Question: (.*)$", re.MULTILINE)
_NAME = re.compile(r"^Your name: (.+?)\s*$", re.MULTILINE)
_PRIORITIES = re.compile(r"^Your priorities: (.+?)\s*$", re.MULTILINE)
_CHOICES = re.compile(r"^Choices: (.+?)\s*$", re.MULTILINE)
_SAID = re.compile(r"^- \[[a-z0-9_]+\] (.+?): (.*)$", re.MULTILINE)
DECISION_MARK = "Answer with exactly one of:"


def answer_role_prompt(prompt: str, judge_rule: str = "priorities") -> str | None:
    """The mock's answer as Keeper or judge, or None when `prompt` is neither's."""
    if KEEPER_MARK in prompt:
        word, questions = _WORD.search(prompt), _QUESTION.findall(prompt)
        if word is None or not questions:
            return None
        return keeper_answer(word.group(1), questions[-1])
    name, priorities, choices = (p.search(prompt) for p in (_NAME, _PRIORITIES, _CHOICES))
    if name is None or priorities is None or choices is None:
        return None
    sides = re.findall(r'"([^"]+)"', choices.group(1))
    wanted = [p.strip() for p in priorities.group(1).split(";")]
    arguments = [(who, text) for who, text in _SAID.findall(prompt) if who in sides]
    if DECISION_MARK in prompt:
        return JUDGE_RULES[judge_rule](arguments, sides, wanted)
    return judge_response(name.group(1), arguments, wanted)
