"""Loading litellm itself, set up the way pdbench uses it (a bundled price table, quiet logs).

Its own module because the client (`providers.litellm`), the price map (`providers.prices`) and the
tokenizers (`providers.tokens`) all load litellm, and the client also uses prices and tokens: with
the loader in the client, those modules and the client imported one another in a circle.
"""

from __future__ import annotations

import logging
import os
import warnings
from typing import Any

# Loggers of litellm and the HTTP clients under it: their INFO lines (one or more per call) would
# flood the console, most of all through Hydra, which sets the root logger to INFO.
CHATTY_LOGGERS = (
    "LiteLLM",
    "LiteLLM Router",
    "LiteLLM Proxy",
    "litellm",
    "httpx",
    "httpcore",
    "openai",
)


def import_litellm() -> Any:
    """litellm, configured to use its bundled price table instead of fetching one online and to
    keep its logging to warnings and errors."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("LITELLM_LOG", "ERROR")
    import litellm

    litellm.suppress_debug_info = True
    # A call cancelled while litellm holds its inner coroutine (a run stopped by a full disk or
    # Ctrl-C) leaves that coroutine un-awaited: harmless, and not a line the user should see.
    warnings.filterwarnings(
        "ignore", message="coroutine '.*acompletion' was never awaited", category=RuntimeWarning
    )
    for name in CHATTY_LOGGERS:
        logging.getLogger(name).setLevel(logging.WARNING)
    return litellm
