"""How one arena agent's processes are contained: with bubblewrap or not, the files it is shown,
its scratch folder, environment and limits.

In the sandbox (`bwrap.py`) an agent reaches its own file and the sibling modules it imports,
the Python runtime, a private /tmp and its scratch folder (<run_dir>/agent_work/<match>/, its
working directory and HOME, removed after the match), all else of the machine being absent: the
project and its .env, the home folder, the run's deal keys (even inside a folder it is shown),
the runner's /proc, the network.

Without bubblewrap (`sandbox: off`, or `auto` where it cannot run, with one warning line per run)
the worker is a plain subprocess with a minimal environment in its own session, working in the
scratch folder; it can read whatever the user running pdbench can, and reach the network. What it
started is found by `process.sweep` and killed.

Limits, which `child.py` sets before the agent's code runs: memory (RLIMIT_AS) always; the number
of processes and threads (RLIMIT_NPROC) in the sandbox only, where the kernel counts that
sandbox's processes alone (it has a user namespace of its own). Root's processes are never
counted, so when pdbench runs as root the agent runs as an unprivileged uid of its own. Outside
the sandbox RLIMIT_NPROC would count every process of the user's account, so it is not set.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pdbench.agents.arena.bwrap import bwrap_argv, runtime_paths
from pdbench.agents.arena.log import match_slug
from pdbench.core.errors import ConfigError

if TYPE_CHECKING:
    from pdbench.agents.base import AgentContext
    from pdbench.config.schema import ArenaAgentSpec

log = logging.getLogger(__name__)

WORKER_SCRIPT = Path(__file__).with_name("child.py")
MARKER_VARIABLE = "PDBENCH_ARENA_WORKER"  # set in each worker's environment, to find its offspring
# What a worker outside the sandbox inherits from the runner's environment: enough to run Python,
# never the provider keys or other secrets.
PASSED_ENVIRONMENT = ("PATH", "HOME", "LANG", "LC_ALL", "TZ", "TMPDIR", "PYTHONPATH", "SYSTEMROOT")
# Threads count as processes for RLIMIT_NPROC: numerical libraries must not start one per core.
ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
NOBODY = 65534
# Agents of a root-run pdbench run as uids from a block per pdbench process, far above the ranges
# that systems and container tools hand out, so that each agent's processes are counted alone.
UID_BLOCK = 10_000
UID_BASE = 2_000_000_000
_uid_numbers = itertools.count()


@dataclass(frozen=True)
class Launch:
    """How to start one worker: its command line, environment and working folder."""

    argv: list[str]
    env: dict[str, str]
    cwd: Path
    sandboxed: bool
    marker: str  # the value of MARKER_VARIABLE in its environment


class Containment:
    """One agent's containment for one match: whether it is sandboxed, what it is shown, and its
    scratch folder (made for the first worker, removed by `close`)."""

    def __init__(
        self,
        spec: ArenaAgentSpec,
        agent_path: Path,
        agent_files: Sequence[Path],
        context: AgentContext | None,
    ) -> None:
        self.run_dir = Path(context.run_dir) if context and context.run_dir else None
        self.spec = spec
        self.agent_path = agent_path
        self.agent_files = list(agent_files)  # shown read-only with the agent file
        self.context = context
        # Never to be seen from inside, even when a folder the sandbox shows holds them.
        self.hidden = [Path(context.project_root) if context else Path.cwd()]
        self.hidden += [self.run_dir] if self.run_dir else []
        self._scratch: Path | None = None

    @functools.cached_property
    def sandboxed(self) -> bool:
        """Decided when the first worker starts, so that an agent that never plays costs nothing."""
        return use_sandbox(self.spec.sandbox, self.spec.path, self.run_dir)

    def launch(self) -> Launch:
        """How to start the next worker (a fresh marker each time)."""
        if self._scratch is None:
            self._scratch = make_scratch(self.context)
        scratch, marker = self._scratch, os.urandom(8).hex()
        limits: dict[str, int] = {}
        if self.spec.memory_mb is not None:
            limits["memory_bytes"] = self.spec.memory_mb << 20
        command = [sys.executable, "-u", str(WORKER_SCRIPT), str(self.agent_path)]
        if not self.sandboxed:
            env = {k: os.environ[k] for k in PASSED_ENVIRONMENT if k in os.environ}
            env.update(PYTHONUNBUFFERED="1", **{MARKER_VARIABLE: marker})
            return Launch([*command, json.dumps(limits)], env, scratch, False, marker)

        run_as = unprivileged_uid()
        if run_as is not None:
            os.chown(scratch, run_as, run_as)
            limits["run_as"] = run_as
        if self.spec.max_processes is not None:
            # Without root, bwrap's own init process in the namespace counts too.
            limits["max_processes"] = self.spec.max_processes + (0 if run_as is not None else 1)
        env = {k: os.environ[k] for k in ("PATH", "LANG", "LC_ALL", "TZ") if k in os.environ}
        env.update(HOME=str(scratch), PYTHONUNBUFFERED="1", PYTHONDONTWRITEBYTECODE="1")
        env.update(ONE_THREAD)
        env[MARKER_VARIABLE] = marker
        # The sandbox holds the file at its normalised path only: "agents/../x.py" would need
        # an agents/ folder on the way.
        command[-1] = os.path.normpath(command[-1])
        argv = bwrap_argv(
            [*command, json.dumps(limits)],
            read_only=[*runtime_paths(), WORKER_SCRIPT, self.agent_path, *self.agent_files],
            writable=scratch,
            hidden=self.hidden,
            hidden_files=self.context.secret_files if self.context else (),
            tmp_bytes=limits.get("memory_bytes"),
            as_root=os.geteuid() == 0,
        )
        return Launch(argv, env, scratch, True, marker)

    def close(self) -> None:
        """Remove the scratch folder (call once no worker runs)."""
        if self._scratch is not None:
            remove_scratch(self._scratch)
            self._scratch = None


def make_scratch(context: AgentContext | None) -> Path:
    """The agent's working folder for one match: <run_dir>/agent_work/<match>/, or a temp one."""
    if context is None or context.run_dir is None:
        return Path(tempfile.mkdtemp(prefix="pdbench-arena-"))
    path = Path(context.run_dir) / "agent_work" / match_slug(context)
    for _ in range(3):  # another match may remove an empty agent_work/ meanwhile
        with contextlib.suppress(FileNotFoundError):
            path.mkdir(parents=True, exist_ok=True)
            break
    return path


