"""What a run needs before its first match: folders it can write into, a budget it can enforce,
and its provider gateway.

All are settled before anything is written or any provider is called, so an unusable folder is
one line naming its setting (exit 2), never a traceback from a writer halfway through a run.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, cast

from pdbench.core.errors import ConfigError
from pdbench.runners.plan import PlannedMatch
from pdbench.runners.prepare import LoadedExperiment
from pdbench.storage.folders import check_writable_folder
from pdbench.storage.reserve import RESERVE_BYTES, DiskReserve
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


def check_budget_enforceable(loaded: LoadedExperiment) -> None:
    """A budget (`run.max_cost_usd`) stops calls by their price: a run that would ask a model
    whose price is unknown could spend without limit, so it is refused before anything is
    written or called, unless the config says to go on (`run.allow_unpriced_calls`)."""
    run = loaded.spec.run
    if run.max_cost_usd is None or run.allow_unpriced_calls:
        return
    from pdbench.config.llm_agent_spec import LLMAgentSpec
    from pdbench.providers.prices import PRICE_FIELD, unpriced_models

    providers = [
        cast(LLMAgentSpec, agent).provider  # the one kind that asks a provider
        for condition in loaded.spec.conditions
        for agent in condition.agents.values()
        if agent.uses_provider
    ]
    unknown = unpriced_models(providers)
    if unknown:
        raise ConfigError(
            "cannot be enforced: the price of "
            f"{', '.join(unknown)} is unknown to litellm's price map, so its calls would cost "
            f"nothing against it; give the price ({PRICE_FIELD}={{input: 0.15, output: 0.6}}, "
            "USD per million tokens), or run with run.allow_unpriced_calls=true to go on "
            "without a limit on those calls",
            file=loaded.spec.source,
            field="run.max_cost_usd",
        )


def check_shared_answers_cached(loaded: LoadedExperiment, cache_mode: CacheMode | None) -> None:
    """A turn game whose rules share an LLM's answer to some turn across the matches of a
    replicate (`shares_answers`: a design made once per agent and seat, `design_scope: run`)
    shares it through the replay cache; with the cache off each match would draw its own answer,
    so such a run is refused rather than silently designing once per match."""
    if (cache_mode or loaded.spec.run.cache.mode) != "off":
        return
    for condition in loaded.spec.conditions:
        rules = condition.game.rules_builder(rounds_shown=True)(1)  # any length shares alike
        shares = bool(getattr(rules, "shares_answers", False))
        if shares and any(agent.uses_provider for agent in condition.agents.values()):
            raise ConfigError(
                f"is off, but condition {condition.name} has an LLM answer one turn once for "
                "every match of a replicate (game.options.design_scope: run), which the cache "
                "shares: run with the cache on (readwrite), or design_scope match",
                file=loaded.spec.source,
                field="run.cache.mode",
            )


def set_aside_reserve(
    pending: list[PlannedMatch], run_dir: Path, warn: Callable[[str], None]
) -> DiskReserve | None:
    """The room a run that pays for calls keeps for its last spend lines on a full disk
    (storage/reserve.py); None for a run that calls no provider, or a disk without room."""
    if not any(agent.uses_provider for m in pending for agent in m.condition.agents.values()):
        return None
    reserve = DiskReserve(run_dir)
    if reserve.set_aside():
        return reserve
    warn(
        f"{run_dir}: no room to set aside {RESERVE_BYTES // 1024} KiB for the records of paid "
        "answers: if the disk fills up, the answer being paid for then may be bought again"
    )
    return None


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
    run_dir: Path | None = None,
) -> ProviderGateway | None:
    """The run's provider gateway, when any pending match has an LLM agent. With `run_dir`, its
    batches (run.batch, or those a killed batch run left to poll: storage/batch_journal.py)."""
    uses_llm = any(agent.uses_provider for m in pending for agent in m.condition.agents.values())
    if not uses_llm:
        return None
    from pdbench.providers.batching import BatchSettings
    from pdbench.providers.cache import resolve_cache_dir
    from pdbench.providers.gateway import ProviderGateway
    from pdbench.storage.batch_journal import BATCH_FILE, BatchJournal

    spec = loaded.spec
    mode = cache_mode or spec.run.cache.mode
    batching = None
    # Replaying (--offline) asks no provider: no batch is submitted or polled then.
    journaled = run_dir is not None and (run_dir / BATCH_FILE).is_file()
    if run_dir is not None and mode != "replay" and (spec.run.batch or journaled):
        batching = BatchSettings(
            journal=BatchJournal(run_dir / BATCH_FILE),
            run_label=run_dir.name,
            poll_s=spec.run.batch_poll_s,
            submit=spec.run.batch,
        )
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
        batching=batching,
    )


def warn_on_stderr(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr)
