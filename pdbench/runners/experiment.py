"""Run an experiment: plan, play every unfinished match, store rounds, aggregate.

Matches run concurrently on one event loop (LLM agents wait on providers, bounded by the gateway's
`max_concurrency`), but finished matches are stored strictly in plan order (`OrderedWriter`), so
rounds.jsonl is the same file whatever the concurrency, and a resumed run ends identical to an
uninterrupted one. Policy-only conditions are played as numpy batches (`runners.batch`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pdbench.agents.base import AgentBase, AgentContext
from pdbench.agents.kinds import is_batchable, make_agent
from pdbench.analysis.metrics.columns import StoredMatches
from pdbench.core.errors import (
    BudgetExhausted,
    CacheMiss,
    PdbenchError,
    StopRequested,
    WriteFailed,
)
from pdbench.providers.base import TransportFailure
from pdbench.runners.batch import match_lines, play_batch
from pdbench.runners.match import play_match
from pdbench.runners.plan import PlannedMatch, plan_matches
from pdbench.runners.prepare import LoadedExperiment
from pdbench.runners.provision import check_folders, make_gateway, warn_on_stderr
from pdbench.runners.records import (
    call_counts,
    ledger_entry,
    match_columns,
    match_fields,
    result_columns,
    round_lines,
    stored_aborted_attempts,
    timestamp_utc,
)
from pdbench.runners.run_manifest import ManifestWriter
from pdbench.runners.stopping import RunInterrupted, Stopping
from pdbench.runners.turn_run import play_planned_turns
from pdbench.runners.writer import OrderedWriter
from pdbench.storage import manifest as manifests
from pdbench.storage.run_store import FinishedMatch, RunStore
from pdbench.storage.schema import AGGREGATES_FILE, CallCounts
from pdbench.storage.spend import SpendJournal, spend_file

if TYPE_CHECKING:
    import pandas as pd

    from pdbench.providers.gateway import CacheMode, ProviderGateway

MatchDone = Callable[[FinishedMatch, CallCounts], None]


@dataclass
class Halt:
    """Why no new match is started (the first reason wins): transport failures leave the run
    incomplete, a spent budget stops it."""

    status: str | None = None
    reason: str | None = None

    def set(self, status: str, reason: str) -> None:
        if self.status is None:
            self.status, self.reason = status, reason


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


def _play_batchable(
    pending: list[PlannedMatch], writer: OrderedWriter, *, run_id: str, on_match_done: MatchDone
) -> list[tuple[int, PlannedMatch]]:
    """Play every policy-only condition with the batch path; return the matches left to loop."""
    groups: dict[str, list[tuple[int, PlannedMatch]]] = {}
    rest = []
    for index, planned in enumerate(pending):
        # Talk is played by the match loop only (the batch path has no negotiation phase);
        # turn games by the turn loop.
        if planned.game is None:
            rest.append((index, planned))
            continue
        talks = planned.game.negotiation is not None
        if not talks and is_batchable(planned.condition.agent_a, planned.condition.agent_b):
            groups.setdefault(planned.condition.name, []).append((index, planned))
        else:
            rest.append((index, planned))
    for members in groups.values():
        arrays = play_batch([planned for _, planned in members])
        timestamp = timestamp_utc(time.time())
        bodies: dict = {}  # rendered rounds shared by replicates that played the same moves
        for (index, planned), match in zip(members, arrays, strict=True):
            finished = FinishedMatch(
                lines=[
                    match_lines(
                        match_fields(planned, run_id), match, timestamp=timestamp, bodies=bodies
                    )
                ],
                ledger=ledger_entry(planned, len(match.coop_a), None, CallCounts()),
                columns=match_columns(
                    planned, match.coop_a, match.coop_b, match.payoff_a, match.payoff_b
                ),
            )
            writer.add(index, finished)
            on_match_done(finished, finished.ledger.calls)
    return rest


def _agents_for(
    loaded: LoadedExperiment, planned: PlannedMatch, run_dir: Path, gateway: ProviderGateway | None
) -> list[AgentBase]:
    agents = [_agent_for(loaded, planned, run_dir, gateway, side) for side in ("a", "b")]
    # then a turn game's third parties (the Keeper, the judge) in the game's order; a panel of
    # judges plays its one seat (pdbench.agents.panel)
    for role in planned.turn_game.third_roles if planned.turn_game is not None else ():
        specs = planned.condition.role_specs(role)
        if len(specs) == 1:
            agents.append(_agent_for(loaded, planned, run_dir, gateway, role, specs[0]))
            continue
        from pdbench.agents.panel import PanelJudge

        members = [
            _agent_for(loaded, planned, run_dir, gateway, f"{role}_{i}", spec)
            for i, spec in enumerate(specs)
        ]
        labels = planned.condition.third_party_labels  # "SCRIPTED_JUDGE(rule=longer)": distinct
        agents.append(PanelJudge(members, [labels[f"{role}[{i}]"] for i in range(len(specs))]))
    return agents


def _agent_for(
    loaded: LoadedExperiment,
    planned: PlannedMatch,
    run_dir: Path,
    gateway: ProviderGateway | None,
    side: str,
    agent_spec: Any = None,
) -> AgentBase:
    """One agent of the match: a player's side ("a", "b") or a third party's (`agent_spec`)."""
    spec = loaded.spec
    context = AgentContext(
        run_seed=spec.run.seed,
        condition=planned.condition.name,
        replicate=planned.replicate,
        side=side,
        project_root=loaded.project_root,
        run_dir=run_dir,
        store_prompts=spec.run.store_prompts,
        gateway=gateway,
        cache_namespace=spec.run.cache.namespace,
    )
    if agent_spec is None:
        agent_spec = getattr(planned.condition, f"agent_{side}")
    # Each agent gets the game from its own side (the same game unless it is asymmetric);
    # an agent of a turn game gets its rules.
    game: Any = planned.turn_game if planned.game is None else planned.game.seen_by(side)
    return make_agent(agent_spec, game=game, horizon=planned.horizon, context=context)


async def _play_pending(
    loaded: LoadedExperiment,
    pending: list[PlannedMatch],
    writer: OrderedWriter,
    *,
    run_id: str,
    gateway: ProviderGateway | None,
    on_match_done: MatchDone,
    halt: Halt,
    stopping: Stopping,
) -> None:
    store_prompts = loaded.spec.run.store_prompts
    # More matches than calls in flight keeps the provider busy while matches think locally.
    slots = asyncio.Semaphore(max(2, 2 * loaded.spec.run.max_concurrency))

    async def play(index: int, planned: PlannedMatch) -> None:
        """Play one match and hand it to the writer the moment it ends (progress then moves as
        matches finish, however the event loop orders the tasks that wait to report)."""
        finished = await play_one(index, planned)
        if finished is None:
            # Matches are stored in plan order: nothing after an unfinished match is stored in
            # this attempt (its answers are in the cache, so the resumed run replays them for
            # free and writes the same file as an uninterrupted run).
            writer.stop_at(index)
            return
        writer.add(index, finished)
        on_match_done(finished, finished.ledger.calls)

    async def play_one(index: int, planned: PlannedMatch) -> FinishedMatch | None:
        async with slots:
            if halt.status is not None or stopping.requested:
                return None  # the provider failed, the budget is spent, or a stop came
            agents = _agents_for(loaded, planned, writer.store.run_dir, gateway)
            if planned.turn_game is not None:
                return await play_planned_turns(
                    planned,
                    agents,
                    run_id=run_id,
                    store_prompts=store_prompts,
                    halt=halt.set,
                    stop_requested=lambda: stopping.requested,
                )
            try:
                result = await play_match(
                    planned.matrix_game,
                    planned.n_rounds,
                    agents[0],
                    agents[1],
                    seed_a=planned.seed_a,
                    seed_b=planned.seed_b,
                    disclose_rounds=planned.horizon.type == "fixed",
                    noise=planned.noise,
                    noise_seeds=planned.noise_seeds,
                )
            except TransportFailure as failure:
                # Not a result: the match stays unfinished and no new match starts.
                halt.set(manifests.STATUS_INCOMPLETE, str(failure))
                return None
            except BudgetExhausted as spent:
                halt.set(manifests.STATUS_STOPPED, str(spent))
                return None
            except StopRequested:  # Ctrl-C or SIGTERM: the match stays unfinished
                return None
            except asyncio.CancelledError:  # the run stops: no turn in progress is waited for
                for agent in agents:
                    agent.stop_now()
                if stopping.requested:  # the grace after a stop ran out: unfinished
                    return None
                raise
            finally:
                for agent in agents:
                    agent.close()
            return FinishedMatch(
                lines=round_lines(planned, result, run_id=run_id, store_prompts=store_prompts),
                ledger=ledger_entry(
                    planned,
                    len(result.rounds),
                    result.error,
                    call_counts(result),
                    stored_aborted_attempts(result, store_prompts),
                ),
                columns=result_columns(planned, result),
            )

    # A failed write (a full disk) stops the run at once: the matches in flight are cancelled
    # and no new provider call is made; the failure is raised by the writer below.
    loop, main = asyncio.get_running_loop(), asyncio.current_task()
    if main is not None:
        writer.on_failure = lambda: loop.call_soon_threadsafe(main.cancel)
    # Policy-only conditions are played here, all replicates at once; the rest concurrently.
    looped = _play_batchable(pending, writer, run_id=run_id, on_match_done=on_match_done)
    tasks = [asyncio.create_task(play(i, m)) for i, m in looped]
    stopping.cancel_after_grace(tasks)
    try:
        for next_done in asyncio.as_completed(tasks):
            await next_done  # a failed write raises here, and stops the rest below
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        try:
            writer.flush()  # whatever finished, in order, is kept
        finally:
            writer.finish()  # a failed write raises here


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
) -> RunOutcome:
    """Run (or resume) every match of the experiment into its run dir and aggregate it.

    `spend` is the journal of paid calls the budget counts (default: the run dir's own; a sweep's
    jobs share the sweep's, each writing as its condition). `cache_shard` (folder, name): a
    sweep job writes the answers it buys there, never into the cache folder (providers/
    cache_shards.py). `warn` says one line (damaged files
    moved aside, a damaged cache; default: `warning: ...` on stderr). `stopping` says when to
    stop (default: on SIGINT or SIGTERM); a stopped run raises `RunInterrupted` once it has
    stored what finished and saved its manifest as interrupted. `watch_calls` is given the
    gateway's call counters, which move as calls are made (for a progress display)."""
    run_dir = run_dir or loaded.run_dir
    run_id = run_id or loaded.run_id
    warn = warn or warn_on_stderr
    plan = plan_matches(loaded.spec)
    check_folders(loaded, plan, run_dir, cache_mode)
    store = RunStore.open(run_dir, config_hash=loaded.config_hash, resume_only=resume_only)
    if store.notice is not None:
        warn(store.notice)
    try:
        return _run(
            loaded,
            plan,
            store,
            run_id=run_id,
            cache_mode=cache_mode,
            hydra_overrides=hydra_overrides,
            on_start=on_start,
            on_match_done=on_match_done,
            aggregate=aggregate,
            command=command,
            journal=spend or SpendJournal(spend_file(run_dir)),
            cache_shard=cache_shard,
            warn=warn,
            stopping=stopping or Stopping(),
            watch_calls=watch_calls,
        )
    finally:
        store.close()  # the next writer may come in


def _run(
    loaded: LoadedExperiment,
    plan: list[PlannedMatch],
    store: RunStore,
    *,
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
    gateway = make_gateway(loaded, pending, cache_mode, journal, warn, cache_shard)
    if gateway is not None:
        gateway.stop_requested = lambda: stopping.requested
        if watch_calls is not None:
            watch_calls(gateway.stats)  # counted as the calls are made
    run_manifest = ManifestWriter(
        loaded,
        plan,
        store,
        run_id=run_id,
        started_utc=started,
        hydra_overrides=hydra_overrides,
        command=command,
        journal=journal,
        cache_rejected=lambda: gateway.cache_rejected if gateway is not None else 0,
    )
    save = run_manifest.save
    save(manifests.STATUS_STARTED)
    if on_start:
        on_start(len(plan), skipped)
    halt = Halt()
    writer = OrderedWriter(store, on_stored=run_manifest.save_after_store)
    try:
        if pending:
            with stopping.on_signals():
                asyncio.run(
                    _play_pending(
                        loaded,
                        pending,
                        writer,
                        run_id=run_id,
                        gateway=gateway,
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