def remove_scratch(path: Path) -> None:
    """Remove the working folder and what the agent left in it (whatever the permissions it
    set), and agent_work/ once it is empty. Symlinks are removed, never followed."""

    def allow_and_retry(function: Callable[..., object], name: str, _error: BaseException) -> None:
        with contextlib.suppress(OSError):
            os.chmod(os.path.dirname(name), 0o700)
            function(name)

    shutil.rmtree(path, onexc=allow_and_retry)
    if path.parent.name == "agent_work":
        with contextlib.suppress(OSError):
            path.parent.rmdir()


def unprivileged_uid() -> int | None:
    """The uid a sandboxed agent runs as when pdbench runs as root (None otherwise): its own uid
    from this process's block when those uids exist here, else nobody's, shared by all."""
    if os.geteuid() != 0:
        return None
    uid = UID_BASE + (os.getpid() % 10_000) * UID_BLOCK + next(_uid_numbers) % UID_BLOCK
    return uid if _id_mapped(uid) else NOBODY


def _id_mapped(number: int) -> bool:
    """Whether `number` exists as a uid and a gid in this user namespace (a rootless container
    maps only a few)."""
    for table in ("uid_map", "gid_map"):
        try:
            lines = Path(f"/proc/self/{table}").read_text().splitlines()
        except OSError:
            return False
        ranges = [[int(field) for field in line.split()] for line in lines]
        if not any(inside <= number < inside + count for inside, _, count in ranges):
            return False
    return True


# --- whether bubblewrap works here -------------------------------------------------------------


@functools.cache
def sandbox_problem() -> str | None:
    """Why bubblewrap cannot contain an agent here, or None when it can. Tried once per process
    by starting this Python in the sandbox (and, as root, becoming an unprivileged user)."""
    if shutil.which("bwrap") is None:
        return "bubblewrap (bwrap) is not installed"
    probe = "pass"
    run_as = unprivileged_uid()
    if run_as is not None:
        probe = f"import os; os.setgroups([]); os.setgid({run_as}); os.setuid({run_as})"
    argv = bwrap_argv(
        [sys.executable, "-S", "-c", probe],
        read_only=runtime_paths(),
        writable=None,
        as_root=os.geteuid() == 0,
    )
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=20, env={})
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"bubblewrap does not start: {error}"
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines() or [f"exit code {done.returncode}"]
        return f"bubblewrap does not run here: {lines[-1]}"
    return None


def require_sandbox(shown_path: str) -> None:
    """`sandbox: required`: raise `ConfigError` when bubblewrap cannot run here."""
    problem = sandbox_problem()
    if problem is not None:
        raise ConfigError(
            f"sandbox is required but {problem}; install bubblewrap or set sandbox: auto",
            file=shown_path,
            field="sandbox",
        )


_warned: set[str] = set()


def use_sandbox(mode: str, shown_path: str, run_dir: Path | None) -> bool:
    """Whether to contain this agent with bubblewrap: `off` never, `required` or raise, `auto`
    when it works here, else one warning line per run."""
    if mode == "off":
        return False
    if mode == "required":
        require_sandbox(shown_path)
        return True
    problem = sandbox_problem()
    if problem is None:
        return True
    if str(run_dir) not in _warned:
        _warned.add(str(run_dir))
        log.warning(
            "warning: arena agents run without a sandbox (%s): they can read what this user can "
            "and reach the network; install bubblewrap, or set sandbox: off to silence this",
            problem,
        )
    return False
