"""Run an experiment: plan, play every unfinished match, store rounds, aggregate.

Matches run concurrently on one event loop (LLM agents wait on providers, bounded by the gateway's
`max_concurrency`), but finished matches are stored strictly in plan order, so rounds.jsonl is the
same file whatever the concurrency, and a resumed run ends identical to an uninterrupted one.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pdbench.agents.base import AgentContext
from pdbench.agents.kinds import is_batchable, make_agent
from pdbench.analysis.aggregate import StoredMatches
from pdbench.config.schema import LLMAgentSpec
from pdbench.core.errors import BudgetExhausted, CacheMiss, PdbenchError
from pdbench.runners.batch import match_lines, play_batch
from pdbench.runners.match import play_match
from pdbench.runners.plan import PlannedMatch, plan_matches
from pdbench.runners.prepare import LoadedExperiment
from pdbench.runners.records import (
    call_counts,
    ledger_entry,
    match_base,
    match_columns,
    result_columns,
    round_lines,
    timestamp_utc,
)
from pdbench.storage import manifest as manifest_facts
from pdbench.storage.run_store import FinishedMatch, RunStore
from pdbench.storage.schema import stored_attempts

if TYPE_CHECKING:
    from pdbench.providers.gateway import ProviderGateway

FLUSH_EVERY_S = 1.0  # store finished matches at least this often...
FLUSH_EVERY_MATCHES = 512  # ...or when this many are waiting


@dataclass
class RunOutcome:
    run_dir: Path
    run_id: str
    status: str
    matches_planned: int
    matches_skipped: int  # already finished by an earlier attempt of this run
    matches_played: int
    error: str | None = None
    calls: dict[str, Any] = field(default_factory=dict)
    aggregates: Any = None  # the aggregates DataFrame that was written, when aggregated


class _OrderedWriter:
    """Stores finished matches in plan order, in batches.

    The file writes (and their fsync) run on one background thread, in submission order, so
    the next matches are played and formatted while the previous batch goes to disk.
    """

    def __init__(self, store: RunStore, on_stored: Callable[[], None] | None = None) -> None:
        self.store = store
        self.on_stored = on_stored  # called on the writer thread after each batch is stored
        self.ready: dict[int, FinishedMatch] = {}
        self.next_index = 0
        self.last_flush = time.monotonic()
        self.stored_columns: list[StoredMatches] = []  # in file order
        self._disk = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pdbench-writer")
        self._writes: list[Future] = []

    def add(self, index: int, match: FinishedMatch) -> None:
        self.ready[index] = match
        waiting = len(self.ready)
        if waiting >= FLUSH_EVERY_MATCHES or time.monotonic() - self.last_flush >= FLUSH_EVERY_S:
            self.flush()

    def flush(self) -> None:
        batch = []
        while self.next_index in self.ready:
            batch.append(self.ready.pop(self.next_index))
            self.next_index += 1
        if batch:
            self._writes.append(self._disk.submit(self._store, batch))
        self.stored_columns.extend(m.columns for m in batch if m.columns is not None)
        self.last_flush = time.monotonic()

    def _store(self, batch: list[FinishedMatch]) -> None:
        self.store.append(batch)
        if self.on_stored is not None:
            self.on_stored()

    def finish(self) -> None:
        """Wait until everything flushed is on disk; a failed write raises here."""
        try:
            for write in self._writes:
                write.result()
        finally:
            self._disk.shutdown(wait=True)


def _uses(spec_types: tuple[type, ...], matches: list[PlannedMatch]) -> bool:
    return any(
        isinstance(agent, spec_types)
        for m in matches
        for agent in (m.condition.agent_a, m.condition.agent_b)
    )


def _make_gateway(
    loaded: LoadedExperiment,
    pending: list[PlannedMatch],
    cache_mode: str | None,
    remaining_budget_usd: float | None,
) -> ProviderGateway | None:
    """The run's provider gateway, when any pending match has an LLM agent."""
    if not _uses((LLMAgentSpec,), pending):
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
        max_cost_usd=remaining_budget_usd,
        project_root=loaded.project_root,
    )


def _spend(before: dict[str, Any], gateway: ProviderGateway | None) -> dict[str, Any]:
    """What the run has really paid for, over all its attempts (a killed attempt's calls for
    matches it never stored included, up to its last save)."""
    spend = dict(before)
    if gateway is not None:
        stats = gateway.stats
        spend["live_calls"] += stats.live_calls
        spend["input_tokens"] += stats.input_tokens
        spend["output_tokens"] += stats.output_tokens
        spend["cost_usd"] += stats.cost_usd
        spend["unknown_price_calls"] += stats.unknown_price_calls
    return spend


