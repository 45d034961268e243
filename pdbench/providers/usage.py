"""What a server says about its prompt cache, read from an answer (issue 33).

Three ways of saying it, all read here into (cached input tokens, cache-write tokens):

- OpenAI and every server speaking its format (vLLM, SGLang, recent llama.cpp):
  `usage.prompt_tokens_details.cached_tokens`, the prompt tokens served from the cache;
- Anthropic: `usage.cache_read_input_tokens` and `usage.cache_creation_input_tokens` (litellm
  keeps both on its Usage and copies the first into `prompt_tokens_details.cached_tokens`);
- llama.cpp's server: `timings.cache_n`, the prompt tokens it reused from its KV cache (and
  `timings.prompt_n`, those it evaluated), which litellm passes through on the response.

The price of cached input at its own rate is litellm's (`completion_cost` reads the same usage
fields and the price map's `cache_read_input_token_cost` / `cache_creation_input_token_cost`).
"""

from __future__ import annotations

from typing import Any


def cache_usage(response: Any) -> tuple[int | None, int | None]:
    """(cached input tokens, cache-write tokens) of a chat completion; None where the server
    says nothing (or something that is no count)."""
    usage = _get(response, "usage")
    details = _get(usage, "prompt_tokens_details")
    cached = _count(_get(details, "cached_tokens"))
    if cached is None:
        cached = _count(_get(usage, "cache_read_input_tokens"))
    if cached is None:
        cached = _count(_get(_get(response, "timings"), "cache_n"))
    written = _count(_get(usage, "cache_creation_input_tokens"))
    return cached, written


def _get(value: Any, name: str) -> Any:
    if value is None:
        return None
    if isinstance(value, dict):
        return value.get(name)
    return getattr(value, name, None)


def _count(value: Any) -> int | None:
    """A token count as reported: a non-negative integer (bool and floats with a fraction are
    not counts)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if value < 0 or value != int(value):
        return None
    return int(value)
