"""The Keeper audit of a stored passcode run (issue 30, `keeper_audit`): per condition, the
pairs (Keeper's answer, audit's answer) read from each answer turn's stored actions (`text`, and
`audit` when the condition had an audit) and their disagreement rate (`keeper.audit_disagreement`).
Read from rounds.jsonl alone: no provider is called, and a replayed run reports the same."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import orjson

from pdbench.analysis.judging.keeper import audit_disagreement
from pdbench.storage import jsonl

KEEPER_GAMES = ("passcode",)


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
        if record.get("game") not in KEEPER_GAMES:
            continue
        for seat, action in sorted(record.get("actions", {}).items()):
            if seat.startswith("keeper") and isinstance(action, dict) and "audit" in action:
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
