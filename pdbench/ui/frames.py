"""The tables and chart data of one match and of a run's facts, built from stored records as pandas
frames (the Conditions tab's are in `pdbench.ui.condition_frames`).

Pure functions: no Streamlit and no Altair here, so every frame is testable on its own. Metric
headers come from the catalogue (`pdbench.analysis.metrics.catalog`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from pdbench.analysis.metrics.catalog import SIDES
from pdbench.storage.ledger import LedgerEntry
from pdbench.storage.manifest import RunManifest
from pdbench.ui.display import (
    all_metrics,
    as_float,
)
from pdbench.ui.facts import round_flags

# --- one match -------------------------------------------------------------------------------


def metric_table(replicate: pd.Series, condition: pd.Series) -> pd.DataFrame:
    """Every metric: this replicate's value beside the condition's mean, spread and 95% CI."""
    rows = []
    for shown in all_metrics():
        column = shown.column
        rows.append(
            {
                "metric": shown.label,
                "column": column,
                "replicate": as_float(replicate.get(column)),
                "condition_mean": as_float(condition.get(column)),
                "ci_low": as_float(condition.get(f"{column}_ci_low")),
                "ci_high": as_float(condition.get(f"{column}_ci_high")),
                "std": as_float(condition.get(f"{column}_std")),
                "n": as_float(condition.get(f"{column}_n")),
            }
        )
    return pd.DataFrame(rows)


def flipped(record: Mapping[str, Any], side: str) -> bool:
    """Whether noise (the trembling hand) flipped this side's move in this round: the action
    played differs from the one intended (recorded only in a run with noise)."""
    intended = record.get(f"agent_{side}_intended")
    return intended is not None and intended != record[f"agent_{side}_action"]


def timeline_frame(
    rounds: Sequence[Mapping[str, Any]],
    names: Mapping[str, str],
    words: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """One row per round and agent: the action played (C/D, as stored), the one intended (they
    differ where noise flipped the move, lettered with a '~'), payoffs and any flags. Cells are
    lettered with the game's `words` for C and D (split/steal), when given."""
    words = words or {"C": "C", "D": "D"}
    rows = []
    for record in rounds:
        for side in SIDES:
            flags = round_flags(record, side)
            action = record[f"agent_{side}_action"]
            trembled = flipped(record, side)
            rows.append(
                {
                    "round": int(record["round_index"]),
                    "agent": names[side],
                    "action": action,
                    "intended": words.get(
                        record.get(f"agent_{side}_intended") or action,
                        record.get(f"agent_{side}_intended") or action,
                    ),
                    "played": words.get(action, action),
                    "flipped": trembled,
                    "label": words.get(action, action)
                    + ("!" if flags else "")
                    + ("~" if trembled else ""),
                    "payoff": record.get(f"agent_{side}_payoff"),
                    "cumulative": record.get(f"agent_{side}_cum_payoff"),
                    "flags": ", ".join(flags),
                    "flagged": bool(flags),
                }
            )
    return pd.DataFrame(rows, columns=TIMELINE_COLUMNS)


TIMELINE_COLUMNS = [
    "round",
    "agent",
    "action",
    "intended",
    "played",
    "flipped",
    "label",
    "payoff",
    "cumulative",
    "flags",
    "flagged",
]


def payoff_frame(
    rounds: Sequence[Mapping[str, Any]],
    names: Mapping[str, str],
    reference: Mapping[str, float] | None = None,
) -> pd.DataFrame:
    """Cumulative payoff per round of both agents, plus the all-C / all-D lines if known."""
    rows = []
    for record in rounds:
        index = int(record["round_index"])
        for side in SIDES:
            rows.append(
                {
                    "round": index,
                    "series": names[side],
                    "cumulative payoff": float(record[f"agent_{side}_cum_payoff"]),
                    "reference": False,
                }
            )
        for name, per_round in (reference or {}).items():
            rows.append(
                {
                    "round": index,
                    "series": f"{name} ({per_round:g} per round)",
                    "cumulative payoff": per_round * index,
                    "reference": True,
                }
            )
    return pd.DataFrame(rows, columns=["round", "series", "cumulative payoff", "reference"])


