"""Asking a server to reuse the prompt prefix it has already seen (issue 33).

Prefix caching costs nothing in answers: the server computes the same tokens, only faster (or
bills them cheaper). It is a transport setting, like a timeout, so it is on the provider spec and
not in the replay cache's key. Two knobs exist:

- `provider.cache_prompt` (llama.cpp's server): its `cache_prompt` field, sent in the JSON body,
  keeps a slot's KV cache and evaluates only the part of the next prompt past the shared prefix.
  null sends nothing (the server's default, on in current llama.cpp); true or false ask for it.
- `provider.cache_markers` (Anthropic, and others that take `cache_control` markers through
  litellm): litellm's `cache_control_injection_points` marks the system prompt (or, without one,
  the first message) as a cache breakpoint. Anthropic caches a prefix only from 1,024 tokens
  (2,048 for Haiku), so a short system prompt gains nothing.

OpenAI, DeepSeek, vLLM and SGLang cache prefixes by themselves: nothing to ask.
"""

from __future__ import annotations

from typing import Any

from pdbench.config.schema import ProviderSpec
from pdbench.providers.base import CompletionRequest


def prompt_cache_kwargs(
    spec: ProviderSpec, request: CompletionRequest, kwargs: dict[str, Any]
) -> dict[str, Any]:
    """`kwargs` for litellm.acompletion with the prompt-cache settings of `spec` added."""
    if spec.cache_prompt is not None:
        extra_body = dict(kwargs.get("extra_body") or {})
        extra_body["cache_prompt"] = spec.cache_prompt
        kwargs = {**kwargs, "extra_body": extra_body}
    if spec.cache_markers:
        point: dict[str, Any] = (
            {"location": "message", "role": "system"}
            if request.system
            else {"location": "message", "index": 0}
        )
        kwargs = {**kwargs, "cache_control_injection_points": [point]}
    return kwargs
