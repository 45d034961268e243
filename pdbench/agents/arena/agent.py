"""Arena agents: a user's Python file with a class `Agent` in the AgentDuel shape.

The file defines `class Agent` with an optional `GAME = "prisoners-dilemma"` (or "split-or-steal",
"stag-hunt", "chicken": `Game.arena_id`) and these hooks, all optional except `on_turn`:

    on_match_start({"opponent_name", "total_rounds", "game", "actions", "seed"})
    on_round_start({"round", "pot"})
    on_turn({"phase": "commit", "round", "turn": 1, "pot", "your_score", "opponent_score",
             "history": [{"round", "your_choice", "opponent_choice", "your_points",
                          "opponent_points"}, ...],
             "messages": [], "game", "actions": [cooperative label, defecting label]})
        -> {"type": "commit", "choice": <one of the two labels>}
    on_round_end({"round", "your_choice", "opponent_choice", "points", "opponent_points",
                  "your_score", "opponent_score"})
    on_match_end({"winner": "you" | "opponent" | "draw", "your_total", "opponent_total", "rounds"})

Labels are matched case-insensitively; in the prisoner's dilemma "cooperate" and "defect" are also
accepted. `total_rounds` is None when the horizon is geometric or not disclosed.

Each match runs the agent in its own child process (`child.py`), so a hang, a crash or a
flood of output cannot stall or break the run. Every hook call is limited to `spec.timeout_s`; a
late call kills the process and the next round starts a fresh one (its state on `self` is lost,
and the record says so). A timeout, an exception or an invalid answer plays `timeout_action` (by
default the cooperative label, as on AgentDuel) and is recorded on the round's `Decision`, never
silently. A fresh process is told `on_match_start` again and gets the whole history with its
next turn. What the agent prints goes to `<run_dir>/agent_logs/<condition>__rep<n>__<side>.log`,
cut off after `LOG_CAP_BYTES`.

`decide` waits on the process in a thread of its own, so other matches keep playing. `end_match`
delivers the last `on_round_end` (rebuilt from our last action and the change in the totals, as no
observation follows the last round) and `on_match_end` in that thread too; `close()` waits for
them, ends the process and closes the log.
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import json
import math
import os
import queue
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pdbench.agents.base import AgentBase, Decision, MatchInfo, MatchSummary
from pdbench.config.schema import ArenaAgentSpec
from pdbench.core.actions import Action
from pdbench.core.errors import ConfigError, InvalidActionError
from pdbench.core.game import Game
from pdbench.core.transcript import Observation, PastRound
from pdbench.storage.schema import HookAttempt

if TYPE_CHECKING:
    from pdbench.agents.base import AgentContext
    from pdbench.core.horizon import FixedHorizon, GeometricHorizon

LOG_CAP_BYTES = 1 << 20  # what one agent may print per match before the rest is discarded
WORKER_SCRIPT = Path(__file__).with_name("child.py")
PD_ALIASES = {"cooperate": Action.C, "defect": Action.D}


# --- validation: read the file, run none of it -------------------------------------------------


def resolve_agent_path(spec: ArenaAgentSpec, project_root: Path) -> Path:
    path = Path(spec.path).expanduser()
    return path if path.is_absolute() else Path(project_root) / path


def check_arena_file(spec: ArenaAgentSpec, game: Game, project_root: Path) -> None:
    """Raise `ConfigError` if the file is missing, has no class `Agent`, declares another game,
    or `timeout_action` is not one of the game's labels.

    Uses `ast` only, so no user code runs in this process. A `GAME` that is not a literal (or is
    inherited) cannot be seen here; the worker reports it at start-up and a mismatch then stops
    the agent, recorded on every decision.
    """
    path = resolve_agent_path(spec, project_root)
    if not path.is_file():
        raise ConfigError(f"no such file ({path})", file=spec.path, field="path")
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except SyntaxError as error:
        raise ConfigError(
            f"not valid Python: {error.msg} (line {error.lineno})", file=spec.path, field="path"
        ) from None
    except UnicodeDecodeError:
        raise ConfigError("not a UTF-8 text file", file=spec.path, field="path") from None

    binding = _agent_binding(tree)
    if binding is None:
        raise ConfigError('defines no class named "Agent"', file=spec.path, field="Agent")
    if isinstance(binding, ast.ClassDef):
        declared = _declared_game(binding, spec.path)
        if declared is not None and declared.casefold() != game.arena_id.casefold():
            raise ConfigError(
                f'GAME is "{declared}" but this condition plays "{game.arena_id}" '
                f"(game {game.id}); change GAME or remove it to play every game",
                file=spec.path,
                field="Agent.GAME",
            )
        methods = {node.name for node in binding.body if isinstance(node, ast.FunctionDef)}
        if not binding.bases and "on_turn" not in methods:
            raise ConfigError("class Agent has no on_turn method", file=spec.path, field="Agent")
    if spec.timeout_action is not None:
        try:
            label_to_action(spec.timeout_action, game)
        except InvalidActionError as error:
            raise ConfigError(str(error), field="timeout_action") from None


def files_read(spec: ArenaAgentSpec, game: Game, horizon: object, project_root: Path) -> list[str]:
    """The agent kind's file check (see `pdbench.agents.kinds`): the agent's own file."""
    check_arena_file(spec, game, project_root)
    return [spec.path]


def _binds(node: ast.stmt, name: str) -> bool:
    """Whether a statement binds `name`: a class, an assignment or an import."""
    if isinstance(node, ast.ClassDef):
        return node.name == name
    if isinstance(node, ast.Assign):
        return any(isinstance(t, ast.Name) and t.id == name for t in node.targets)
    if isinstance(node, ast.AnnAssign):
        return isinstance(node.target, ast.Name) and node.target.id == name
    if isinstance(node, ast.Import | ast.ImportFrom):
        return any((alias.asname or alias.name) == name for alias in node.names)
    return False


def _agent_binding(tree: ast.Module) -> ast.stmt | None:
    """The last top-level statement that binds the name `Agent`."""
    found = None
    for node in tree.body:
        if _binds(node, "Agent"):
            found = node
    return found


def _declared_game(agent: ast.ClassDef, shown_path: str) -> str | None:
    """The literal value of `GAME` in the class body; None when absent, None or not a literal."""
    value = None
    for node in agent.body:
        if isinstance(node, ast.Assign | ast.AnnAssign) and _binds(node, "GAME"):
            value = node.value
    if value is None:
        return None
    try:
        declared = ast.literal_eval(value)
    except (ValueError, TypeError, SyntaxError, RecursionError):
        return None  # computed at import time; the worker checks it
    if declared is not None and not isinstance(declared, str):
        raise ConfigError(
            f'GAME must be a game id such as "prisoners-dilemma", got {declared!r}',
            file=shown_path,
            field="Agent.GAME",
        )
    return declared


# --- what the hooks receive and return (pure functions of the observation) ---------------------


def label_to_action(label: str, game: Game) -> Action:
    """A label the agent chose, case-insensitive; the PD also takes "cooperate" and "defect"."""
    if game.arena_id == "prisoners-dilemma" and label.strip().casefold() in PD_ALIASES:
        return PD_ALIASES[label.strip().casefold()]
    return game.action_for_label(label)


def parse_choice(raw: Any, game: Game) -> Action:
    """The action in an on_turn answer `{"type": "commit", "choice": <label>}`; strict otherwise."""
    expected = (
        f'on_turn must return {{"type": "commit", "choice": "{game.cooperate_label}"}} or similar'
    )
    if not isinstance(raw, dict) or not isinstance(raw.get("choice"), str):
        raise InvalidActionError(f"{expected}, got {_short(raw)}")
    if raw.get("type", "commit") != "commit":
        raise InvalidActionError(f'{expected}, got type "{raw["type"]}"')
    return label_to_action(raw["choice"], game)


def _number(value: float | None) -> float | int | None:
    """3.0 -> 3, so agents see points as AgentDuel shows them."""
    if value is None or not float(value).is_integer():
        return value
    return int(value)


def _label(game: Game, action: Action | None) -> str | None:
    return None if action is None else game.label(action)


def match_start_info(info: MatchInfo, game: Game, seed: int | None = None) -> dict:
    return {
        "opponent_name": info.opponent_name,
        "total_rounds": info.total_rounds,
        "game": game.arena_id,
        "actions": list(game.labels),
        "seed": seed,
    }


def round_info(obs: Observation, game: Game) -> dict:
    return {"round": obs.round_index, "pot": _number(game.pot)}


def _totals(obs: Observation) -> tuple[float, float]:
    if obs.own_total is not None and obs.opponent_total is not None:
        return obs.own_total, obs.opponent_total
    return (
        sum(r.own_payoff for r in obs.history),
        sum(r.opponent_payoff for r in obs.history),
    )


def history_entries(rounds: Sequence[PastRound], game: Game) -> list[dict]:
    return [
        {
            "round": r.round_index,
            "your_choice": game.label(r.own_action),
            "opponent_choice": game.label(r.opponent_action),
            "your_points": _number(r.own_payoff),
            "opponent_points": _number(r.opponent_payoff),
        }
        for r in rounds
    ]


def round_state_head(obs: Observation, game: Game) -> dict:
    """on_turn's argument without "history" (the worker keeps that and receives only new rounds)."""
    own, opponent = _totals(obs)
    return {
        "phase": "commit",
        "round": obs.round_index,
        "turn": 1,
        "pot": _number(game.pot),
        "your_score": _number(own),
        "opponent_score": _number(opponent),
        "messages": [],
        "game": game.arena_id,
        "actions": list(game.labels),
    }


