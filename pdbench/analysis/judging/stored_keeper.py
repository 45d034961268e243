"""The audit of a stored run's third party (issue 30; a role that `audits` another,
`pdbench.games.roles`): per condition, the pairs (played answer, audit's answer) read from each
audited turn's stored actions (`text`, and `audit`, which only an audited seat's action holds,
`pdbench.agents.audited`) and their disagreement rate (`keeper.audit_disagreement`). Read from
rounds.jsonl alone: no provider is called, and a replayed run reports the same."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import orjson

from pdbench.analysis.judging.keeper import audit_disagreement
from pdbench.storage import jsonl


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
