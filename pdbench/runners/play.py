"""Play an experiment's unfinished matches and hand each one to the writer as it ends.

Matches run concurrently on one event loop (LLM agents wait on providers, bounded by the gateway's
`max_concurrency`); the `OrderedWriter` stores them strictly in plan order. Every match is played
by the turn loop (`runners.turns`) with the match's rules (`PlannedMatch.rules`), on one path
(`runners.turn_run.play_planned`): the game's entry says how its agents are seated and what is
stored of the match (`runners.match_records`). The fast path: a condition
of house players or policies only, when its game's entry names a vectorised path that can play
it, all its matches together (`runners.turn_batch` for turns; `runners.batch` for a game that
plays arrays over rounds, the 2x2 games without talk). A transport
failure or a spent budget sets the `Halt` (no new match starts); `runners.experiment` turns it,
and what was stored, into the run's status.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pdbench.agents.base import AgentBase, AgentContext
from pdbench.agents.kinds import make_agent
from pdbench.games.base import agent_game
from pdbench.runners.batch import finished_batch, play_batch
from pdbench.runners.plan import PlannedMatch
from pdbench.runners.prepare import LoadedExperiment
from pdbench.runners.stopping import Stopping
from pdbench.runners.turn_batch import (
    CHUNK,
    play_turn_batch,
    plays_arrays,
    vectorised_module,
    vectorised_players,
)
from pdbench.runners.turn_run import play_planned
from pdbench.runners.writer import OrderedWriter
from pdbench.storage.run_store import FinishedMatch
from pdbench.storage.schema import CallCounts, StorePrompts

if TYPE_CHECKING:
    from pdbench.providers.gateway import ProviderGateway

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


def _play_batchable(
    pending: list[PlannedMatch],
    writer: OrderedWriter,
    *,
    run_id: str,
    on_match_done: MatchDone,
    store_prompts: StorePrompts,
) -> list[tuple[int, PlannedMatch]]:
    """Play every condition its game's vectorised path can play (`turn_batch.vectorised_players`:
    house players or policies only, asked of the game's entry); return the matches left to loop."""
    groups: dict[str, list[tuple[int, PlannedMatch]]] = {}
    players: dict[str, dict[str, Any]] = {}  # a vectorised condition's players, by condition
    rest = []
    for index, planned in enumerate(pending):
        name = planned.condition.name
        if name not in players:
            players[name] = vectorised_players(planned) or {}
        if players[name]:
            groups.setdefault(name, []).append((index, planned))
        else:
            rest.append((index, planned))

    def store(members: list[tuple[int, PlannedMatch]], finished: list[FinishedMatch]) -> None:
        for (index, _), match in zip(members, finished, strict=True):
            writer.add(index, match)
            on_match_done(match, match.ledger.calls)

    for name, members in groups.items():
        matches = [planned for _, planned in members]
        module = vectorised_module(matches[0])
        assert module is not None
        if plays_arrays(module):  # arrays over rounds, the whole condition at once
            store(members, finished_batch(matches, play_batch(matches, players[name]), run_id))
            continue
        for start in range(0, len(members), CHUNK):
            chunk = members[start : start + CHUNK]
            played = play_turn_batch(
                [planned for _, planned in chunk],
                players[name],
                run_id=run_id,
                store_prompts=store_prompts,
            )
            if played is None:  # the game found it cannot after all: the turn loop plays them
                rest.extend(chunk)
                continue
            store(chunk, played)
    return sorted(rest, key=lambda item: item[0])


@dataclass(frozen=True)
class MatchSetting:
    """What every agent of a run is given besides its match: the run folder (its logs, an arena
    agent's scratch folder), the provider gateway, and the deal key files no sandbox may show."""

    run_dir: Path
    gateway: ProviderGateway | None
    secret_files: tuple[Path, ...]


