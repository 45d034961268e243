"""The Keeper's measures (issue 30), read from answers or from a stored run's rounds.jsonl alone
(no provider is called, and a replayed run reports the same):

- `keeper_truthfulness`: for a Keeper whose rule is known (the mock and house Keeper), every
  stored answer is checked against the secret word with the truthful grammar
  (`pdbench.games.passcode.keeper_answers`): the share of answers that are exactly right, over the
  questions in the grammar (questions outside it are counted apart: any reply is allowed there).
- `audit_disagreement`: for an LLM Keeper, each question is put again to a second (audit) model;
  the share of stored pairs (Keeper's answer, audit's answer) whose verdicts disagree. Answers are
  compared by their verdict: "yes" / "no" when the answer starts so, otherwise the first number it
  gives, otherwise the whole text with case and punctuation dropped.
- `keeper_audit_report` (`ThirdRole.measures` of the role that audits the Keeper: what `pdbench
  analyze` prints for it): per condition, the pairs (played answer, audit's answer) read from
  each audited turn's stored actions (`text`, and `audit`, which only an audited seat's action
  holds, `pdbench.agents.audited`) and their disagreement rate.

Input: rows with `word`, `question`, `answer` (truthfulness), or `keeper_answer` and
`audit_answer` (audit).
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pandas as pd

from pdbench.analysis.judging.proportions import Share, share
from pdbench.games.passcode.keeper_answers import is_in_grammar, keeper_answer
from pdbench.storage import jsonl


@dataclass(frozen=True)
class Truthfulness:
    truthful: Share  # exactly right, of the answers to questions in the grammar
    outside_grammar: int  # questions the grammar does not cover (not checked)
    wrong: tuple[tuple[str, str, str], ...]  # (word, question, answer) answered wrongly

    def __str__(self) -> str:
        return (
            f"truthful {self.truthful}; {len(self.wrong)} wrong; "
            f"{self.outside_grammar} questions outside the grammar"
        )


def keeper_truthfulness(
    answers: pd.DataFrame | list[dict[str, Any]], confidence: float = 0.95
) -> Truthfulness:
    table = pd.DataFrame(answers)
    checked, wrong, outside = 0, [], 0
    for word, question, answer in table[["word", "question", "answer"]].itertuples(index=False):
        if not is_in_grammar(question):
            outside += 1
            continue
        checked += 1
        if answer.strip() != keeper_answer(word, question):
            wrong.append((word, question, answer))
    return Truthfulness(share(checked - len(wrong), checked, confidence), outside, tuple(wrong))


def verdict_of(answer: str) -> str:
    """What an answer says, for comparing two answers to one question."""
    text = answer.strip().casefold()
    first = re.match(r"[a-z]+", text)
    if first and first.group(0) in ("yes", "no"):
        return first.group(0)
    number = re.search(r"\d+", text)
    if number:
        return number.group(0)
    return " ".join(re.findall(r"[a-z0-9]+", text))


def audit_disagreement(
    pairs: pd.DataFrame | list[dict[str, Any]], confidence: float = 0.95
) -> Share:
    """The share of questions on which the Keeper and the audit model disagree."""
    table = pd.DataFrame(pairs)
    differ = [
        verdict_of(keeper) != verdict_of(audit)
        for keeper, audit in table[["keeper_answer", "audit_answer"]].itertuples(index=False)
    ]
    return share(sum(differ), len(differ), confidence)


def keeper_audit_pairs(rounds_file: Path) -> dict[str, list[dict[str, Any]]]:
    """condition -> [{keeper_answer, audit_answer}] in stored order (audit_answer None when the
    audit gave no legal answer); conditions without an audit are absent."""
    end = jsonl.complete_prefix(rounds_file) if rounds_file.exists() else 0
    found: dict[str, list[dict[str, Any]]] = defaultdict(list)
    if not end:
        return found
    with rounds_file.open("rb") as handle:
        data = handle.read(end)
    for line in data.splitlines():
        record = orjson.loads(line)
        for _seat, action in sorted(record.get("actions", {}).items()):
            if isinstance(action, dict) and "audit" in action:
                found[record["condition"]].append(
                    {"keeper_answer": action["text"], "audit_answer": action["audit"]}
                )
    return found


def keeper_audit_report(run_dir: Path) -> dict[str, list[str]]:
    """condition -> the line describing its Keeper audit, for the conditions that had one."""
    report: dict[str, list[str]] = {}
    for condition, pairs in keeper_audit_pairs(run_dir / "rounds.jsonl").items():
        answered = [p for p in pairs if p["audit_answer"] is not None]
        missing = len(pairs) - len(answered)
        line = f"Keeper audit: disagreement {audit_disagreement(answered)}"
        if missing:
            line += f" ({missing} answers the audit gave no legal answer to, left out)"
        report[condition] = [line]
    return report