def round_state(obs: Observation, game: Game) -> dict:
    """on_turn's argument, as the agent sees it."""
    return {**round_state_head(obs, game), "history": history_entries(obs.history, game)}


def round_result(past: PastRound, game: Game, own_total: float, opponent_total: float) -> dict:
    """on_round_end's argument; totals include this round; the opponent's action may be None."""
    return {
        "round": past.round_index,
        "your_choice": _label(game, past.own_action),
        "opponent_choice": _label(game, past.opponent_action),
        "points": _number(past.own_payoff),
        "opponent_points": _number(past.opponent_payoff),
        "your_score": _number(own_total),
        "opponent_score": _number(opponent_total),
    }


def match_result(summary: MatchSummary) -> dict:
    return {
        "winner": summary.winner,
        "your_total": _number(summary.your_total),
        "opponent_total": _number(summary.opponent_total),
        "rounds": summary.rounds,
    }


def infer_opponent_action(game: Game, own: Action, own_payoff: float, opponent_payoff: float):
    """The opponent's action from one round's payoffs; None if the payoffs cannot tell."""
    matches = [
        other
        for other in (Action.C, Action.D)
        if all(
            math.isclose(got, want, abs_tol=1e-9)
            for got, want in zip(
                game.payoffs.payoffs(own, other), (own_payoff, opponent_payoff), strict=True
            )
        )
    ]
    return matches[0] if len(matches) == 1 else None


