"""What every provider takes and gives back, and the protocol a provider client implements.

A `CompletionRequest` holds exactly what changes a model's answer, and nothing else: its
`cache_key` is the replay cache's key. Transport settings (timeouts, retries, concurrency) live on
the `ProviderSpec` and the gateway, never here.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

import orjson

from pdbench.core.errors import PdbenchError

Role = Literal["user", "assistant"]


class ProviderError(PdbenchError):
    """A provider call failed for a reason retrying will not fix (no API key, bad model, ...)."""


class ProviderUnavailable(ProviderError):
    """A provider kept failing with transient errors (rate limits, timeouts) until attempts ran out."""


@dataclass(frozen=True, slots=True)
class CompletionRequest:
    """One chat completion: a system prompt and the conversation so far."""

    provider: str  # "mock" or "litellm"
    model: str
    api_base: str | None
    system: str
    messages: tuple[tuple[str, str], ...]  # (role, content), oldest first, ending with "user"
    temperature: float
    max_tokens: int
    seed: int | None = None
    response_format: str = "label"  # "label" or "json"
    # The replicate index. Only at temperature > 0 does it belong in the key: there, replicates are
    # meant to be independent samples; at temperature 0 they share one (cached) answer.
    sample_index: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "messages", tuple((r, c) for r, c in self.messages))
        if self.temperature <= 0:
            object.__setattr__(self, "sample_index", None)

    @property
    def prompt(self) -> str:
        """The last user message."""
        return next((c for r, c in reversed(self.messages) if r == "user"), "")

    def key_fields(self) -> dict[str, Any]:
        """Exactly the fields the cache key is made of."""
        return {
            "provider": self.provider,
            "model": self.model,
            "api_base": self.api_base,
            "system": self.system,
            "messages": [[role, content] for role, content in self.messages],
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "seed": self.seed,
            "response_format": self.response_format,
            "sample_index": self.sample_index,
        }

    def cache_key(self) -> str:
        """sha256 of the canonical JSON (sorted keys, no whitespace) of `key_fields`."""
        canonical = orjson.dumps(self.key_fields(), option=orjson.OPT_SORT_KEYS)
        return hashlib.sha256(canonical).hexdigest()

    def chat_messages(self) -> list[dict[str, str]]:
        """The OpenAI-style message list: the system prompt, then the conversation."""
        return [{"role": "system", "content": self.system}] + [
            {"role": role, "content": content} for role, content in self.messages
        ]


@dataclass(frozen=True, slots=True)
class Completion:
    """A model's answer and what it cost. `cost_usd` is None when the price is unknown."""

    text: str
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None
    cached: bool = False

    def to_json_dict(self) -> dict[str, Any]:
        """What the replay cache stores (everything but `cached`)."""
        return {
            "text": self.text,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cost_usd": self.cost_usd,
        }

    @classmethod
    def from_json_dict(cls, value: dict[str, Any], *, cached: bool) -> Completion:
        return cls(
            text=value["text"],
            input_tokens=int(value.get("input_tokens") or 0),
            output_tokens=int(value.get("output_tokens") or 0),
            cost_usd=value.get("cost_usd"),
            cached=cached,
        )


@runtime_checkable
class ProviderClient(Protocol):
    """Answers prompts."""

    async def acomplete(self, request: CompletionRequest) -> Completion: ...
