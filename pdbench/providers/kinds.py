"""The provider kinds a config may name (registered in `pdbench.config.provider_spec`), turned into
clients: each kind's module is imported only when a spec of that kind is used, so litellm (5-7 s
to import) is never loaded for a run on the mock."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from pdbench.config.provider_spec import ProviderSpec
from pdbench.providers.base import ProviderClient


def _resolve(entry_point: str) -> Any:
    module, _, attribute = entry_point.partition(":")
    return getattr(importlib.import_module(module), attribute)


def make_client(spec: ProviderSpec, *, project_root: Path | None = None) -> ProviderClient:
    """The client for a provider spec, built by its kind's entry point."""
    client: ProviderClient = _resolve(spec.kind.client_entry_point)(spec, project_root=project_root)
    return client


def key_options(spec: ProviderSpec) -> tuple[tuple[str, Any], ...]:
    """What decides a provider's answers besides the request (the mock's behaviour, as a model's
    weights would), for the cache key; () for a provider whose request says it all."""
    entry_point = spec.kind.key_options_entry_point
    if entry_point is None:
        return ()
    options: tuple[tuple[str, Any], ...] = _resolve(entry_point)(spec)
    return options
