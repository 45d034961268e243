"""What every provider takes and gives back, and the protocol a provider client implements.

A `CompletionRequest` holds exactly what changes a model's answer, and nothing else: its
`cache_key` is the replay cache's key. Transport settings (timeouts, retries, concurrency) live on
the `ProviderSpec` and the gateway, never here.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

import orjson

from pdbench.core.errors import PdbenchError
from pdbench.core.redact import strip_url_credentials

Role = Literal["user", "assistant"]
# How a server is made to answer one of the two labels: llama.cpp's `grammar` field, an OpenAI
# `json_schema` response format, or nothing (free text, parsed strictly).
Constraint = Literal["none", "grammar", "json_schema"]


class ProviderError(PdbenchError):
    """A provider call failed."""


class MissingCredentials(ProviderError):
    """No API key for a hosted model: found before any call, a mistake in the set-up (exit 2)."""


class RequestRefused(ProviderError):
    """The server answered that no retry can change: an unknown model (404), a bad request
    (400), a rejected key (401, 403). A mistake in the set-up, not a transient failure: nothing
    is retried, the run stops, and the message names the provider field to fix (exit 2)."""


class TransportFailure(ProviderError):
    """The call failed outside the model's answer: the server is down or timed out, answered 5xx
    or something that is no completion (empty choices, an HTML page), rejected the key, or does
    not know the model. This is not a result: the match stays unfinished, the run ends
    incomplete, and the same command plays it later (answers already paid come from the cache).
    Only an answer that fails parsing after its retries is a result (see on_invalid)."""


class ProviderUnavailable(TransportFailure):
    """A provider kept failing with transient errors until its attempts ran out."""


class MalformedResponse(Exception):
    """A response that is not a usable completion (retried like a transient error). `response`
    is the provider's response object when there is one (its usage says what it cost)."""

    def __init__(self, message: str, response: Any = None) -> None:
        super().__init__(message)
        self.response = response


@dataclass(frozen=True, slots=True)
class CompletionRequest:
    """One chat completion: a system prompt and the conversation so far."""

    provider: str  # "mock" or "litellm"
    model: str
    api_base: str | None
    system: str  # "": no system message (the conversation is all there is)
    messages: tuple[tuple[str, str], ...]  # (role, content), oldest first, ending with "user"
    temperature: float
    max_tokens: int
    seed: int | None = None
    response_format: str = "label"  # "label", "json", "reasoning"; "message" for a negotiate turn
    # Which sample this answer is: "<condition>#<replicate>". Only at temperature > 0 does it
    # belong in the key: there an answer is meant as a fresh sample, so two conditions (or two
    # replicates) whose prompts coincide still get answers of their own. At temperature 0 the
    # answer is the model's one deterministic reply, and replicates replay it.
    sample: str | None = None
    # A name a researcher picks (run.cache.namespace) to draw new samples on purpose.
    namespace: str | None = None
    # Settings of the provider that change its answers besides the model (the mock's strategy,
    # invalid rate, ...); empty for real providers, whose answer the model name decides.
    provider_options: tuple[tuple[str, Any], ...] = ()
    constrain: Constraint = "none"
    # The answers a constraint allows: a 2x2 game's two labels (cooperative first), or a turn
    # game's legal moves in its answer format; None when unconstrained.
    labels: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "messages", tuple((r, c) for r, c in self.messages))
        if self.temperature <= 0:
            object.__setattr__(self, "sample", None)
        if self.constrain == "none":
            object.__setattr__(self, "labels", None)
        elif self.labels is None:
            raise ValueError(f"constrain={self.constrain} needs the answers it allows")
        else:
            object.__setattr__(self, "labels", tuple(self.labels))

    def allowed_answers(self) -> tuple[str, ...] | None:
        """The exact texts a constrained server may answer, in `labels`' order; None if free.

        A label as it is in `label` format (also a turn game's answers); `{"action": "<label>"}`
        (one line, no reason) in `json`."""
        if self.labels is None:
            return None
        if self.response_format == "json":
            return tuple(json.dumps({"action": label}) for label in self.labels)
        return self.labels

    @property
    def prompt(self) -> str:
        """The last user message."""
        return next((c for r, c in reversed(self.messages) if r == "user"), "")

    def key_fields(self) -> dict[str, Any]:
        """Exactly the fields the cache key is made of."""
        return (
            {
                "provider": self.provider,
                "model": self.model,
                # The server, not the credentials in its URL: a rotated key keeps its answers,
                # and the key is nowhere in the cache, not even hashed.
                "api_base": strip_url_credentials(self.api_base) if self.api_base else None,
                "system": self.system,
                "messages": [[role, content] for role, content in self.messages],
                "temperature": self.temperature,
                "max_tokens": self.max_tokens,
                "seed": self.seed,
                "response_format": self.response_format,
                "sample": self.sample,
            }
            | ({"namespace": self.namespace} if self.namespace is not None else {})
            | ({"provider_options": dict(self.provider_options)} if self.provider_options else {})
            | (
                # Only a constrained request carries these, so the keys of answers cached before
                # constraints existed stay what they were.
                {}
                if self.labels is None
                else {"constrain": self.constrain, "labels": list(self.labels)}
            )
        )

    def cache_key(self) -> str:
        """sha256 of the canonical JSON (sorted keys, no whitespace) of `key_fields`."""
        canonical = orjson.dumps(self.key_fields(), option=orjson.OPT_SORT_KEYS)
        return hashlib.sha256(canonical).hexdigest()

    def chat_messages(self) -> list[dict[str, str]]:
        """The OpenAI-style message list: the system prompt (none when it is empty), then the
        conversation."""
        system = [{"role": "system", "content": self.system}] if self.system else []
        return system + [{"role": role, "content": content} for role, content in self.messages]


