"""Run an experiment: plan, play every unfinished match (`runners.play`), store rounds, save the
manifest with the run's status, aggregate.

Finished matches are stored strictly in plan order (`OrderedWriter`), so rounds.jsonl is the same
file whatever the concurrency, and a resumed run ends identical to an uninterrupted one.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pdbench.analysis.metrics.columns import StoredMatches
from pdbench.core.errors import CacheMiss, PdbenchError, WriteFailed
from pdbench.core.rng import Deal
from pdbench.runners.deal import DealSource, pinned_key, run_source
from pdbench.runners.plan import PlannedMatch, plan_matches
from pdbench.runners.play import Halt, MatchDone, play_pending
from pdbench.runners.prepare import LoadedExperiment
from pdbench.runners.provision import (
    check_budget_enforceable,
    check_folders,
    check_shared_answers_cached,
    make_gateway,
    set_aside_reserve,
    warn_on_stderr,
)
from pdbench.runners.run_manifest import ManifestWriter
from pdbench.runners.stopping import RunInterrupted, Stopping
from pdbench.runners.writer import OrderedWriter
from pdbench.storage import manifest as manifests
from pdbench.storage.deal_key import DEAL_KEY_FILE, settle_run_deal
from pdbench.storage.run_store import RunStore
from pdbench.storage.schema import AGGREGATES_FILE, CallCounts
from pdbench.storage.spend import SpendJournal, spend_file

if TYPE_CHECKING:
    import pandas as pd

    from pdbench.providers.gateway import CacheMode


@dataclass
class RunOutcome:
    run_dir: Path
    run_id: str
    status: str
    matches_planned: int
    matches_skipped: int  # already finished by an earlier attempt of this run
    matches_played: int
    matches_waiting: int = 0  # planned but not stored: the same command plays them
    error: str | None = None
    calls: CallCounts = field(default_factory=CallCounts)
    aggregates: pd.DataFrame | None = None  # the table that was written, when aggregated


def run_experiment(
    loaded: LoadedExperiment,
    *,
    run_dir: Path | None = None,
    run_id: str | None = None,
    resume_only: bool = False,
    cache_mode: CacheMode | None = None,
    hydra_overrides: list[str] | None = None,
    on_start: Callable[[int, int], None] | None = None,
    on_match_done: MatchDone | None = None,
    aggregate: bool = True,
    command: str | None = None,
    spend: SpendJournal | None = None,
    cache_shard: tuple[Path, str] | None = None,
    warn: Callable[[str], None] | None = None,
    stopping: Stopping | None = None,
    watch_calls: Callable[[CallCounts], None] | None = None,
    deal_source: DealSource | None = None,
) -> RunOutcome:
    """Run (or resume) every match of the experiment into its run dir and aggregate it.

    `spend` is the journal of paid calls the budget counts (default: the run dir's own; a sweep's
    jobs share the sweep's, each writing as its condition). `cache_shard` (folder, name): a
    sweep job writes the answers it buys there, never into the cache folder (providers/
    cache_shards.py). `warn` says one line (damaged files
    moved aside, a damaged cache; default: `warning: ...` on stderr). `stopping` says when to
    stop (default: on SIGINT or SIGTERM); a stopped run raises `RunInterrupted` once it has
    stored what finished and saved its manifest as interrupted. `watch_calls` is given the
    gateway's call counters, which move as calls are made (for a progress display).
    `deal_source`: where a new run folder's deal key comes from (default: `run.deal_key_file`,
    else the workspace's key; a sweep's jobs: the sweep's key)."""
    run_dir = run_dir or loaded.run_dir
    run_id = run_id or loaded.run_id
    warn = warn or warn_on_stderr
    source = deal_source or run_source(loaded)
    pinned = pinned_key(loaded)  # a bad key file is refused before anything is written
    check_folders(loaded, run_dir, cache_mode)
    check_budget_enforceable(loaded)
    check_shared_answers_cached(loaded, cache_mode)
    store = RunStore.open(run_dir, config_hash=loaded.config_hash, resume_only=resume_only)
    if store.notice is not None:
        warn(store.notice)
    journal = spend or SpendJournal(spend_file(run_dir))
    try:
        # A run is dealt with its own folder's key, which a new run copies from `source`.
        deal = settle_run_deal(run_dir, store.manifest, new_run=source.make, pinned=pinned)
        plan = plan_matches(loaded.spec, deal)
        pending = [m for m in plan if m.key not in store.completed]
        journal.reserve = set_aside_reserve(pending, run_dir, warn)
        return _run(
            loaded,
            plan,
            store,
            deal=deal,
            secret_files=(run_dir / DEAL_KEY_FILE, *source.files),
            run_id=run_id,
            cache_mode=cache_mode,
            hydra_overrides=hydra_overrides,
            on_start=on_start,
            on_match_done=on_match_done,
            aggregate=aggregate,
            command=command,
            journal=journal,
            cache_shard=cache_shard,
            warn=warn,
            stopping=stopping or Stopping(),
            watch_calls=watch_calls,
        )
    finally:
        if journal.reserve is not None:  # its room goes back to the disk
            journal.reserve.release()
        store.close()  # the next writer may come in


def _run(
    loaded: LoadedExperiment,
    plan: list[PlannedMatch],
    store: RunStore,
    *,
    deal: Deal,
    secret_files: tuple[Path, ...],
    run_id: str,
    cache_mode: CacheMode | None,
    hydra_overrides: list[str] | None,
    on_start: Callable[[int, int], None] | None,
    on_match_done: MatchDone | None,
    aggregate: bool,
    command: str | None,
    journal: SpendJournal,
    cache_shard: tuple[Path, str] | None,
    warn: Callable[[str], None],
    stopping: Stopping,
    watch_calls: Callable[[CallCounts], None] | None,
) -> RunOutcome:
    run_dir = store.run_dir
    pending = [m for m in plan if m.key not in store.completed]
    skipped = len(plan) - len(pending)
    started = manifests.utc_now()

    # The journal holds what every attempt of this run (or job of the sweep) paid: the budget is
    # for all of it, and the manifest's spend is read from it.
    gateway = make_gateway(loaded, pending, cache_mode, journal, warn, cache_shard, run_dir)
    if gateway is not None:
        gateway.stop_requested = lambda: stopping.requested
        if watch_calls is not None:
            watch_calls(gateway.stats)  # counted as the calls are made
    run_manifest = ManifestWriter(
        loaded,
        plan,
        store,
        deal=deal,
        run_id=run_id,
        started_utc=started,
        hydra_overrides=hydra_overrides,
        command=command,
        journal=journal,
        cache_rejected=lambda: gateway.cache_rejected if gateway is not None else 0,
    )
    save = run_manifest.save
    halt = Halt()
    writer = OrderedWriter(store, on_stored=run_manifest.save_after_store)
    # From the first manifest on, a Ctrl-C is said below: one landing the instant after the
    # manifest is written, or in on_start, too (the save is the first step inside the try).
    try:
        save(manifests.STATUS_STARTED)
        if on_start:
            on_start(len(plan), skipped)
        if pending:
            with stopping.on_signals():
                asyncio.run(
                    play_pending(
                        loaded,
                        pending,
                        writer,
                        run_id=run_id,
                        gateway=gateway,
                        secret_files=secret_files,
                        on_match_done=on_match_done or (lambda *_: None),
                        halt=halt,
                        stopping=stopping,
                    )
                )
    except WriteFailed as failure:  # a full disk: stop now, keep the last good manifest
        run_manifest.save_failed_if_possible(str(failure))
        raise
    except (CacheMiss, PdbenchError) as failure:
        save(manifests.STATUS_FAILED, str(failure))
        raise
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: what finished is kept, the rest resumes
        save(manifests.STATUS_INTERRUPTED, "interrupted")
        raise
    except BaseException as failure:  # a bug: record it, keep what finished
        save(manifests.STATUS_FAILED, f"{type(failure).__name__}: {failure}")
        raise
    finally:
        if gateway is not None:
            gateway.close()
    if stopping.requested:  # what finished is stored; the rest resumes with the same command
        save(manifests.STATUS_INTERRUPTED, "interrupted")
        raise RunInterrupted(len(store.completed), len(plan))
    waiting = len(plan) - len(store.completed)
    status = halt.status or (
        manifests.STATUS_COMPLETE if waiting == 0 else manifests.STATUS_INCOMPLETE
    )
    error = halt.reason
    if status == manifests.STATUS_COMPLETE:
        entries = list(store.completed.values())
        empty = manifests.conditions_without_finished_match(
            (c.name for c in loaded.spec.conditions), entries
        )
        if empty:  # every match played, but a condition has nothing to show
            finished = sum(1 for entry in entries if not entry.error)
            status = manifests.STATUS_ABORTED
            error = manifests.aborted_reason(empty, finished, len(plan))
    save(status, error)
    aggregates = None
    if aggregate:
        from pdbench.analysis.metrics.aggregate import write_aggregates

        # A run played wholly by this process aggregates what it holds in memory (the same
        # numbers: tests/integration compare it with `pdbench aggregate`); a resumed run
        # re-reads rounds.jsonl, which alone holds the earlier attempts' matches.
        in_memory = None
        if skipped == 0 and status == manifests.STATUS_COMPLETE:
            in_memory = StoredMatches.concatenate(writer.stored_columns)
        ledger = list(store.completed.values()) if in_memory is not None else None
        try:
            aggregates = write_aggregates(run_dir, in_memory, ledger)
        except OSError as os_error:
            unwritten = WriteFailed(run_dir / AGGREGATES_FILE, os_error)
            run_manifest.save_failed_if_possible(str(unwritten))
            raise unwritten from os_error
    manifest = store.manifest
    return RunOutcome(
        run_dir=run_dir,
        run_id=run_id,
        status=status,
        matches_planned=len(plan),
        matches_skipped=skipped,
        matches_played=len(pending),
        matches_waiting=waiting,
        error=error,
        calls=manifest.provider_calls if manifest else CallCounts(),
        aggregates=aggregates,
    )
