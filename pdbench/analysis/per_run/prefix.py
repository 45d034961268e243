"""How much of each prompt a server could answer from its prefix cache (issue 33).

llama.cpp (`cache_prompt`), vLLM and SGLang reuse the work done on a prompt's longest prefix that
an earlier prompt already had; OpenAI and Anthropic bill such cached input tokens at a lower rate.
An iterated game's prompt in round t+1 is, at best, the prompt of round t plus one history line.
This module measures it from stored attempts: for every round after the first, the share of the
prompt's tokens that the same side's prompt of the previous round of the same match began with.

A prompt is the conversation as first sent in the round: the system prompt, then the round
prompt (attempt 1; correction re-prompts extend it and are left out). Tokens come from a
`tokenize` function the caller passes (the command uses litellm's tokenizer for the model), so
this module stays a pure function of stored rounds.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

SIDES = ("a", "b")
# The round from which a layout is judged: round 2 is the first with a previous prompt, and its
# history goes from "nothing has happened yet" to the first line.
JUDGED_FROM_ROUND = 3

Tokenize = Callable[[str], Sequence[int]]


@dataclass(frozen=True, slots=True)
class PrefixShare:
    """One prompt compared with the previous round's prompt of the same match and side."""

    condition: str
    replicate: int
    side: str
    round_index: int
    tokens: int  # tokens of this round's prompt
    shared: int  # of them, the leading tokens the previous round's prompt had too

    @property
    def share(self) -> float:
        return self.shared / self.tokens if self.tokens else 0.0


@dataclass(frozen=True, slots=True)
class PrefixSummary:
    """The prefix shares of one condition and side, from `JUDGED_FROM_ROUND` on."""

    condition: str
    side: str
    prompts: int
    mean_share: float
    min_share: float
    mean_tokens: float
    mean_new_tokens: float  # tokens per prompt a prefix cache would not have


def conversation_text(attempt: dict) -> str | None:
    """The text a round's first request sent (system prompt, then the round prompt); None when
    the run kept no texts (store_prompts: hash or false)."""
    prompt = attempt.get("prompt")
    if not isinstance(prompt, str):
        return None
    system = attempt.get("system")
    return f"{system}\n\n{prompt}" if isinstance(system, str) and system else prompt


def shared_prefix(previous: Sequence[int], current: Sequence[int]) -> int:
    """How many leading tokens two token sequences have in common."""
    count = 0
    for before, now in zip(previous, current, strict=False):
        if before != now:
            break
        count += 1
    return count


def match_shares(
    condition: str, replicate: int, rounds: Iterable[dict], tokenize: Tokenize
) -> list[PrefixShare]:
    """The prefix share of every round after the first, for each side that asked a model."""
    shares: list[PrefixShare] = []
    previous: dict[str, Sequence[int]] = {}
    for record in sorted(rounds, key=lambda r: int(r.get("round_index", 0))):
        for side in SIDES:
            attempts = record.get(f"agent_{side}_attempts") or []
            text = conversation_text(attempts[0]) if attempts else None
            if text is None:
                previous.pop(side, None)  # a gap: the next round has nothing to compare with
                continue
            tokens = tokenize(text)
            if side in previous:
                shares.append(
                    PrefixShare(
                        condition=condition,
                        replicate=replicate,
                        side=side,
                        round_index=int(record["round_index"]),
                        tokens=len(tokens),
                        shared=shared_prefix(previous[side], tokens),
                    )
                )
            previous[side] = tokens
    return shares


def summarise(shares: Iterable[PrefixShare]) -> list[PrefixSummary]:
    """One line per condition and side, over the prompts from `JUDGED_FROM_ROUND` on."""
    groups: dict[tuple[str, str], list[PrefixShare]] = {}
    for share in shares:
        if share.round_index >= JUDGED_FROM_ROUND:
            groups.setdefault((share.condition, share.side), []).append(share)
    summaries = []
    for (condition, side), group in groups.items():
        summaries.append(
            PrefixSummary(
                condition=condition,
                side=side,
                prompts=len(group),
                mean_share=sum(s.share for s in group) / len(group),
                min_share=min(s.share for s in group),
                mean_tokens=sum(s.tokens for s in group) / len(group),
                mean_new_tokens=sum(s.tokens - s.shared for s in group) / len(group),
            )
        )
    return summaries
