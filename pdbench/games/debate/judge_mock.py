"""The offline mock as a debate's judge: it reads the judge's prompt back (prompts/<game>/,
filled by `pdbench.games.judged_prompts`) and answers with the same pure functions as the house
judges, so a match with the mock as judge plays exactly as one with the `priorities` judge
(tests/unit/test_mock_roles.py).

The prompt has "Your name: ", "Your priorities: a; b", "Choices: "x", "y"" and the transcript as
"- [phase] speaker: text" lines. With "Answer with exactly one of:" it decides by
`JUDGE_RULES[rule]` (default "priorities") and answers the chosen side alone; otherwise it
responds with `judge_response`. Declared as the judge role's `mock`
(`pdbench.games.roles.ThirdRole`); None for any other prompt.
"""

from __future__ import annotations

import re

from pdbench.games.debate.judge_rules import JUDGE_RULES, judge_response

_NAME = re.compile(r"^Your name: (.+?)\s*$", re.MULTILINE)
_PRIORITIES = re.compile(r"^Your priorities: (.+?)\s*$", re.MULTILINE)
_CHOICES = re.compile(r"^Choices: (.+?)\s*$", re.MULTILINE)
_SAID = re.compile(r"^- \[[a-z0-9_]+\] (.+?): (.*)$", re.MULTILINE)
DECISION_MARK = "Answer with exactly one of:"


def answer_as_judge(prompt: str, judge_rule: str = "priorities") -> str | None:
    """The mock's answer as the judge, or None when `prompt` is not a judge's."""
    name, priorities, choices = (p.search(prompt) for p in (_NAME, _PRIORITIES, _CHOICES))
    if name is None or priorities is None or choices is None:
        return None
    sides = re.findall(r'"([^"]+)"', choices.group(1))
    wanted = [p.strip() for p in priorities.group(1).split(";")]
    arguments = [(who, text) for who, text in _SAID.findall(prompt) if who in sides]
    if DECISION_MARK in prompt:
        return JUDGE_RULES[judge_rule](arguments, sides, wanted)
    return judge_response(name.group(1), arguments, wanted)