def _agents_for(
    loaded: LoadedExperiment, planned: PlannedMatch, setting: MatchSetting
) -> list[AgentBase]:
    agents = [
        _agent_for(loaded, planned, setting, side.removeprefix("agent_"))
        for side in planned.condition.players  # a, b, and a group's further seats
    ]
    # then a turn game's third parties in the game's order; a panel plays its role's one seat
    # (pdbench.agents.panel); a role with an audit bound is asked alongside it
    for role in planned.rules.third_roles:
        specs = planned.condition.role_specs(role)
        audit = planned.condition.audit_of(role)
        if len(specs) == 1 and audit is not None:  # the audit's answers are stored, not played
            from pdbench.agents.audited import Audited

            played = _agent_for(loaded, planned, setting, role, specs[0])
            audit_agent = _agent_for(loaded, planned, setting, *audit)
            agents.append(Audited(played, audit_agent))
            continue
        if len(specs) == 1:
            agents.append(_agent_for(loaded, planned, setting, role, specs[0]))
            continue
        from pdbench.agents.panel import Panel
        from pdbench.games.registry import declared_roles

        vote = declared_roles()[role].panel
        assert vote is not None, f"{role} takes no panel: the condition's validation refuses one"
        members = [
            _agent_for(loaded, planned, setting, f"{role}_{i}", spec)
            for i, spec in enumerate(specs)
        ]
        labels = planned.condition.third_party_labels  # "SCRIPTED_JUDGE(rule=longer)": distinct
        agents.append(Panel(members, [labels[f"{role}[{i}]"] for i in range(len(specs))], vote))
    return agents


def _agent_for(
    loaded: LoadedExperiment,
    planned: PlannedMatch,
    setting: MatchSetting,
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
        deal=planned.deal,
        secret_files=setting.secret_files,
        run_dir=setting.run_dir,
        store_prompts=spec.run.store_prompts,
        gateway=setting.gateway,
        cache_namespace=spec.run.cache.namespace,
    )
    if agent_spec is None:
        agent_spec = planned.condition.players[f"agent_{side}"]
    # A 2x2 agent gets the game from its own side (the same game unless it is asymmetric), an
    # agent of a turn game its rules (`games.base.agent_game` asks the rules).
    game = agent_game(planned.rules, side)
    return make_agent(agent_spec, game=game, horizon=planned.horizon, context=context)


async def play_pending(
    loaded: LoadedExperiment,
    pending: list[PlannedMatch],
    writer: OrderedWriter,
    *,
    run_id: str,
    gateway: ProviderGateway | None,
    secret_files: tuple[Path, ...],
    on_match_done: MatchDone,
    halt: Halt,
    stopping: Stopping,
) -> None:
    store_prompts = loaded.spec.run.store_prompts
    setting = MatchSetting(writer.store.run_dir, gateway, secret_files)
    # More matches than calls in flight keeps the provider busy while matches think locally.
    # With batches, every match plays at once: a batch holds the next request of each of them.
    batches = gateway is not None and gateway.batches is not None and gateway.batches.submits
    slots = asyncio.Semaphore(
        max(1, len(pending)) if batches else max(2, 2 * loaded.spec.run.max_concurrency)
    )

    async def play(index: int, planned: PlannedMatch) -> None:
        """Play one match and hand it to the writer the moment it ends (progress then moves as
        matches finish, however the event loop orders the tasks that wait to report)."""
        with gateway.batch_member() if gateway is not None else contextlib.nullcontext():
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
            return await play_planned(
                planned,
                _agents_for(loaded, planned, setting),
                run_id=run_id,
                store_prompts=store_prompts,
                halt=halt.set,
                stop_requested=lambda: stopping.requested,
            )

    # A failed write (a full disk) stops the run at once: the matches in flight are cancelled
    # and no new provider call is made; the failure is raised by the writer below.
    loop, main = asyncio.get_running_loop(), asyncio.current_task()
    if main is not None:
        writer.on_failure = lambda: loop.call_soon_threadsafe(main.cancel)
    # Policy-only conditions are played here, all replicates at once; the rest concurrently.
    looped = _play_batchable(
        pending, writer, run_id=run_id, on_match_done=on_match_done, store_prompts=store_prompts
    )
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