def action_text(
    rounds: Sequence[Mapping[str, Any]],
    names: Mapping[str, str],
    per_line: int = 50,
    words: Mapping[str, str] | None = None,
) -> str:
    """Both action sequences as aligned text, e.g. 'A · GTFT  C D D'; a third line puts a '!'
    under the rounds with an invalid output, fallback, timeout or error, and in a run with noise
    another marks the moves the trembling hand flipped (a, b, or * for both). Long matches are
    cut into blocks of `per_line` rounds, each headed by its round range."""
    words = words or {"C": "C", "D": "D"}
    cell = max(len(word) for word in words.values())
    labels: dict[str, str] = {side: names[side] for side in SIDES}
    flagged = [any(round_flags(r, side) for side in SIDES) for r in rounds]
    flips = [_flip_mark(r) for r in rounds]
    if any(flagged):
        labels["flags"] = "flagged"
    if any(mark != " " for mark in flips):
        labels["flips"] = "flipped"
    width = max(len(label) for label in labels.values())
    blocks = []
    for start in range(0, len(rounds), per_line):
        chunk = rounds[start : start + per_line]
        lines = [f"rounds {start + 1}–{start + len(chunk)}"] if len(rounds) > per_line else []
        for side in SIDES:
            actions = " ".join(
                words.get(a, a).ljust(cell) for a in (r[f"agent_{side}_action"] for r in chunk)
            ).rstrip()
            lines.append(f"{labels[side].ljust(width)}  {actions}")
        marks = [("!" if f else " ").ljust(cell) for f in flagged[start : start + per_line]]
        if any(f for f in flagged[start : start + per_line]):
            lines.append(f"{labels['flags'].ljust(width)}  " + " ".join(marks).rstrip())
        trembles = flips[start : start + per_line]
        if any(mark != " " for mark in trembles):
            lines.append(
                f"{labels['flips'].ljust(width)}  "
                + " ".join(mark.ljust(cell) for mark in trembles).rstrip()
            )
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def _flip_mark(record: Mapping[str, Any]) -> str:
    """' ' when no move of the round was flipped, the side's letter when one was, '*' for both."""
    sides = [side for side in SIDES if flipped(record, side)]
    if not sides:
        return " "
    return sides[0] if len(sides) == 1 else "*"


def conversation_frame(
    rounds: Sequence[Mapping[str, Any]], names: Mapping[str, str]
) -> pd.DataFrame:
    """One row per message of a match with a negotiation phase, in the order said, beside the
    round's two actions: round, turn, speaker, text and its marks (cut, silent, timeout,
    invalid, promise). Empty for a match without talk."""
    rows = []
    for record in rounds:
        for message in record.get("conversation") or ():
            marks = [
                word
                for key, word in (
                    ("cut", "cut"),
                    ("timeout", "timeout"),
                    ("invalid", "invalid"),
                    ("promise", "promise"),
                )
                if message.get(key)
            ]
            if message.get("empty") and not message.get("timeout"):
                marks.insert(0, "silent")
            rows.append(
                {
                    "round": record["round_index"],
                    "turn": message["turn"],
                    "speaker": names[message["speaker"]],
                    "side": message["speaker"],
                    "text": message["text"],
                    "marks": ", ".join(marks),
                    "action_a": record["agent_a_action"],
                    "action_b": record["agent_b_action"],
                }
            )
    columns = ["round", "turn", "speaker", "side", "text", "marks", "action_a", "action_b"]
    return pd.DataFrame(rows, columns=columns)


def seeds_frame(
    manifest: RunManifest,
    ledger: Sequence[LedgerEntry],
    condition: str,
    *,
    turn_game: bool = False,
) -> pd.DataFrame:
    """The seeds of one condition's matches, one row per (replicate, seed): `replicate`,
    `played` (rounds, or a turn game's turns, from the ledger; "not finished" without a line),
    `seed of` and `seed` (as text: 64-bit seeds keep every digit). Long, so it fits a narrow
    window. A turn game's matches have no horizon (they end by their rules; the manifest's round
    count is only the safety cap): their seeds are the agents' and the game's (its chance)."""
    unit = "turns" if turn_game else "rounds"
    entries = {entry.replicate: entry for entry in ledger if entry.condition == condition}
    rows = []
    for planned in manifest.seeds:
        if planned.condition != condition:
            continue
        entry = entries.get(planned.replicate)
        if entry is None:
            played = "not finished"
        elif turn_game:
            played = f"{entry.n_rounds} {unit}" + (" (aborted)" if entry.error else "")
        else:
            played = f"{entry.n_rounds} of {entry.planned_rounds} {unit}"
        seeds: dict[str, int | str] = {"agent A": planned.agent_a, "agent B": planned.agent_b}
        if turn_game:
            seeds["game"] = (entry.seeds.get("game") if entry else None) or "not stored"
        else:
            seeds = {"horizon": planned.horizon, **seeds}
        rows += [
            {"replicate": planned.replicate, "played": played, "seed of": name, "seed": str(seed)}
            for name, seed in seeds.items()
        ]
    return pd.DataFrame(rows, columns=["replicate", "played", "seed of", "seed"])