def _gist(message: str) -> str:
    """First and last line of a message with a traceback: "could not start: ValueError: ..."."""
    lines = message.strip().splitlines()
    return lines[0].rstrip(":") + (f": {lines[-1].strip()}" if len(lines) > 1 else "")


def _short(value: Any, limit: int = 200) -> str:
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


# --- the log and the child process -------------------------------------------------------------


def agent_log_path(context: AgentContext | None, agent_path: Path) -> Path:
    """<run_dir>/agent_logs/<condition>__rep<replicate>__<side>.log, or a temp file."""
    if context is not None and context.run_dir is not None:
        name = f"{context.condition}__rep{context.replicate}__{context.side}.log"
        return Path(context.run_dir) / "agent_logs" / re.sub(r"[^\w.=+-]", "_", name)
    handle, name = tempfile.mkstemp(prefix=f"pdbench-arena-{agent_path.stem}-", suffix=".log")
    os.close(handle)
    return Path(name)


class AgentLog:
    """The agent's printed output (capped) and pdbench's notes about it, in one file."""

    def __init__(self, path: Path, cap_bytes: int = LOG_CAP_BYTES) -> None:
        self.path = path
        self.cap_bytes = cap_bytes
        self.written = 0
        self.dropped = 0
        self._lock = threading.Lock()
        self._file = None

    def _handle(self):
        if self._file is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = open(self.path, "ab")  # noqa: SIM115 - kept open for the match
        return self._file

    def write(self, data: bytes) -> None:
        with self._lock:
            room = self.cap_bytes - self.written
            if room > 0:
                self._handle().write(data[:room])
                self.written += min(room, len(data))
                if len(data) >= room:
                    self._write_note(f"\noutput cut off after {self.cap_bytes} bytes")
            self.dropped += max(0, len(data) - max(room, 0))
            self._handle().flush()

    def note(self, text: str) -> None:
        with self._lock:
            self._write_note(text)
            self._handle().flush()

    def _write_note(self, text: str) -> None:
        lead = "\n" if text.startswith("\n") else ""
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
        self._handle().write(f"{lead}[pdbench {stamp}] {text.lstrip()}\n".encode())

    def close(self) -> None:
        if self.dropped:
            self.note(f"{self.dropped} further bytes of output were discarded")
            self.dropped = 0
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None


