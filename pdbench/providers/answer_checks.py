"""What a provider reports about an answer it was paid for, checked before it is counted or used.

- Usage that cannot be (negative token counts, a negative or non-finite price): the tokens are
  counted as zero and the price as unknown, so a broken or hostile server can never make the spend
  shrink and the budget grow. Said once, counted in the manifest's spend (`impossible_usage`).
- An answer from another model than the one asked (asked gpt-4o-mini, answered gpt-4o): played and
  priced as the server reports it, but said and counted (`other_model`). A dated snapshot of the
  asked model (`gpt-4o-mini-2024-07-18`), a tag (`llama3:latest`) or the name without its litellm
  prefix (`openai/...`) is the same model.
"""

from __future__ import annotations

import dataclasses
import math
import re

from pdbench.providers.base import Completion

# A version suffix that names a snapshot of the same model: a date, a four-digit release,
# "latest" or "preview", or an Ollama-style tag after a colon.
_SNAPSHOT = re.compile(
    r"(?:-(?:\d{4}-\d{2}-\d{2}|\d{8}|\d{4}|latest|preview))+$|:[\w.\-]+$", re.IGNORECASE
)


def impossible_usage(completion: Completion) -> bool:
    cost = completion.cost_usd
    return (
        completion.input_tokens < 0
        or completion.output_tokens < 0
        or (cost is not None and (not math.isfinite(cost) or cost < 0))
    )


def with_possible_usage(completion: Completion) -> Completion:
    """The completion with impossible usage replaced: no tokens, an unknown price."""
    return dataclasses.replace(
        completion,
        input_tokens=max(completion.input_tokens, 0),
        output_tokens=max(completion.output_tokens, 0),
        cost_usd=None,
    )


def _base_name(model: str) -> str:
    name = model.strip().casefold().rsplit("/", 1)[-1]
    return _SNAPSHOT.sub("", name)


def is_other_model(asked: str, reported: str | None) -> bool:
    """Whether the server says another model than `asked` answered (None: it says nothing)."""
    if not reported:
        return False
    return _base_name(asked) != _base_name(reported)
