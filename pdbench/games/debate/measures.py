"""The judge's measures of a stored debate run (`ThirdRole.measures` of the debates' judge: what
`pdbench analyze` prints for it), read from rounds.jsonl alone: no provider is called, and a
replayed run reports the same. Per condition, the verdict table built from its stored decisions
(each decision turn's `revealed` record: `DebateGame.revealed`, decision, sides, first speaker,
scenario, lengths) and the order, length and position-swap measures of
`pdbench.analysis.judging` on it; with a panel, its agreement."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import orjson
import pandas as pd

from pdbench.analysis.judging.bias import length_bias, order_bias
from pdbench.analysis.judging.panel import panel_agreement
from pdbench.analysis.judging.swap import position_swap
from pdbench.games.debate.rules import JUDGE
from pdbench.storage import jsonl


def stored_decisions(rounds_file: Path) -> dict[str, list[tuple[Any, dict[str, Any]]]]:
    """condition -> [(replicate, revealed decision record)], in stored order; a panel's
    verdicts (each judge's, from the decision's stored action) ride along as `panel`."""
    end = jsonl.complete_prefix(rounds_file) if rounds_file.exists() else 0
    found: dict[str, list[tuple[Any, dict[str, Any]]]] = defaultdict(list)
    if not end:
        return found
    with rounds_file.open("rb") as handle:
        data = handle.read(end)
    for line in data.splitlines():
        record = orjson.loads(line)
        shown = record.get("revealed")
        if isinstance(shown, dict) and "decision" in shown:
            panel = record.get("actions", {}).get(JUDGE, {}).get("panel")
            found[record["condition"]].append((record["replicate"], {**shown, "panel": panel}))
    return found


def panel_verdicts(decisions: list[tuple[Any, dict[str, Any]]]) -> list[dict[str, Any]]:
    """One row per (decision, member of the panel) with a valid verdict: item, rater, verdict."""
    return [
        {"item": number, "rater": f"{i}:{vote["judge"]}", "verdict": vote["winner"]}
        for number, (_, shown) in enumerate(decisions)
        for i, vote in enumerate(shown.get("panel") or ())
        if vote["winner"] is not None
    ]  # fmt: skip


def judge_report(run_dir: Path) -> dict[str, list[str]]:
    """condition -> the lines that describe its judge: verdicts, order bias, length bias and,
    with `swap_sides`, how often the verdict follows the player rather than the side."""
    report: dict[str, list[str]] = {}
    for condition, decisions in stored_decisions(run_dir / "rounds.jsonl").items():
        table = verdict_table(decisions)
        lines = [
            f"{len(table)} verdicts",
            f"order: the first speaker wins {order_bias(table)}",
            f"length: {length_bias(table)}",
        ]
        pairs = table.groupby("pair").size()
        if len(pairs) and (pairs == 2).all():
            lines.append(f"swap: {position_swap(table)}")
        else:
            lines.append("swap: no swapped pairs (play with game.options.swap_sides=true)")
        votes = panel_verdicts(decisions)
        if votes:
            lines += str(panel_agreement(votes)).splitlines()
        report[condition] = lines
    return report


def verdict_table(decisions: list[tuple[Any, dict[str, Any]]]) -> pd.DataFrame:
    """One row per (match, revealed decision): `pair` (match and scenario number: the two rounds
    of a side swap share it), `winner_seat`, `winner_side`, `first_speaker`, `length_a`,
    `length_b`."""
    rows = [
        {
            "match": match,
            "pair": f"{match}/{shown['scenario']['number']}",
            "winner_seat": shown["decision"]["winner_seat"],
            "winner_side": shown["decision"]["winner_side"],
            "first_speaker": shown["first_speaker"],
            "length_a": shown["lengths"]["a"],
            "length_b": shown["lengths"]["b"],
        }
        for match, shown in decisions
    ]
    return pd.DataFrame(rows)
