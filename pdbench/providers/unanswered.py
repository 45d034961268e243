"""Calls a provider may have billed though no answer came back: the client timed out after
sending the request (`provider.timeout_s`), and the server may still have answered, and billed.

They are counted as estimates, apart from the paid calls (CallCounts.estimated_*): the prompt's
tokens as counted before sending (litellm's tokenizer for the model, else cl100k_base), at most
`max_tokens` of answer, at the model's price (the config's, else litellm's map): an upper bound
of what such a call cost, or an unknown price. A timeout while connecting cannot be told apart
from one while the server answers, so it is counted too: the estimate errs towards more.
"""

from __future__ import annotations

from pdbench.config.provider_spec import ProviderSpec
from pdbench.providers.base import CompletionRequest
from pdbench.providers.prices import rates
from pdbench.storage.schema import CallCounts


def prompt_tokens(request: CompletionRequest) -> int:
    """The tokens of the messages sent, as litellm's tokenizer for the model counts them."""
    from pdbench.providers.tokens import tokenizer_for

    tokenizer = tokenizer_for(request.model)
    return sum(tokenizer.count(message["content"]) for message in request.chat_messages())


def timed_out_call(spec: ProviderSpec, request: CompletionRequest) -> CallCounts:
    """The estimate of one call that timed out."""
    input_tokens, output_tokens = prompt_tokens(request), request.max_tokens
    found = rates(spec)
    cost = 0.0
    if found is not None:
        (input_rate, _, output_rate), _ = found
        cost = input_tokens * input_rate + output_tokens * output_rate
    return CallCounts(
        estimated_calls=1,
        estimated_input_tokens=input_tokens,
        estimated_output_tokens=output_tokens,
        estimated_cost_usd=cost,
        estimated_unknown_price=int(found is None),
    )


def timed_out_reason(spec: ProviderSpec) -> str:
    """Why a spend line is an estimate: what its `estimate` field says."""
    return (
        f"timed out after {spec.timeout_s:g} s (provider.timeout_s): the provider may have "
        "answered and billed it; the prompt's tokens and max_tokens of answer, at most"
    )
