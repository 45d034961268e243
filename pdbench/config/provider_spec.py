"""Who answers an LLM agent's prompts: the registry of provider kinds, and the provider spec a
config gives (which kind, which model, where, and the kind's own options).

A provider kind is one `register_provider(ProviderKind(...))` below plus the module that implements
its client (pdbench/providers/); the spec, the gateway and the LLM agent ask the kind, so nothing
else branches on a provider's name.

A kind's own options (the mock's strategy, invalid rate, ...) are a spec the kind registers
(`ProviderKind.options`, under the config key `options_field`: `provider.mock.strategy`), not
fields of `ProviderSpec`: a provider spec holds the options of its own kind (their defaults when
the config gives none) and, validated against their kind's spec, any other kind's a config gives,
which that provider never reads (`ignored_options`: a warning line, README "Providers")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic_core import PydanticCustomError

from pdbench.config.frozen import Frozen
from pdbench.config.mock_behaviour import MockBehaviour
from pdbench.core.plugins import load_group

__all__ = [
    "LITELLM",
    "MOCK",
    "MockBehaviour",
    "ProviderKind",
    "ProviderSpec",
    "TokenPrice",
    "provider_kinds",
    "register_provider",
]

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
    # The config key of this kind's own options (the mock's `mock`: `provider.mock.strategy`)
    # and their spec (a `Frozen` model, validated when a config gives them), None when it has
    # none. Another kind's provider given them names them in a warning (`ignored_options`).
    options_field: str | None = None
    options: type[Frozen] | None = None


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
        options=MockBehaviour,
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


def _options_fields() -> dict[str, ProviderKind]:
    """The config key of every registered kind's own options -> the kind."""
    return {
        kind.options_field: kind
        for kind in provider_kinds().values()
        if kind.options_field and kind.options is not None
    }


def _validated_options(kind: ProviderKind, value: Any) -> Frozen:
    """`value` validated against `kind`'s options spec; its errors keep their path under the
    kind's key (provider.mock.strategy), as a field's would."""
    assert kind.options is not None and kind.options_field is not None
    try:
        return kind.options.model_validate(value)
    except ValidationError as error:
        field = kind.options_field
        raise ValidationError.from_exception_data(
            "ProviderSpec", [_moved_under(field, problem) for problem in error.errors()]
        ) from None


def _moved_under(field: str, problem: Any) -> Any:
    """One of pydantic's error lines, its location put under `field`: pydantic's own error types
    as they are, any other (a PydanticCustomError's) rebuilt with its message and context."""
    line: dict[str, Any] = {"loc": (field, *problem["loc"]), "input": problem["input"]}
    context = problem.get("ctx")
    if context is not None:
        line["ctx"] = context
    try:  # a type pydantic knows by its name
        known: Any = {**line, "type": problem["type"]}
        ValidationError.from_exception_data("ProviderSpec", [known])
    except (KeyError, TypeError, ValueError):
        return {**line, "type": PydanticCustomError(problem["type"], problem["msg"], context)}
    return {**line, "type": problem["type"]}


class ProviderSpec(Frozen):
    """Who answers the prompts: a registered provider kind (the offline mock, or any litellm
    model), its settings and its kind's own options (see the module docstring)."""

    # Each kind's options are held beside the fields, under the kind's key, once validated
    # (`_kinds_options`): any other key is refused as an unknown field, as `extra="forbid"` would.
    model_config = ConfigDict(frozen=True, extra="allow", allow_inf_nan=False)

    @classmethod
    def options_models(cls) -> dict[str, type[Frozen]]:
        """The config key of every registered kind's options -> their spec (for "did you mean"
        under `provider.mock.`)."""
        return {field: kind.options for field, kind in _options_fields().items()}  # type: ignore[misc]

    @model_validator(mode="before")
    @classmethod
    def _kinds_options(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        by_field = _options_fields()
        unknown = [key for key in data if key not in cls.model_fields and key not in by_field]
        if unknown:
            raise ValidationError.from_exception_data(
                "ProviderSpec",
                [{"type": "extra_forbidden", "loc": (unknown[0],), "input": data[unknown[0]]}],
            )
        data = dict(data)
        for field, kind in by_field.items():
            if field in data:
                data[field] = _validated_options(kind, data[field])
        own = provider_kinds().get(str(data.get("name", cls.model_fields["name"].default)))
        if own is not None and own.options is not None and own.options_field not in data:
            data[own.options_field] = own.options()  # its defaults
        return data

    def options_of(self, field: str) -> Any:
        """The options given under the config key `field` (a kind's), None when none were."""
        return (self.__pydantic_extra__ or {}).get(field)

    @property
    def own_options(self) -> Any:
        """This provider's own kind's options (the mock's `MockBehaviour`), None for a kind
        without options."""
        field = self.kind.options_field
        return self.options_of(field) if field else None

    def without_kinds_options(self) -> ProviderSpec:
        """The same provider without any kind's options: what a batch is sent to (one batch
        per model and server, whatever options an agent set)."""
        extra = self.__pydantic_extra__ or {}
        return self.model_copy(update=dict.fromkeys(extra))

    name: str = Field("mock", description="a registered provider: mock or litellm")
    model: str = Field("mock", description="litellm model string, e.g. openai/gpt-4o-mini")
    api_base: str | None = Field(None, description="base URL of an OpenAI-compatible server")
    api_bases: tuple[str, ...] = Field(
        (),
        description="several servers of the same model (instead of api_base): round robin "
        "with failover; which one answered is recorded with each attempt, not in the cache key",
    )

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
        own = self.kind.options_field
        ignored: list[tuple[str, str]] = []
        for field, kind in _options_fields().items():
            options = self.options_of(field)
            if field == own or options is None:
                continue
            changed = options.model_dump(exclude_defaults=True)
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
            fields["provider_options"] = dict(self.own_options.key_items())
        return fields

    @property
    def deterministic_at_temperature_0(self) -> bool:
        return self.kind.deterministic_at_temperature_0
