"""litellm, loaded once and configured: its bundled price table instead of one fetched online, its
loggers and notices kept quiet; and the project's `.env` read for API keys.

Kept apart from providers/litellm.py (the provider client) because every part that touches
litellm (the client, batches, the price map, the inspect export) loads it the same way.
"""

from __future__ import annotations

import logging
import os
import warnings
from pathlib import Path
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
    # litellm's own types trip a pydantic notice when a model of them is first built (seen at the
    # end of a run whose every server was down): about litellm's code, nothing the user can act on
    warnings.filterwarnings(
        "ignore", message=r"Item '.*' on TypedDict class '.*' is using the `ReadOnly` qualifier"
    )
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


def load_dotenv_file(project_root: Path) -> None:
    """Read API keys from `<project_root>/.env`; variables already set keep their value."""
    path = project_root / ".env"
    if path.is_file():
        from dotenv import load_dotenv

        load_dotenv(path, override=False)
