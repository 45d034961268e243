"""An arena agent's process and its hook calls: what a 2x2 game's round (`arena.rounds`), a turn
game's turn (`arena.turns`) and the agent's lifecycle over a match (`arena.agent.ArenaAgent`, which
is a session) all use.

Its own module so that the rounds and the turns depend on the session and the agent on them, one
way: with the hook calls in the agent's class, the agent called the rounds and the rounds typed
their argument as the agent, a circle (issue 43). `ArenaAgent.__init__` and `reset` set the
attributes declared here.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from pdbench.agents.arena.log import AgentLog
from pdbench.agents.arena.process import Worker, WorkerDied, WorkerTimeout
from pdbench.agents.arena.sandbox import Containment
from pdbench.agents.base import MatchInfo
from pdbench.config.schema import ArenaAgentSpec
from pdbench.core.actions import Action
from pdbench.core.errors import MatchAborted
from pdbench.core.game import Game
from pdbench.games.registry import known_game_id


def gist(message: str) -> str:
    """First and last line of a message with a traceback: "could not start: ValueError: ..."."""
    lines = message.strip().splitlines()
    return lines[0].rstrip(":") + (f": {lines[-1].strip()}" if len(lines) > 1 else "")


class ArenaSession:
    """One agent file's process over a match and the calls of its hooks."""

    startup_timeout_s = 10.0  # interpreter start, the file's imports and Agent()
    exit_grace_s = 1.0

    # set by ArenaAgent.__init__ (the agent) and reset (the match)
    spec: ArenaAgentSpec
    game: Game
    name: str
    path: Path
    containment: Containment
    timeout_action: Action
    platform_name: str
    log_path: Path
    startup_ms: list[float]
    seed: int | None
    restarts: int
    _worker: Worker | None
    _log: AgentLog
    _match_info: MatchInfo | None
    _hooks: frozenset[str]
    _broken: str | None  # why the agent cannot run at all
    _broken_reported: bool
    _ever_started: bool
    _round_begun: int | None  # the round whose on_round_start was delivered

    # -- a hook call in the agent's process (the rounds' and the turns') --

    def _call(
        self,
        hook: str,
        arg: dict,
        notes: list[str],
        required: bool = False,
        timeout: float | None = None,
        **extra: Any,
    ) -> dict:
        """Call one hook within the time limit (the spec's per-turn limit unless given).
        Exceptions in optional hooks become notes; a timeout or a dead process ends the worker
        (the next turn starts a fresh one)."""
        if not required and hook not in self._hooks:
            return {"ok": True, "result": None}
        limit = timeout or self.spec.timeout_s
        try:
            reply = self._live_worker().call(hook, arg, limit, **extra)
        except WorkerTimeout:
            self._lose_worker(f"{hook} took longer than {limit:g} s")
            raise WorkerTimeout(
                f"{hook} did not return within {limit:g} s; the agent process was "
                "killed and a fresh one starts next turn, so state kept on self is lost"
            ) from None
        except WorkerDied as died:
            self._lose_worker(f"{died} during {hook}")
            raise WorkerDied(
                f"{died} during {hook} (see {self.log_path}); a fresh one starts next round, "
                "so state kept on self is lost"
            ) from None
        if not reply["ok"] and not required:
            notes.append(f"{hook} raised:\n{reply['error'].rstrip()}")
            self._log.note(
                f"{hook} raised:\n{reply['error'].rstrip()}"
                if self.spec.trace
                else f"{hook} raised; its traceback is on the round's decision"
            )
        return reply

    # -- the process --

    def _live_worker(self) -> Worker:
        """The running worker: within a round, every step after a lost one is skipped."""
        assert self._worker is not None, "no agent process is running"
        return self._worker

    def _start_worker(self) -> None:
        try:
            worker = Worker(self.containment.launch(), self._log)
        except OSError as error:
            self._broken = f"the agent process could not start: {error}"
            return
        try:
            ready = worker.ready(max(self.startup_timeout_s, self.spec.timeout_s))
        except WorkerTimeout:
            worker.kill()
            self._broken = (
                f"the agent did not load within {self.startup_timeout_s:g} s (import and Agent())"
            )
            return
        except WorkerDied as died:
            worker.kill()
            self._broken = f"{died} while loading (see {self.log_path})"
            return
        if not ready["ok"]:
            worker.shutdown(self.exit_grace_s)
            self._broken = f"the agent could not start:\n{ready['error'].rstrip()}"
            return
        declared = ready.get("game")
        if declared is not None and known_game_id(declared) != known_game_id(self.platform_name):
            worker.shutdown(self.exit_grace_s)
            self._broken = f'Agent.GAME is "{declared}" but this match plays "{self.platform_name}"'
            return
        self.startup_ms.append((time.perf_counter() - worker.started_at) * 1000)
        self._ever_started = True
        self._worker = worker
        self._hooks = frozenset(ready["hooks"])
        how = "in a bubblewrap sandbox" if self.containment.sandboxed else "without a sandbox"
        self._log.note(f"agent {self.path} started (pid {worker.proc.pid}, {how})")

    def abort_if_never_started(self) -> None:
        """An agent whose file never loaded in this match (an exception at import or in
        Agent(), a file the sandbox cannot read, a wrong GAME) has played nothing: the match is
        aborted with the reason, never stored as a result (the ladder skips aborted matches). A
        process lost later in the match is restarted each turn and plays the fallback instead."""
        if self._broken is None or self._ever_started:
            return
        if not self._broken_reported:
            self._broken_reported = True
            self._log.note(self._broken)  # the whole traceback: `train` shows it, the log keeps it
        raise MatchAborted(f"{self.name}: {gist(self._broken)}")

    def _lose_worker(self, why: str) -> None:
        self._live_worker().kill()
        self._worker = None
        self.restarts += 1
        self._log.note(f"{why}: process killed; state on self is lost")
