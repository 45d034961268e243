"""Hostile arena agents against their containment: real bubblewrap sandboxes, real processes.

Each hostile file (tests/fixtures/arena/hostile_*.py) is copied under a name unique to the test, so
that a process it leaves behind is found by that name in /proc/<pid>/cmdline (its forks never exec,
so they keep the agent's command line). Tests that need bubblewrap skip, with the reason, where it
cannot run; the others also run without it, to hold the fallback to its promises.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from reference_loop import MatchResult, play_match_sync

from pdbench.agents.arena import ArenaAgent
from pdbench.agents.arena.log import AGENT_GUTTER
from pdbench.agents.arena.sandbox import sandbox_problem
from pdbench.agents.base import AgentContext
from pdbench.config.schema import ArenaAgentSpec
from pdbench.core.actions import C, D
from pdbench.core.rng import DealKey
from pdbench.games.tables import GAMES
from pdbench.runners.experiment import run_experiment
from pdbench.runners.prepare import load
from pdbench.strategies import make_policy

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "arena"
PDBENCH = str(Path(sys.executable).with_name("pdbench"))
PD = GAMES["pd"]

needs_bwrap = pytest.mark.skipif(
    sandbox_problem() is not None, reason=f"no bubblewrap sandbox here: {sandbox_problem()}"
)
SANDBOXES = [pytest.param("required", marks=needs_bwrap), "off"]


@pytest.fixture
def project(tmp_path) -> Path:
    """A project of its own, with a .env holding a planted key; runs go to its data/runs."""
    root = tmp_path / "project"
    (root / "agents").mkdir(parents=True)
    (root / ".env").write_text(f"ANTHROPIC_API_KEY=sk-planted-dotenv-{uuid.uuid4().hex}\n")
    return root


def hostile(project: Path, name: str, **replace: str) -> str:
    """Copy tests/fixtures/arena/hostile_<name>.py into the project under a unique name (its
    marker), with `replace`'s texts substituted; return its path relative to the project."""
    source = (FIXTURES / f"hostile_{name}.py").read_text()
    for old, new in replace.items():
        source = source.replace(old, new)
    relative = f"agents/hostile_{name}_{uuid.uuid4().hex[:12]}.py"
    (project / relative).write_text(source)
    return relative


@pytest.fixture
def arena(project, tmp_path):
    made: list[ArenaAgent] = []

    def build(path: str, **fields) -> ArenaAgent:
        context = AgentContext(
            run_seed=0,
            condition="hostile",
            replicate=0,
            side="a",
            project_root=project,
            deal=DealKey.new(),
            run_dir=tmp_path / "run",
        )
        agent = ArenaAgent(ArenaAgentSpec(path=path, **fields), game=PD, context=context)
        made.append(agent)
        return agent

    yield build
    for agent in made:
        agent.close()


def play(agent: ArenaAgent, n_rounds: int = 5) -> MatchResult:
    result = play_match_sync(
        PD, n_rounds, agent, make_policy("alld", PD), seed_a=1, seed_b=2, disclose_rounds=True
    )
    assert result.completed
    return result


def processes_named(marker: str, settle_s: float = 2.0) -> list[int]:
    """Live processes whose command line holds `marker`, after up to `settle_s` for the kernel
    to finish killing a namespace."""
    deadline = time.monotonic() + settle_s
    while True:
        found = []
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                cmdline = Path("/proc", name, "cmdline").read_bytes()
                state = Path("/proc", name, "stat").read_text().rpartition(")")[2].split()[0]
            except OSError:
                continue
            if marker.encode() in cmdline and state != "Z":
                found.append(int(name))
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def kill_all(pids: list[int]) -> None:
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, 9)


# --- secrets: the project's .env, the runner's environment -------------------------------------


