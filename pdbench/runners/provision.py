"""What a run needs before its first match: folders it can write into and its provider gateway.

Both are settled before anything is written or any provider is called, so an unusable folder is
one line naming its setting (exit 2), never a traceback from a writer halfway through a run.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from pdbench.runners.plan import PlannedMatch
from pdbench.runners.prepare import LoadedExperiment
from pdbench.storage.folders import check_writable_folder
from pdbench.storage.spend import SpendJournal

if TYPE_CHECKING:
    from collections.abc import Callable

    from pdbench.providers.gateway import CacheMode, ProviderGateway


def check_folders(loaded: LoadedExperiment, run_dir: Path, cache_mode: CacheMode | None) -> None:
    """The folder the run dir goes into (output_dir, or a sweep's shards folder under it) and the
    replay cache folder (when an LLM agent will use it) can be written."""
    check_writable_folder("run.output_dir", loaded.spec.run.output_dir, run_dir.parent)
    cache = cache_dir(loaded, cache_mode)
    if cache is not None:
        check_writable_folder(*cache)


def cache_dir(
    loaded: LoadedExperiment, cache_mode: CacheMode | None
) -> tuple[str, str, Path] | None:
    """(setting, value, folder) of the replay cache this run will write, or None (no LLM agent,
    or the cache is off)."""
    run = loaded.spec.run
    conditions = loaded.spec.conditions
    uses_llm = any(agent.uses_provider for c in conditions for agent in c.agents.values())
    if not uses_llm or (cache_mode or run.cache.mode) == "off":
        return None
    from pdbench.providers.cache import cache_dir_setting

    return cache_dir_setting(run.cache.dir, loaded.project_root)


def make_gateway(
    loaded: LoadedExperiment,
    pending: list[PlannedMatch],
    cache_mode: CacheMode | None,
    journal: SpendJournal,
    warn: Callable[[str], None],
    cache_shard: tuple[Path, str] | None = None,
) -> ProviderGateway | None:
    """The run's provider gateway, when any pending match has an LLM agent."""
    uses_llm = any(agent.uses_provider for m in pending for agent in m.condition.agents.values())
    if not uses_llm:
        return None
    from pdbench.providers.cache import resolve_cache_dir
    from pdbench.providers.gateway import ProviderGateway

    spec = loaded.spec
    mode = cache_mode or spec.run.cache.mode
    return ProviderGateway(
        max_concurrency=spec.run.max_concurrency,
        cache_dir=None
        if mode == "off"
        else resolve_cache_dir(spec.run.cache.dir, loaded.project_root),
        cache_mode=mode,
        max_cost_usd=spec.run.max_cost_usd,
        spend=journal,
        cache_shard=cache_shard,
        project_root=loaded.project_root,
        warn=warn,
    )


def warn_on_stderr(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr)
