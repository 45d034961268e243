"""Who answers an LLM agent's prompts: the registry of provider kinds, and the provider spec a
config gives (which kind, which model, where, and the mock's options).

A provider kind is one `register_provider(ProviderKind(...))` below plus the module that implements
its client (pdbench/providers/); the spec, the gateway and the LLM agent ask the kind, so nothing
else branches on a provider's name."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import Field, ValidationInfo, field_validator, model_validator

from pdbench.config.frozen import Frozen
from pdbench.config.policy_params import checked_params, known_policy_name
from pdbench.core.plugins import load_group

# --- the registry ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ProviderKind:
    """A provider a config may name (`provider.name`), as data, in the manner of inspect_ai's
    `@modelapi` registry: the module that implements it is imported only when it is used."""

    name: str
    # "module:attribute" of the client factory: (ProviderSpec, *, project_root) -> ProviderClient
    client_entry_point: str
    # Answers with no network and no key (the tests, the README's examples, dry runs).
    offline: bool
    # At temperature 0, is the same prompt meant as the same answer (a real model: replicates
    # replay)? The mock simulates sampling, so its replicates are independent draws.
    deterministic_at_temperature_0: bool
    # Without a configured seed, is each match and side sent a seed derived for it (so the
    # mock's random strategies differ between replicates)? A real provider gets no seed then.
    seeded_per_match: bool
    # "module:attribute" of (ProviderSpec) -> the (name, value) pairs besides the request that
    # decide its answers, for the cache key (the mock's behaviour, as a model's weights would).
    key_options_entry_point: str | None = None
    # The field of ProviderSpec holding this kind's own options (the mock's `mock`), None when
    # it has none: a config that sets them for another kind is refused, not silently ignored.
    options_field: str | None = None


PROVIDER_KINDS: dict[str, ProviderKind] = {}


def register_provider(kind: ProviderKind) -> ProviderKind:
    PROVIDER_KINDS[kind.name] = kind
    return kind


def provider_kinds() -> dict[str, ProviderKind]:
    """Every registered provider kind by name: those registered in this process and those of
    the installed packages' `pdbench.providers` entry points (loaded the first time, see
    `pdbench.core.plugins`)."""
    load_group("pdbench.providers")
    return PROVIDER_KINDS


MOCK = register_provider(
    ProviderKind(
        name="mock",
        client_entry_point="pdbench.providers.mock:client_for",
        offline=True,
        deterministic_at_temperature_0=False,
        seeded_per_match=True,
        key_options_entry_point="pdbench.providers.mock:cache_key_options",
        options_field="mock",
    )
)
LITELLM = register_provider(
    ProviderKind(
        name="litellm",
        client_entry_point="pdbench.providers.servers:litellm_client",
        offline=False,
        deterministic_at_temperature_0=True,
        seeded_per_match=False,
    )
)


# --- the mock's options ---------------------------------------------------------------------------------


class MockBehaviour(Frozen):
    """How the offline mock model answers (deterministic from the seed and the prompt).

    With `strategy: policy` it answers as the registered `policy` would (a scripted model): it
    reads the rules and the history from the prompt it receives, replays that history through
    the policy and answers the policy's move in the requested format."""

    strategy: Literal["cooperate", "defect", "reciprocate", "random", "policy"] = "reciprocate"
    cooperate_prob: float = Field(0.5, ge=0, le=1, description="P(C) for strategy=random")
    invalid_rate: float = Field(0.0, ge=0, le=1, description="share of answers that are garbage")
    latency_s: float = Field(0.0, ge=0, description="simulated seconds per call (benchmarks)")
    policy: str | None = Field(
        None, description="strategy=policy: the registered policy it plays, e.g. grim, random"
    )
    params: dict[str, Any] = Field(
        default_factory=dict, description="strategy=policy: that policy's parameters"
    )

    @field_validator("policy")
    @classmethod
    def _known_policy(cls, value: str | None) -> str | None:
        return None if value is None else known_policy_name(value)

    @field_validator("params")
    @classmethod
    def _params_fit_the_policy(cls, params: dict[str, Any], info: ValidationInfo) -> dict[str, Any]:
        return checked_params(info.data.get("policy") or "", params)

    @model_validator(mode="after")
    def _policy_with_its_strategy(self) -> MockBehaviour:
        if self.strategy == "policy" and self.policy is None:
            raise ValueError("strategy: policy needs the policy to play, e.g. policy: grim")
        if self.strategy != "policy" and (self.policy is not None or self.params):
            raise ValueError(
                f"policy and params apply only with strategy: policy (strategy is {self.strategy})"
            )
        return self

    def __hash__(self) -> int:  # params is a dict; a provider spec is a key of client caches
        return hash(json.dumps(self.model_dump(mode="json"), sort_keys=True))

    def key_items(self) -> tuple[tuple[str, Any], ...]:
        """What decides the mock's answers besides the request: every field but the latency; the
        policy and its params only when it plays one (so the keys of other mocks are unchanged).
        The mock itself may add to it (pdbench.providers.mock.cache_key_options)."""
        exclude = {"latency_s"} if self.strategy == "policy" else {"latency_s", "policy", "params"}
        return tuple(sorted(self.model_dump(mode="json", exclude=exclude).items()))


