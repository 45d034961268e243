"""Talk metrics: what each agent said in the negotiation phases of a match, and whether it did what
it promised.

Per round and side, four counts are read from the stored conversation (`talk_flags`); they travel
with the other per-round flags of `StoredMatches` and are summed per match like them. Per match
and agent (`talk_metrics`):

- messages: the non-empty messages it sent;
- message_length: their mean length in characters (null when it sent none);
- promise_share: the share of the rounds with talk in which it made a promise (a message holding
  one of the condition's promise phrases, marked on the stored message);
- promise_keeping: of the rounds in which it promised, the share in which it played C (null when
  it never promised): a lying agent scores 0, an honest one 1.

Without a negotiation phase every talk metric is null (nothing was said, and nothing could be).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

SIDES = ("a", "b")
# Per-round counts per side: turns taken, non-empty messages, their characters, 1 if a promise.
TALK_FLAGS = ("talk_turns", "messages", "message_chars", "promises")
TALK_FLAG_NAMES = tuple(f"{name}_{side}" for name in TALK_FLAGS for side in SIDES)


def talk_flags(
    conversations: Sequence[Sequence[Mapping[str, Any]] | None],
) -> dict[str, np.ndarray]:
    """The per-round talk counts of rounds laid end to end; a round without a conversation (no
    negotiation phase) counts zero turns."""
    counts = {name: np.zeros(len(conversations), dtype=np.int64) for name in TALK_FLAG_NAMES}
    for row, conversation in enumerate(conversations):
        for message in conversation or ():
            side = message["speaker"]
            counts[f"talk_turns_{side}"][row] += 1
            if message["text"]:
                counts[f"messages_{side}"][row] += 1
                counts[f"message_chars_{side}"][row] += len(message["text"])
            if message["promise"]:
                counts[f"promises_{side}"][row] = 1
    return counts


def talk_metrics(
    flags: Mapping[str, np.ndarray],
    starts: np.ndarray,
    coop: Mapping[str, np.ndarray],
) -> dict[str, np.ndarray]:
    """The talk metrics per match (see the module docstring); `coop` is each side's per-round
    cooperation, `flags` holds the TALK_FLAG_NAMES (absent ones count as zeros)."""
    n_rounds = len(next(iter(coop.values())))
    columns: dict[str, np.ndarray] = {}

    def per_match(values: np.ndarray) -> np.ndarray:
        return np.add.reduceat(values.astype(np.int64), starts).astype(float)

    for side in SIDES:

        def total(name: str, side: str = side) -> np.ndarray:
            values = flags.get(f"{name}_{side}")
            return per_match(values if values is not None else np.zeros(n_rounds, np.int64))

        turns, sent = total("talk_turns"), total("messages")
        chars, promised = total("message_chars"), total("promises")
        promised_rounds = flags.get(f"promises_{side}", np.zeros(n_rounds, np.int64)) > 0
        kept = per_match(promised_rounds & coop[side])
        talked_rounds = per_match(flags.get(f"talk_turns_{side}", np.zeros(n_rounds)) > 0)
        with np.errstate(invalid="ignore", divide="ignore"):
            columns[f"messages_{side}"] = np.where(turns > 0, sent, np.nan)
            columns[f"message_length_{side}"] = np.where(sent > 0, chars / sent, np.nan)
            columns[f"promise_share_{side}"] = np.where(
                talked_rounds > 0, promised / talked_rounds, np.nan
            )
            columns[f"promise_keeping_{side}"] = np.where(promised > 0, kept / promised, np.nan)
    return columns