# What a server says about its answer, kept for audit (None when the provider does not say).
AUDIT_FIELDS = (
    "requested_model",
    "reported_model",
    "response_id",
    "system_fingerprint",
    "reasoning",
    "server",
)
CACHE_USAGE_FIELDS = ("cached_input_tokens", "cache_write_tokens")


@dataclass(frozen=True, slots=True)
class Completion:
    """A model's answer and what it cost. `cost_usd` is None when the price is unknown."""

    text: str
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None
    cached: bool = False
    # The model asked, kept only when the server reports another one answered (the gateway
    # sets it: see answer_checks.is_other_model), so both names are stored with the answer.
    requested_model: str | None = None
    reported_model: str | None = None  # the model name the server reports (response.model)
    response_id: str | None = None  # the provider's id of this response
    system_fingerprint: str | None = None  # the serving configuration, when the provider says
    reasoning: str | None = None  # reasoning text returned apart from the answer
    server: str | None = None  # which of several servers answered (provider.api_bases)
    # Of input_tokens, those the server answered from its prompt cache and those it wrote into
    # it (Anthropic); None when it does not say (see providers/usage.py).
    cached_input_tokens: int | None = None
    cache_write_tokens: int | None = None

    def audit(self) -> dict[str, str]:
        """The audit fields the provider filled in (stored with the attempt)."""
        values = {name: getattr(self, name) for name in AUDIT_FIELDS}
        return {name: value for name, value in values.items() if value is not None}

    def to_json_dict(self) -> dict[str, Any]:
        """What the replay cache stores (everything but `cached`), so a replay writes the same
        attempts as the live run."""
        return {
            "text": self.text,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cost_usd": self.cost_usd,
            **self.audit(),
            **self.cache_usage(),
        }

    def cache_usage(self) -> dict[str, int]:
        """The prompt-cache counts the server reported (stored with the answer and attempt)."""
        values = {name: getattr(self, name) for name in CACHE_USAGE_FIELDS}
        return {name: value for name, value in values.items() if value is not None}

    @classmethod
    def from_json_dict(cls, value: dict[str, Any], *, cached: bool) -> Completion:
        return cls(
            text=value["text"],
            input_tokens=int(value.get("input_tokens") or 0),
            output_tokens=int(value.get("output_tokens") or 0),
            cost_usd=value.get("cost_usd"),
            cached=cached,
            **{name: value[name] for name in AUDIT_FIELDS if value.get(name) is not None},
            cached_input_tokens=_count_or_none(value.get("cached_input_tokens")),
            cache_write_tokens=_count_or_none(value.get("cache_write_tokens")),
        )


def _count_or_none(value: Any) -> int | None:
    return None if value is None else int(value)


@runtime_checkable
class ProviderClient(Protocol):
    """Answers prompts."""

    async def acomplete(self, request: CompletionRequest) -> Completion: ...