class TokenPrice(Frozen):
    """A model's price in USD per million tokens, as providers quote it: used instead of
    litellm's price map (a model the map does not know, a negotiated rate, a hosted server)."""

    input: float = Field(ge=0, description="USD per million input tokens")
    output: float = Field(ge=0, description="USD per million output tokens")
    cached_input: float | None = Field(
        None, ge=0, description="USD per million cached input tokens (null: the input price)"
    )

    def cost(self, input_tokens: int, output_tokens: int, cached_input_tokens: int = 0) -> float:
        """USD for one call's usage (`cached_input_tokens` is part of `input_tokens`)."""
        cached = min(max(cached_input_tokens, 0), input_tokens)
        cached_rate = self.input if self.cached_input is None else self.cached_input
        return (
            (input_tokens - cached) * self.input
            + cached * cached_rate
            + output_tokens * self.output
        ) / 1e6


class ProviderSpec(Frozen):
    """Who answers the prompts: a registered provider kind (the offline mock, or any litellm
    model) and its settings."""

    name: str = Field("mock", description="a registered provider: mock or litellm")
    model: str = Field("mock", description="litellm model string, e.g. openai/gpt-4o-mini")
    api_base: str | None = Field(None, description="base URL of an OpenAI-compatible server")
    api_bases: tuple[str, ...] = Field(
        (),
        description="several servers of the same model (instead of api_base): round robin "
        "with failover; which one answered is recorded with each attempt, not in the cache key",
    )
    mock: MockBehaviour = MockBehaviour()

    @field_validator("name")
    @classmethod
    def _known_provider(cls, value: str) -> str:
        if value not in provider_kinds():
            from pdbench.core.errors import unknown_choice

            raise ValueError(unknown_choice("provider", value, provider_kinds()))
        return value

    @field_validator("model")
    @classmethod
    def _model_named(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("is empty: name the model, e.g. openai/gpt-4o-mini")
        return value

    @field_validator("api_bases")
    @classmethod
    def _api_bases_are_urls(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for url in value:
            cls._api_base_is_a_url(url)
        if len(set(value)) != len(value):
            raise ValueError("names a server twice")
        return value

    @model_validator(mode="after")
    def _one_or_several_servers(self) -> ProviderSpec:
        if self.api_base is not None and self.api_bases:
            raise ValueError("give api_base (one server) or api_bases (several), not both")
        return self

    def ignored_options(self) -> list[tuple[str, str]]:
        """Options of another provider kind set away from their defaults (the mock's
        `("mock", "mock.strategy")` on a litellm provider: (the kind, the option), as when an experiment written for the mock is run
        with `provider=openai`): this provider never reads them, which `validate` and `run`
        say in a warning line each rather than ignore in silence."""
        own = provider_kinds()[self.name].options_field
        ignored: list[tuple[str, str]] = []
        for kind in provider_kinds().values():
            field = kind.options_field
            if field is None or field == own or field not in type(self).model_fields:
                continue
            changed = getattr(self, field).model_dump(exclude_defaults=True)
            ignored.extend((kind.name, f"{field}.{option}") for option in sorted(changed))
        return ignored

    @field_validator("api_base")
    @classmethod
    def _api_base_is_a_url(cls, value: str | None) -> str | None:
        # A URL without its scheme (localhost:9/v1) was retried for half a minute as if the
        # server were down; it is a mistake in the config, found before any call.
        if value is None:
            return value
        from urllib.parse import urlsplit

        try:
            parts = urlsplit(value.strip())
            parts.port  # noqa: B018 - raises on a port that is not a number
        except ValueError:
            parts = None
        if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(
                "is not a URL: give the scheme and the host, e.g. http://localhost:8000/v1"
            )
        return value

    timeout_s: float = Field(60.0, gt=0, description="per-call timeout (not part of the cache key)")
    max_attempts: int = Field(
        5, ge=1, description="transport attempts on rate limits and timeouts, with backoff"
    )
    max_retry_after_s: float = Field(
        60.0,
        ge=0,
        description="the longest one call waits when a 429 asks to wait (Retry-After); a longer "
        "ask waits this long, then tries again (not part of the cache key or the config hash)",
    )
    cache_prompt: bool | None = Field(
        None,
        description="llama.cpp's cache_prompt: reuse the KV cache of the prompt prefix a slot "
        "already evaluated (null: send nothing, the server's default; not part of the cache key)",
    )
    cache_markers: bool = Field(
        False,
        description="mark the system prompt as a cache breakpoint (Anthropic's cache_control, "
        "through litellm; not part of the cache key)",
    )
    usd_per_million_tokens: TokenPrice | None = Field(
        None,
        description="the model's price ({input: 0.15, output: 0.6}), used instead of litellm's "
        "price map; null: the map's (not part of the cache key or the config hash)",
    )

    @property
    def kind(self) -> ProviderKind:
        return provider_kinds()[self.name]

    def answer_fields(self) -> dict[str, Any]:
        """The provider's part of the cache key that is the same for every prompt (see
        CompletionRequest.key_fields): provider, model, the server without its credentials, and
        the options that decide a provider's answers when its kind has any (the mock's)."""
        from pdbench.core.redact import strip_url_credentials

        fields: dict[str, Any] = {
            "provider": self.name,
            "model": self.model,
            "api_base": strip_url_credentials(self.api_base) if self.api_base else None,
        }
        if self.kind.key_options_entry_point is not None:
            fields["provider_options"] = dict(self.mock.key_items())
        return fields

    @property
    def deterministic_at_temperature_0(self) -> bool:
        return self.kind.deterministic_at_temperature_0
