"""A Passcode match as a transcript, from its stored turn lines (rounds.jsonl, one line per turn:
a round is a `question` turn of both players, an `answer` turn of the Keeper's two seats
`keeper:a` / `keeper:b`, then a `guess` turn of both players): per word and round, each
player's question, the Keeper's private answer to it (and the audit's, when the condition had
one), its guess and whether it was right; per word, how it ended.

Hidden information: the secret word comes only from the `revealed` record of the guess turn that
ended the word (`Passcode.revealed`). A word still in play when the match ended (an aborted
match) has no word here, never one derived from the match's seed. Each player's questions and
answers are its own: the frame keeps them per player, as the Keeper answered them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

PLAYERS = ("a", "b")
EXCHANGE_COLUMNS = (
    "word",
    "round",
    "player",
    "question",
    "answer",
    "audit",
    "guess",
    "right",
    "marks",
)
WORD_COLUMNS = ("word", "rounds", "secret_word", "solved_by", "points_a", "points_b")


@dataclass(frozen=True)
class PasscodeTranscript:
    """`exchanges`: one row per (word, round, player) in play order (EXCHANGE_COLUMNS; `answer`,
    `guess` and `right` are None where the match ended before that step, `audit` None without an
    audit, `guess` "pass" for a pass). `words`: one row per word begun (WORD_COLUMNS;
    `secret_word`, `solved_by` None and the points NaN while the word was not over)."""

    exchanges: pd.DataFrame
    words: pd.DataFrame
    has_audit: bool


def _marks(line: Mapping[str, Any], seat: str, step: str) -> list[str]:
    """What was substituted or went wrong in one seat's answer of a turn, e.g. "question:
    fallback"."""
    decision = (line.get("decisions") or {}).get(seat) or {}
    found = []
    invalid = int(decision.get("invalid_outputs") or 0)
    if invalid:
        found.append(f"{invalid} invalid")
    for key in ("fallback", "timeout"):
        if decision.get(key):
            found.append(key)
    if decision.get("error"):
        found.append("error")
    return [f"{step}: {', '.join(found)}"] if found else []


def passcode_transcript(turns: Iterable[Mapping[str, Any]]) -> PasscodeTranscript:
    """The transcript of one match from its turn lines (see the module docstring)."""
    ordered = sorted(turns, key=lambda line: int(line["turn"]))
    rows: dict[tuple[int, int, str], dict[str, Any]] = {}
    words: dict[int, dict[str, Any]] = {}
    word = 1
    has_audit = False
    for line in ordered:
        number = int(line["round"])
        phase = line["phase"]
        actions = line.get("actions") or {}
        words.setdefault(word, {"word": word, "rounds": 0})
        words[word]["rounds"] = max(words[word]["rounds"], number)
        for player in PLAYERS:
            row = rows.setdefault(
                (word, number, player),
                {column: None for column in EXCHANGE_COLUMNS}
                | {"word": word, "round": number, "player": player, "marks": []},
            )
            if phase == "question" and player in actions:
                row["question"] = actions[player].get("text")
                row["marks"] += _marks(line, player, "question")
            elif phase == "answer" and f"keeper:{player}" in actions:
                seat = f"keeper:{player}"
                row["answer"] = actions[seat].get("text")
                if "audit" in actions[seat]:
                    has_audit = True
                    row["audit"] = actions[seat]["audit"]
                row["marks"] += _marks(line, seat, "Keeper")
            elif phase == "guess" and player in actions:
                action = actions[player]
                row["guess"] = action.get("word") if action.get("type") == "guess" else "pass"
                shown = line.get("revealed") or {}
                row["right"] = bool((shown.get("right") or {}).get(player))
                row["marks"] += _marks(line, player, "guess")
        ended = (line.get("revealed") or {}).get("word")
        if phase == "guess" and ended is not None:
            points = ended.get("points") or {}
            right = (line.get("revealed") or {}).get("right") or {}
            words[word] |= {
                "secret_word": ended.get("secret_word"),
                "solved_by": [p for p in PLAYERS if right.get(p)],
                "points_a": points.get("a"),
                "points_b": points.get("b"),
            }
            word += 1
    exchanges = pd.DataFrame(
        [row | {"marks": "; ".join(row["marks"])} for row in rows.values()],
        columns=list(EXCHANGE_COLUMNS),
    )
    word_rows = [{column: entry.get(column) for column in WORD_COLUMNS} for entry in words.values()]
    word_table = pd.DataFrame(word_rows, columns=list(WORD_COLUMNS))
    for column in ("secret_word", "solved_by"):  # None, never NaN, for a word not over
        word_table[column] = pd.Series([row[column] for row in word_rows], dtype=object)
    return PasscodeTranscript(exchanges, word_table, has_audit)