def _play_batchable(
    pending: list[PlannedMatch],
    writer: _OrderedWriter,
    *,
    run_id: str,
    on_match_done: Callable[[FinishedMatch, dict], None],
) -> list[tuple[int, PlannedMatch]]:
    """Play every policy-only condition with the batch path; return the matches left to loop."""
    groups: dict[str, list[tuple[int, PlannedMatch]]] = {}
    rest = []
    for index, planned in enumerate(pending):
        if is_batchable(planned.condition.agent_a, planned.condition.agent_b):
            groups.setdefault(planned.condition.name, []).append((index, planned))
        else:
            rest.append((index, planned))
    no_calls = manifest_facts.no_calls()
    for members in groups.values():
        arrays = play_batch([planned for _, planned in members])
        timestamp = timestamp_utc(time.time())
        bodies: dict = {}  # rendered rounds shared by replicates that played the same moves
        for (index, planned), match in zip(members, arrays, strict=True):
            finished = FinishedMatch(
                condition=planned.condition.name,
                replicate=planned.replicate,
                lines=[
                    match_lines(
                        match_base(planned, run_id), match, timestamp=timestamp, bodies=bodies
                    )
                ],
                ledger=ledger_entry(planned, len(match.coop_a), None, no_calls),
                columns=match_columns(
                    planned, match.coop_a, match.coop_b, match.payoff_a, match.payoff_b
                ),
            )
            writer.add(index, finished)
            on_match_done(finished, no_calls)
    return rest


async def _play_pending(
    loaded: LoadedExperiment,
    pending: list[PlannedMatch],
    writer: _OrderedWriter,
    *,
    run_id: str,
    gateway: ProviderGateway | None,
    on_match_done: Callable[[FinishedMatch, dict], None],
) -> None:
    spec = loaded.spec
    # More matches than calls in flight keeps the provider busy while matches think locally.
    slots = asyncio.Semaphore(max(2, 2 * spec.run.max_concurrency))
    store = writer.store

    async def play(index: int, planned: PlannedMatch) -> tuple[int, FinishedMatch, dict]:
        async with slots:
            agents = []
            for side in ("a", "b"):
                agent_spec = getattr(planned.condition, f"agent_{side}")
                context = AgentContext(
                    run_seed=spec.run.seed,
                    condition=planned.condition.name,
                    replicate=planned.replicate,
                    side=side,
                    project_root=loaded.project_root,
                    run_dir=store.run_dir,
                    store_prompts=spec.run.store_prompts,
                    gateway=gateway,
                )
                agents.append(
                    make_agent(
                        agent_spec, game=planned.game, horizon=planned.horizon, context=context
                    )
                )
            try:
                result = await play_match(
                    planned.game,
                    planned.n_rounds,
                    agents[0],
                    agents[1],
                    seed_a=planned.seed_a,
                    seed_b=planned.seed_b,
                    disclose_rounds=planned.horizon.type == "fixed",
                )
            finally:
                for agent in agents:
                    agent.close()
            calls = call_counts(result)
            finished = FinishedMatch(
                condition=planned.condition.name,
                replicate=planned.replicate,
                lines=round_lines(
                    planned, result, run_id=run_id, store_prompts=spec.run.store_prompts
                ),
                ledger=ledger_entry(
                    planned,
                    len(result.rounds),
                    result.error,
                    calls,
                    stored_attempts(result.aborted_attempts, spec.run.store_prompts),
                ),
                columns=result_columns(planned, result),
            )
            return index, finished, calls

    # Policy-only conditions are played here, all replicates at once; the rest concurrently.
    looped = _play_batchable(pending, writer, run_id=run_id, on_match_done=on_match_done)
    tasks = [asyncio.create_task(play(i, m)) for i, m in looped]
    try:
        for next_done in asyncio.as_completed(tasks):
            index, finished, calls = await next_done
            writer.add(index, finished)
            on_match_done(finished, calls)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        writer.flush()  # whatever finished, in order, is kept
        writer.finish()