@needs_bwrap
def test_a_snooping_agent_finds_no_secret(project):
    planted_env = f"sk-planted-environ-{uuid.uuid4().hex}"
    planted_dotenv = (project / ".env").read_text().strip().partition("=")[2]
    for folder in ("conf", "prompts"):
        shutil.copytree(ROOT / folder, project / folder)
    snoop = hostile(project, "snoop")
    (project / "snoop.yaml").write_text(
        f"""
run: {{seed: 1, replicates: 2}}
game: {{id: pd}}
horizon: {{type: fixed, rounds: 3}}
conditions:
  - name: snoop_vs_alld
    agent_a: {{type: arena, path: {snoop}, sandbox: required}}
    agent_b: alld
"""
    )
    env = {**os.environ, "OPENAI_API_KEY": planted_env, "PDBENCH_TEST_SECRET": planted_env}
    done = subprocess.run(
        [PDBENCH, "run", "snoop.yaml", "--run-id", "snoop"],
        cwd=project, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    run_dir = project / "data" / "runs" / "snoop"
    log = (run_dir / "agent_logs" / "snoop_vs_alld__rep0__a.log").read_text()
    # It ran and looked: at the .env next to its file, above it, and at the runner's environment.
    assert f"SNOOP {project / '.env'}: FileNotFoundError" in log
    assert "SNOOP ../.env: FileNotFoundError" in log
    assert f"SNOOP cwd={run_dir / 'agent_work' / 'snoop_vs_alld__rep0__a'}" in log
    assert "SNOOP environ:" in log
    # Nothing secret anywhere it could have put it, nor on the terminal.
    for secret in (planted_env, planted_dotenv):
        assert secret not in done.stdout + done.stderr
        for path in project.rglob("*"):
            if path.is_file() and path != project / ".env":
                assert secret.encode() not in path.read_bytes(), path
    assert not (run_dir / "agent_work").exists()  # the scratch folders are gone


# --- the deal keys (issue 40): what would let it compute the hidden dice and words --------------


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_an_agent_cannot_read_the_deal_keys_in_its_sandbox(project, tmp_path, sandbox):
    """The workspace's key and the run's copy, looked for by path, relative to the agent's working
    folder and by walking what it sees: absent in the sandbox. Without it (`sandbox: off`, or no
    bubblewrap) the agent runs as the user and reads them, as docs/security.md says."""
    runs = tmp_path / "runs"  # outside the project: the sandbox does not hide it as the project's
    keys = [runs / "deal.key", runs / "probe" / "deal.key"]
    path = hostile(
        project,
        "deal_key",
        **{"KEY_PATHS: list = []": f"KEY_PATHS = {[str(key) for key in keys]!r}"},
    )
    shutil.copytree(ROOT / "conf", project / "conf")
    (project / "probe.yaml").write_text(
        f"""
run: {{seed: 0, replicates: 1}}
game: {{id: pd}}
horizon: {{type: fixed, rounds: 2}}
conditions:
  - name: probe
    agent_a: {{type: arena, path: {path}, sandbox: "{sandbox}"}}
    agent_b: alld
"""
    )
    loaded = load(project / "probe.yaml", [f"run.output_dir={runs}"], run_id="probe",
                  project_root=project)  # fmt: skip
    assert run_experiment(loaded).status == "complete"
    secrets = {key.read_text().strip() for key in keys}
    assert len(secrets) == 1  # the run's copy is the workspace's key
    log = (runs / "probe" / "agent_logs" / "probe__rep0__a.log").read_text()
    printed = [line.removeprefix(AGENT_GUTTER) for line in log.splitlines()]
    tried = [line for line in printed if line.startswith("KEY ")]
    assert {line.split(": ")[0] for line in tried} >= {f"KEY {key}" for key in keys}
    if sandbox == "required":
        assert all(line.endswith(": FileNotFoundError") for line in tried), tried
        assert not any(secret in log for secret in secrets)
    else:  # the documented limit of running without the sandbox
        assert f"KEY {keys[1]}: FOUND {secrets.pop()}" in log


@needs_bwrap
def test_a_deal_key_inside_a_folder_the_sandbox_shows_is_empty_there(tmp_path):
    """A key file the sandbox would show (its folder is mounted for the agent, as the Python
    runtime is) reads as an empty file inside; the rest of that folder stays as it is."""
    from pdbench.agents.arena.bwrap import bwrap_argv, runtime_paths

    shown = tmp_path / "shown"
    shown.mkdir()
    (shown / "deal.key").write_text("ab" * 32 + "\n")
    (shown / "other.txt").write_text("visible")
    script = f"print(repr(open({str(shown / 'deal.key')!r}).read()), open({str(shown / 'other.txt')!r}).read())"
    argv = bwrap_argv(
        [sys.executable, "-S", "-c", script],
        read_only=[*runtime_paths(), shown],
        writable=None,
        hidden_files=[shown / "deal.key"],
        as_root=os.geteuid() == 0,
    )
    done = subprocess.run(argv, capture_output=True, text=True, timeout=20, env={})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["''", "visible"]


# --- processes it starts -----------------------------------------------------------------------


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_a_detached_grandchild_holding_the_pipes_cannot_hang_the_match(arena, project, sandbox):
    path = hostile(project, "detach")
    agent = arena(path, timeout_s=1.0, sandbox=sandbox)
    started = time.perf_counter()
    result = play(agent)
    agent.close()
    elapsed = time.perf_counter() - started
    leftovers = processes_named(Path(path).name)
    kill_all(leftovers)
    assert elapsed < 5.0  # one 1 s timeout; before, the grandchild's 20 s sleep held the match
    assert [r.decision_a.timeout for r in result.rounds] == [False, False, True, False, False]
    assert all(not r.decision_a.fallback for i, r in enumerate(result.rounds) if i != 2)
    assert "detached a grandchild in round 3" in agent.log_path.read_text()
    assert leftovers == []


@needs_bwrap
def test_a_fork_loop_is_capped_and_the_match_goes_on(arena, project):
    path = hostile(project, "forker")
    agent = arena(path, sandbox="required", max_processes=8)
    result = play(agent)
    agent.close()
    leftovers = processes_named(Path(path).name)
    kill_all(leftovers)
    log = agent.log_path.read_text()
    refused = [line for line in log.splitlines() if line.startswith("agent | fork refused after")]
    assert len(refused) == 1 and 0 < int(refused[0].split()[5]) <= 7  # 8 with the agent itself
    assert all(r.decision_a.error is None for r in result.rounds)
    assert leftovers == []


def test_without_a_sandbox_forks_are_not_capped_but_ended_with_the_match(arena, project):
    path = hostile(project, "forker", **{"MAX_FORKS = 40": "MAX_FORKS = 10"})
    agent = arena(path, sandbox="off", max_processes=4)
    result = play(agent)
    assert "all 10 forks succeeded" in agent.log_path.read_text()
    agent.close()
    leftovers = processes_named(Path(path).name)
    kill_all(leftovers)
    assert all(r.decision_a.error is None for r in result.rounds)
    assert leftovers == []


# --- memory and network ------------------------------------------------------------------------


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_an_allocation_past_the_memory_limit_is_an_error_on_its_round(arena, project, sandbox):
    agent = arena(hostile(project, "hog"), sandbox=sandbox, memory_mb=128)
    result = play(agent)
    second = result.rounds[1].decision_a
    assert second.fallback and not second.timeout
    assert "on_turn raised" in second.error and "MemoryError" in second.error
    assert [r.decision_a.fallback for r in result.rounds] == [False, True, False, False, False]
    # The process lived on with its state: round 4's answer counts all four turns.
    assert [r.played.action_a for r in result.rounds] == [C, C, C, D, C]
    assert agent.restarts == 0


@needs_bwrap
def test_the_network_is_out_of_reach(arena, project):
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.setblocking(False)
        port = listener.getsockname()[1]
        agent = arena(hostile(project, "network", **{"PORT = 9": f"PORT = {port}"}))
        play(agent, n_rounds=2)
        agent.close()
        with pytest.raises(BlockingIOError):
            listener.accept()
    assert "NETWORK failed" in agent.log_path.read_text()


# --- what the sandbox shows: the agent's file and the modules it imports -----------------------


@needs_bwrap
def test_the_agent_sees_its_own_file_and_imported_siblings_only(arena, project):
    folder = project / "agents"
    (folder / "helper.py").write_text("CHOICE = 'D'\n")
    (folder / "unrelated.py").write_text("SECRET = 'not imported'\n")
    (folder / "agent.py").write_text(
        "import os\nimport helper\n\nclass Agent:\n    def on_turn(self, state):\n"
        "        print('SEES', sorted(os.listdir(os.path.dirname(__file__))), flush=True)\n"
        "        return {'type': 'commit', 'choice': helper.CHOICE}\n"
    )
    agent = arena("agents/agent.py", sandbox="required")
    result = play(agent, n_rounds=1)
    agent.close()
    assert result.rounds[0].played.action_a is D
    assert "SEES ['agent.py', 'helper.py']" in agent.log_path.read_text()


# --- sandbox settings through the CLI, where bubblewrap is missing ------------------------------


def _pathless_run(tmp_path: Path, sandbox: str, command: str) -> subprocess.CompletedProcess:
    """`pdbench <command>` an arena experiment with a PATH that holds no bwrap."""
    config = tmp_path / "arena.yaml"
    config.write_text(
        f"""
run: {{seed: 1, replicates: 2, output_dir: {tmp_path / "runs"}}}
game: {{id: pd}}
horizon: {{type: fixed, rounds: 3}}
conditions:
  - name: tft_vs_alld
    agent_a: {{type: arena, path: examples/agents/tit_for_tat.py, sandbox: {sandbox}}}
    agent_b: alld
"""
    )
    empty = tmp_path / "bin"
    empty.mkdir()
    extra = ["--run-id", "r", "-q"] if command == "run" else []
    return subprocess.run(
        [PDBENCH, command, str(config), *extra],
        cwd=ROOT, env={**os.environ, "PATH": str(empty)}, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip


def test_sandbox_required_without_bubblewrap_is_one_line_and_exit_2(tmp_path):
    done = _pathless_run(tmp_path, "required", "validate")
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 2
    assert len(lines) == 1 and "sandbox" in lines[0] and "bubblewrap" in lines[0]
    assert "Traceback" not in done.stderr


def test_sandbox_auto_without_bubblewrap_warns_once_and_runs(tmp_path):
    done = _pathless_run(tmp_path, "auto", "run")
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if "without a sandbox" in line]
    assert len(warnings) == 1 and warnings[0].startswith("warning: ")
    log = (tmp_path / "runs" / "r" / "agent_logs" / "tft_vs_alld__rep1__a.log").read_text()
    assert "without a sandbox" in log
