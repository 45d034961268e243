"""Counting a model's prompt tokens before (or without) asking it: litellm's tokenizer for the
model where litellm has one, else an estimate that says so.

litellm counts with the model's own tokenizer for the models it knows one for (OpenAI's tiktoken
encodings, the Claude tokenizer it ships); the Hugging Face tokenizers it would download (Llama,
Cohere) are not fetched: counting never goes online. For any other
model it falls back to OpenAI's cl100k_base, which is then an estimate: the model may split the
same text into more or fewer tokens.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from pdbench.providers.litellm_library import import_litellm


@dataclass(frozen=True)
class Tokenizer:
    """A model's tokenizer as litellm chooses it; `exact` is False for the fallback estimate."""

    model: str
    name: str  # what counts: "cl100k_base", a Hugging Face tokenizer's name, ...
    exact: bool
    encode: Callable[[str], Sequence[int]]

    def count(self, text: str) -> int:
        return len(self.encode(text))

    @property
    def label(self) -> str:
        return self.name if self.exact else f"estimate ({self.name}, not {self.model}'s own)"


@lru_cache(maxsize=32)
def tokenizer_for(model: str) -> Tokenizer:
    """The tokenizer litellm would count `model`'s tokens with."""
    litellm = import_litellm()
    from litellm.utils import _select_tokenizer, huggingface_tokenizer_kind

    if huggingface_tokenizer_kind(model) not in (None, "anthropic"):
        # litellm would download this tokenizer (Llama's, Cohere's) from the Hugging Face hub,
        # retrying for ~20 s without a network: counting a price never goes online, so these
        # models are counted with the cl100k_base estimate, which the label says.
        previous = litellm.disable_hf_tokenizer_download
        litellm.disable_hf_tokenizer_download = True
        try:
            chosen = _select_tokenizer(model)
        finally:
            litellm.disable_hf_tokenizer_download = previous
    else:
        chosen = _select_tokenizer(model)
    encoding: Any = chosen["tokenizer"]  # tiktoken's Encoding or a Hugging Face Tokenizer
    if chosen["type"] == "huggingface_tokenizer":
        return Tokenizer(
            model=model,
            name=f"huggingface tokenizer for {model}",
            exact=True,
            encode=lambda text: encoding.encode(text, add_special_tokens=False).ids,
        )
    name = str(getattr(encoding, "name", "tiktoken"))
    return Tokenizer(
        model=model,
        name=name,
        exact=_own_encoding(model, name),
        encode=lambda text: encoding.encode(text, disallowed_special=()),
    )


def _own_encoding(model: str, name: str) -> bool:
    """Whether litellm's tiktoken encoding is the model's own (gpt-4 and gpt-3.5 use cl100k_base;
    gpt-4o's o200k_base is not the one litellm counts with, so its count is an estimate)."""
    import tiktoken

    bare = model.split("/", 1)[1] if model.startswith("openai/") else model
    try:
        return bool(tiktoken.encoding_name_for_model(bare) == name)
    except KeyError:
        return False