def build_manifest(
    loaded: LoadedExperiment,
    plan: list[PlannedMatch],
    store: RunStore,
    *,
    run_id: str,
    status: str,
    started_utc: str,
    error: str | None = None,
    hydra_overrides: list[str] | None = None,
) -> dict[str, Any]:
    spec = loaded.spec
    ledger = list(store.completed.values())
    calls_by_condition: dict[str, list] = {}
    for entry in ledger:
        calls_by_condition.setdefault(entry["condition"], []).append(entry.get("calls"))
    failed = [
        {"condition": e["condition"], "replicate": e["replicate"], "error": e["error"]}
        for e in ledger
        if e.get("error")
    ]
    return {
        "run_id": run_id,
        "status": status,
        "error": error,
        "started_utc": store.manifest.get("started_utc", started_utc),
        "updated_utc": manifest_facts.utc_now(),
        "pdbench_command": store.manifest.get("pdbench_command"),
        "config_source": spec.source,
        "config_hash": loaded.config_hash,
        "config": spec.model_dump(mode="json"),
        "referenced_files": loaded.referenced_files,
        "overrides": list(spec.overrides),
        "hydra_overrides": hydra_overrides or [],
        "run_seed": spec.run.seed,
        "collapse": {"k": spec.metrics.collapse.k, "threshold": spec.metrics.collapse.threshold},
        "conditions": [c.name for c in spec.conditions],
        "replicates": spec.run.replicates,
        "matches": {
            "planned": len(plan),
            "completed": len(ledger),
            "failed": failed,
        },
        "seeds": [
            {
                "condition": m.condition.name,
                "replicate": m.replicate,
                "n_rounds": m.n_rounds,
                **m.seeds,
            }
            for m in plan
        ],
        "provider_calls": manifest_facts.sum_calls([e.get("calls") for e in ledger]),
        "provider_calls_by_condition": {
            name: manifest_facts.sum_calls(entries) for name, entries in calls_by_condition.items()
        },
        **manifest_facts.environment_facts(loaded.project_root),
    }


def run_experiment(
    loaded: LoadedExperiment,
    *,
    run_dir: Path | None = None,
    run_id: str | None = None,
    resume_only: bool = False,
    cache_mode: str | None = None,
    hydra_overrides: list[str] | None = None,
    on_start: Callable[[int, int], None] | None = None,
    on_match_done: Callable[[FinishedMatch, dict], None] | None = None,
    aggregate: bool = True,
    command: str | None = None,
) -> RunOutcome:
    """Run (or resume) every match of the experiment into its run dir and aggregate it."""
    run_dir = run_dir or loaded.run_dir
    run_id = run_id or loaded.run_id
    plan = plan_matches(loaded.spec)
    store = RunStore.open(run_dir, config_hash=loaded.config_hash, resume_only=resume_only)
    if command and "pdbench_command" not in store.manifest:
        store.manifest["pdbench_command"] = command
    pending = [m for m in plan if m.key not in store.completed]
    skipped = len(plan) - len(pending)
    started = manifest_facts.utc_now()

    spent_before = store.manifest.get("spend") or manifest_facts.no_spend()
    budget = loaded.spec.run.max_cost_usd
    gateway = _make_gateway(
        loaded, pending, cache_mode, None if budget is None else budget - spent_before["cost_usd"]
    )

    def save(status: str, error: str | None = None) -> None:
        manifest = build_manifest(
            loaded,
            plan,
            store,
            run_id=run_id,
            status=status,
            started_utc=started,
            error=error,
            hydra_overrides=hydra_overrides,
        )
        manifest["spend"] = _spend(spent_before, gateway)
        store.write_manifest(manifest)

    save(manifest_facts.STATUS_STARTED)
    if on_start:
        on_start(len(plan), skipped)
    status, error = manifest_facts.STATUS_COMPLETE, None
    writer = _OrderedWriter(store, on_stored=lambda: save(manifest_facts.STATUS_STARTED))
    try:
        if pending:
            asyncio.run(
                _play_pending(
                    loaded,
                    pending,
                    writer,
                    run_id=run_id,
                    gateway=gateway,
                    on_match_done=on_match_done or (lambda *_: None),
                )
            )
    except BudgetExhausted as stop:
        status, error = manifest_facts.STATUS_STOPPED, str(stop)
    except (CacheMiss, PdbenchError) as failure:
        save(manifest_facts.STATUS_FAILED, str(failure))
        raise
    except BaseException as failure:  # a bug or Ctrl-C: record it, keep what finished
        save(manifest_facts.STATUS_FAILED, f"{type(failure).__name__}: {failure}")
        raise
    finally:
        if gateway is not None:
            gateway.close()
    save(status, error)
    aggregates = None
    if aggregate:
        from pdbench.analysis.aggregate import write_aggregates

        # A run played wholly by this process aggregates what it holds in memory (the same
        # numbers: tests/integration compare it with `pdbench aggregate`); a resumed run
        # re-reads rounds.jsonl, which alone holds the earlier attempts' matches.
        in_memory = None
        if skipped == 0 and status == manifest_facts.STATUS_COMPLETE:
            in_memory = StoredMatches.concatenate(writer.stored_columns)
        aggregates = write_aggregates(run_dir, in_memory)
    return RunOutcome(
        run_dir=run_dir,
        run_id=run_id,
        status=status,
        matches_planned=len(plan),
        matches_skipped=skipped,
        matches_played=len(pending),
        error=error,
        calls=store.manifest.get("provider_calls", {}),
        aggregates=aggregates,
    )