class WorkerTimeout(Exception):
    pass


class WorkerDied(Exception):
    pass


# What a user's agent process inherits: enough to run Python, never the provider keys or other
# secrets of the runner's environment.
_PASSED_ENVIRONMENT = ("PATH", "HOME", "LANG", "LC_ALL", "TZ", "TMPDIR", "PYTHONPATH", "SYSTEMROOT")


def worker_environment() -> dict[str, str]:
    env = {k: os.environ[k] for k in _PASSED_ENVIRONMENT if k in os.environ}
    env["PYTHONUNBUFFERED"] = "1"
    return env


class Worker:
    """One child process running the user's Agent: JSON lines in, JSON lines out, output to log."""

    def __init__(self, agent_path: Path, cwd: Path, log: AgentLog) -> None:
        self.log = log
        self.started_at = time.perf_counter()
        self.proc = subprocess.Popen(
            [sys.executable, "-u", str(WORKER_SCRIPT), str(agent_path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=worker_environment(),
            start_new_session=True,  # Ctrl-C reaches the runner, which then ends its workers
        )
        self.replies: queue.Queue[bytes | None] = queue.Queue()
        self._seq = 0
        self.history_sent = 0  # rounds of history this process already holds
        self._threads = [
            threading.Thread(target=self._read_replies, daemon=True),
            threading.Thread(target=self._pump_output, daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def _read_replies(self) -> None:
        for line in self.proc.stdout:
            self.replies.put(line)
        self.replies.put(None)

    def _pump_output(self) -> None:
        while chunk := self.proc.stderr.read1(65536):
            self.log.write(chunk)

    def _reply(self, seq: int, timeout: float) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.replies.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise WorkerTimeout from None
            if line is None:
                self.proc.wait()
                raise WorkerDied(f"the agent process exited with code {self.proc.returncode}")
            try:
                reply = json.loads(line)
            except ValueError:
                continue  # not ours: the protocol descriptor was written to by user code
            if isinstance(reply, dict) and reply.get("seq") == seq:
                return reply

    def ready(self, timeout: float) -> dict:
        """Wait for the start-up reply: {"ok", "hooks", "game"} or {"ok": False, "error"}."""
        return self._reply(0, timeout)

    def call(self, hook: str, arg: dict, timeout: float, **extra: Any) -> dict:
        self._seq += 1
        request = {"seq": self._seq, "hook": hook, "arg": arg, **extra}
        try:
            self.proc.stdin.write(json.dumps(request).encode())
            self.proc.stdin.write(b"\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            self.proc.wait()
            raise WorkerDied(f"the agent process exited with code {self.proc.returncode}") from None
        return self._reply(self._seq, timeout)

    def kill(self) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)  # also whatever the agent spawned
            except (AttributeError, OSError):
                self.proc.kill()
        self._reap()

    def shutdown(self, grace: float) -> None:
        """Ask the worker to exit; kill it if it has not within `grace` seconds."""
        with contextlib.suppress(OSError):
            self.proc.stdin.write(b'{"seq": -1, "hook": "exit"}\n')
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            self.kill()
        self._reap()

    def _reap(self) -> None:
        self.proc.wait()
        for thread in self._threads:
            thread.join(timeout=1.0)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            with contextlib.suppress(OSError):
                stream.close()


# --- the agent ---------------------------------------------------------------------------------


class ArenaAgent(AgentBase):
    """A user's AgentDuel-style file behind pdbench's Agent protocol, one process per match."""

    waits = True
    history_window: int | None = None  # the hooks get the whole match and both totals
    include_totals = True
    startup_timeout_s = 10.0  # interpreter start, the file's imports and Agent()
    exit_grace_s = 1.0

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
        self.cwd = project_root
        self.timeout_action = (
            label_to_action(spec.timeout_action, game) if spec.timeout_action else Action.C
        )
        self.log_path = agent_log_path(context, self.path)
        self.startup_ms: list[float] = []  # per started worker: until Agent() was ready
        self._executor: ThreadPoolExecutor | None = None
        self._worker: Worker | None = None
        self._log: AgentLog | None = None
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
        self._last_obs: Observation | None = None
        self._last_action: Action | None = None
        self._log = AgentLog(self.log_path)

    def start_match(self, info: MatchInfo) -> None:
        # The process starts with the first decision, in a thread, so the event loop never waits.
        self._match_info = info

    async def decide(self, obs: Observation) -> Decision:
        if self._executor is None:
            self._executor = ThreadPoolExecutor(1, thread_name_prefix=f"arena-{self.name}")
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self._decide_blocking, obs)

    def act(self, obs: Observation) -> Action:
        """For callers without an event loop."""
        return self._decide_blocking(obs).action

    def end_match(self, summary: MatchSummary) -> None:
        """Deliver the last on_round_end and on_match_end in the background; `close` waits."""
        calls = []
        last = self._last_round(summary)
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
        if self._log is not None:
            self._log.close()

    # -- one round --

    def _decide_blocking(self, obs: Observation) -> Decision:
        decision = self._run_round(obs)
        self._last_obs = obs
        self._last_action = decision.action
        return decision

    def _run_round(self, obs: Observation) -> Decision:
        notes: list[str] = []
        fresh = self._worker is None
        if fresh and self._broken is None:
            self._start_worker()
        if self._broken is not None:
            if self._broken_reported:
                return self._fallback(f"the agent is not running ({_gist(self._broken)})")
            self._broken_reported = True
            self._log.note(self._broken)
            return self._fallback(self._broken)
        try:
            if fresh and "on_match_start" in self._hooks and self._match_info is not None:
                self._call("on_match_start", self._match_start_arg(), notes)
            if not fresh and obs.last is not None:
                own, opponent = _totals(obs)
                self._call("on_round_end", round_result(obs.last, self.game, own, opponent), notes)
            self._call("on_round_start", round_info(obs, self.game), notes)
            started = time.perf_counter()
            # Only the rounds the process has not seen travel, so a turn costs the same in round
            # 1000 as in round 2; the worker rebuilds round_state["history"].
            new_rounds = history_entries(obs.history[self._worker.history_sent :], self.game)
            self._worker.history_sent = len(obs.history)
            head = round_state_head(obs, self.game)
            reply = self._call("on_turn", head, notes, required=True, history_add=new_rounds)
            elapsed = time.perf_counter() - started
        except WorkerTimeout as timeout:
            return self._fallback(str(timeout), notes, timeout=True)
        except WorkerDied as died:
            return self._fallback(str(died), notes)
        if not reply["ok"]:
            return self._fallback(f"on_turn raised:\n{reply['error'].rstrip()}", notes)
        raw = reply.get("result")
        attempts = self._attempts(raw, elapsed)
        try:
            action = parse_choice(raw, self.game)
        except InvalidActionError as invalid:
            self._log.note(f"round {obs.round_index}: invalid on_turn answer: {invalid}")
            return self._fallback(str(invalid), notes, attempts=attempts, invalid=True)
        return Decision(action=action, attempts=attempts, error="\n".join(notes) or None)

    def _call(
        self, hook: str, arg: dict, notes: list[str], required: bool = False, **extra: Any
    ) -> dict:
        """Call one hook within the time limit. Exceptions in optional hooks become notes; a
        timeout or a dead process ends the worker (the next round starts a fresh one)."""
        if not required and hook not in self._hooks:
            return {"ok": True, "result": None}
        try:
            reply = self._worker.call(hook, arg, self.spec.timeout_s, **extra)
        except WorkerTimeout:
            self._lose_worker(f"{hook} took longer than {self.spec.timeout_s:g} s")
            raise WorkerTimeout(
                f"{hook} did not return within {self.spec.timeout_s:g} s; the agent process was "
                "killed and a fresh one starts next round, so state kept on self is lost"
            ) from None
        except WorkerDied as died:
            self._lose_worker(f"{died} during {hook}")
            raise WorkerDied(
                f"{died} during {hook} (see {self.log_path}); a fresh one starts next round, "
                "so state kept on self is lost"
            ) from None
        if not reply["ok"] and not required:
            notes.append(f"{hook} raised:\n{reply['error'].rstrip()}")
            self._log.note(f"{hook} raised; its traceback is on the round's decision")
        return reply

    def _fallback(
        self,
        error: str,
        notes: Sequence[str] = (),
        *,
        timeout: bool = False,
        invalid: bool = False,
        attempts: tuple[HookAttempt, ...] = (),
    ) -> Decision:
        return Decision(
            action=self.timeout_action,
            attempts=attempts,
            invalid_outputs=1 if invalid else 0,
            fallback=True,
            timeout=timeout,
            error="\n".join([*notes, error]),
        )

    def _attempts(self, raw: Any, elapsed: float) -> tuple[HookAttempt, ...]:
        return (HookAttempt(hook="on_turn", elapsed_s=round(elapsed, 6), response=raw),)

    # -- the process --

    def _match_start_arg(self) -> dict:
        return match_start_info(self._match_info, self.game, self.seed)

    def _start_worker(self) -> None:
        try:
            worker = Worker(self.path, self.cwd, self._log)
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
        if declared is not None and declared.casefold() != self.game.arena_id.casefold():
            worker.shutdown(self.exit_grace_s)
            self._broken = f'Agent.GAME is "{declared}" but this match plays "{self.game.arena_id}"'
            return
        self.startup_ms.append((time.perf_counter() - worker.started_at) * 1000)
        self._worker = worker
        self._hooks = frozenset(ready["hooks"])
        self._log.note(f"agent {self.path} started (pid {worker.proc.pid})")

    def _lose_worker(self, why: str) -> None:
        self._worker.kill()
        self._worker = None
        self.restarts += 1
        self._log.note(f"{why}: process killed; state on self is lost")

    def _last_round(self, summary: MatchSummary) -> dict | None:
        """The last round's result, which no observation carries: from our own last action and
        the totals' change. None if that round was not played."""
        obs, own_action = self._last_obs, self._last_action
        if obs is None or own_action is None or summary.rounds != obs.round_index:
            return None
        own_before, opponent_before = _totals(obs)
        own_payoff = summary.your_total - own_before
        opponent_payoff = summary.opponent_total - opponent_before
        past = PastRound(
            round_index=obs.round_index,
            own_action=own_action,
            opponent_action=infer_opponent_action(
                self.game, own_action, own_payoff, opponent_payoff
            ),
            own_payoff=own_payoff,
            opponent_payoff=opponent_payoff,
        )
        return round_result(past, self.game, summary.your_total, summary.opponent_total)

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
