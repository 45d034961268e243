"""An arena agent's lifecycle over a match: a user's AgentDuel-style file (see `protocol`) behind
pdbench's agent protocol.

Each match runs the agent in its own child process (`process.Worker` running `child.py`,
contained as `sandbox.Containment` says), so a hang, a crash, a flood of output or what the
process starts cannot stall or break the run, nor outlive it. Every hook call is limited to
`spec.timeout_s` (a negotiate turn to the negotiation's `message_timeout_s`, if set); a late call
kills the process and the next turn starts a fresh one (its state on `self` is lost, and the record
says so). A negotiate turn that times out, fails or answers anything but a message says nothing
and is marked on the message. A timeout, an exception or an invalid answer plays
`timeout_action` (by default the cooperative label, as on AgentDuel) and is recorded on the
round's `Decision`, never silently. A fresh process is told `on_match_start` again and gets the
whole history with its next turn. What the agent prints goes to
`<run_dir>/agent_logs/<condition>__rep<n>__<side>.log`, cut off after `LOG_CAP_BYTES`.

`decide` waits on the process in a thread of its own, so other matches keep playing. `end_match`
delivers the last `on_round_end` (rebuilt from our last action and the change in the totals, as no
observation follows the last round) and `on_match_end` in that thread too; `close()` waits for
them, ends the process and closes the log.

This module is the agent's lifecycle over a match; its hook calls and its process are
`arena.session` (which the rounds and turns use too), a 2x2 game's round (the once-a-round hooks,
the negotiate and commit turns) is `arena.rounds`, a turn game's turn `arena.turns`.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from pdbench.agents.arena.log import AgentLog, agent_log_path
from pdbench.agents.arena.process import Worker, WorkerDied, WorkerTimeout
from pdbench.agents.arena.protocol import (
    label_to_action,
    last_round_result,
    match_result,
)
from pdbench.agents.arena.rounds import negotiate_blocking, run_round
from pdbench.agents.arena.sandbox import Containment
from pdbench.agents.arena.session import ArenaSession
from pdbench.agents.arena.turns import take_turn_blocking
from pdbench.agents.arena.validate import (
    check_arena_file,
    imported_siblings,
    platform_name,
    resolve_agent_path,
)
from pdbench.agents.base import (
    Decision,
    MatchInfo,
    MatchSummary,
    TableAgent,
    TurnDecision,
    TurnRequest,
    Utterance,
)
from pdbench.config.schema import ArenaAgentSpec
from pdbench.core.actions import Action
from pdbench.core.game import Game
from pdbench.core.transcript import Observation

if TYPE_CHECKING:
    from pdbench.agents.base import AgentContext
    from pdbench.core.horizon import FixedHorizon, GeometricHorizon


class ArenaAgent(ArenaSession, TableAgent):
    """A user's AgentDuel-style file behind pdbench's agent contract, one process per match: a
    2x2 game's `TableAgent` (`decide`, `negotiate`) and a turn game's (`take_turn`)."""

    waits = True
    history_window: int | None = None  # the hooks get the whole match and both totals
    include_totals = True

    def __init__(
        self,
        spec: ArenaAgentSpec,
        *,
        game: Game,
        horizon: FixedHorizon | GeometricHorizon | None = None,
        context: AgentContext | None = None,
    ) -> None:
        project_root = Path(context.project_root) if context is not None else Path.cwd()
        check_arena_file(spec, game, project_root)
        self.spec = spec
        self.game = game
        self.horizon = horizon
        self.context = context
        self.name = spec.display_name
        self.path = resolve_agent_path(spec, project_root)
        self.containment = Containment(spec, self.path, imported_siblings(self.path), context)
        self.timeout_action = (
            label_to_action(spec.timeout_action, game) if spec.timeout_action else Action.C
        )
        self.platform_name = platform_name(game)
        self.log_path = agent_log_path(context, self.path)
        self.startup_ms: list[float] = []  # per started worker: until Agent() was ready
        self._executor: ThreadPoolExecutor | None = None
        self._worker: Worker | None = None
        self._log = AgentLog(self.log_path)
        self.reset()

    # -- lifecycle, as called by the match loop --

    def reset(self, seed: int | None = None) -> None:
        self.close()
        self.seed = seed
        self.restarts = 0
        self._match_info: MatchInfo | None = None
        self._hooks: frozenset[str] = frozenset()
        self._broken: str | None = None  # why the agent cannot run at all
        self._broken_reported = False
        self._ever_started = False  # a process of this match loaded the file
        self._last_obs: Observation | None = None
        self._last_action: Action | None = None
        self._round_begun: int | None = None  # the round whose on_round_start was delivered
        self._log = AgentLog(self.log_path)

    def start_match(self, info: MatchInfo) -> None:
        # The process starts with the first decision, in a thread, so the event loop never waits.
        self._match_info = info

    async def decide(self, obs: Observation) -> Decision:
        if self._executor is None:
            self._executor = ThreadPoolExecutor(1, thread_name_prefix=f"arena-{self.name}")
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self._decide_blocking, obs)

    async def negotiate(self, obs: Observation) -> Utterance:
        """One negotiate turn of a 2x2 game: a message, or marked silence (see `arena.rounds`)."""
        if self._executor is None:
            self._executor = ThreadPoolExecutor(1, thread_name_prefix=f"arena-{self.name}")
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, negotiate_blocking, self, obs)

    async def take_turn(self, request: TurnRequest) -> TurnDecision:
        """One turn of a turn game: on_turn(round_state) in the agent's process (see
        `arena.turns`)."""
        if self._executor is None:
            self._executor = ThreadPoolExecutor(1, thread_name_prefix=f"arena-{self.name}")
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, take_turn_blocking, self, request)

    def act(self, obs: Observation) -> Action:
        """For callers without an event loop."""
        return self._decide_blocking(obs).action

    def end_match(self, summary: MatchSummary) -> None:
        """Deliver the last on_round_end and on_match_end in the background; `close` waits."""
        calls = []
        last = last_round_result(self._last_obs, self._last_action, summary, self.game)
        if last is not None:
            calls.append(("on_round_end", last))
        calls.append(("on_match_end", match_result(summary)))
        if self._executor is None:
            self._executor = ThreadPoolExecutor(1, thread_name_prefix=f"arena-{self.name}")
        self._executor.submit(self._finish, calls)
        self._executor.shutdown(wait=False)  # its thread ends after _finish; close() joins it

    def close(self) -> None:
        """Wait for the end-of-match hooks, stop the process and close the log. Idempotent."""
        if self._executor is not None:
            self._executor.shutdown(wait=True)
            self._executor = None
        if self._worker is not None:
            self._worker.kill()
            self._worker = None
        self.containment.close()
        self._log.close()

    def stop_now(self) -> None:
        """Kill the worker (its sandbox or process group) while a turn may be in progress: the
        turn's thread sees the process gone and returns, so `close` does not wait for it."""
        worker = self._worker
        if worker is not None:
            worker.kill()

    # -- one round of a 2x2 game (arena.rounds) --

    def _decide_blocking(self, obs: Observation) -> Decision:
        decision = run_round(self, obs)
        self._last_obs = obs
        self._last_action = decision.action
        return decision

    def _finish(self, calls: list[tuple[str, dict]]) -> None:
        worker, self._worker = self._worker, None
        if worker is not None:
            for hook, arg in calls:
                if hook not in self._hooks:
                    continue
                try:
                    reply = worker.call(hook, arg, self.spec.timeout_s)
                except (WorkerTimeout, WorkerDied) as failure:
                    why = str(failure) or f"did not return within {self.spec.timeout_s:g} s"
                    self._log.note(f"{hook}: {why}; process killed")
                    worker.kill()
                    break
                if not reply["ok"]:
                    self._log.note(f"{hook} raised:\n{reply['error'].rstrip()}")
            worker.shutdown(self.exit_grace_s)
            self._log.note("match over; agent process ended")
        elif self._last_obs is not None and self._broken is None:
            self._log.note("no agent process at the end of the match; end hooks not called")
        self._log.close()
