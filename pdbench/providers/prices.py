"""What a model's call costs, known before any call: the price a config gives
(`provider.usd_per_million_tokens`), else litellm's price map (its local copy, nothing fetched).

A budget (`run.max_cost_usd`) can stop only calls it can price: a run under a budget that asks a
model with no known price is refused before its first call (`unpriced_models`), unless the
config says to go on (`run.allow_unpriced_calls`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pdbench.config.provider_spec import ProviderSpec, TokenPrice
from pdbench.providers.litellm_library import import_litellm
from pdbench.providers.usage import cache_usage

PRICE_FIELD = "provider.usd_per_million_tokens"


def map_rates(model: str) -> tuple[float, float, float] | None:
    """(input, cached input, output) USD per token from litellm's price map; None when the map
    has no price for the model (a cached rate it lacks is the input rate)."""
    litellm = import_litellm()
    try:
        info = litellm.get_model_info(model)
    except Exception:
        return None
    input_rate = info.get("input_cost_per_token")
    output_rate = info.get("output_cost_per_token")
    if not input_rate or output_rate is None:
        return None
    cached_rate = info.get("cache_read_input_token_cost") or input_rate
    return float(input_rate), float(cached_rate), float(output_rate)


def rates(spec: ProviderSpec) -> tuple[tuple[float, float, float], str] | None:
    """(input, cached input, output) USD per token and where they come from, or None when the
    price is unknown. An offline provider is free."""
    price = spec.usd_per_million_tokens
    if price is not None:
        cached = price.input if price.cached_input is None else price.cached_input
        per_token = (price.input / 1e6, cached / 1e6, price.output / 1e6)
        return per_token, PRICE_FIELD
    if spec.kind.offline:
        return (0.0, 0.0, 0.0), "free (offline)"
    found = map_rates(spec.model)
    return None if found is None else (found, "litellm price map")


def unpriced_models(specs: Iterable[ProviderSpec]) -> list[str]:
    """The models among `specs` whose price is unknown, each once, in first-seen order."""
    unknown: dict[str, None] = {}
    for spec in dict.fromkeys(specs):
        if spec.model not in unknown and rates(spec) is None:
            unknown[spec.model] = None
    return list(unknown)


def cost_at(price: TokenPrice, response: Any) -> float:
    """A chat completion's cost at a given price, from the usage it reports."""
    usage = getattr(response, "usage", None)
    return price.cost(
        int(getattr(usage, "prompt_tokens", 0) or 0),
        int(getattr(usage, "completion_tokens", 0) or 0),
        cache_usage(response)[0] or 0,
    )
