"""Machinery of the careless-and-hostile-input corpus (issue 20); the table is in bad_input_cases.

Every case runs the real command line (`pdbench ...` or `python -m pdbench ...`) through the
front door's entry function in the test process (tests/in_process.py: a subprocess costs a
second of CPU before pdbench does anything), and the cases marked `process=True` once more as a
real subprocess under resource limits (the process contract: exit code, one stderr line, no
traceback, nothing written, CPU and memory limits). Each runs inside its own sandbox, a folder
holding

    proj/   a copy of the committed project's conf/, prompts/, examples/,
            tests/fixtures/bad_input/ and tests/fixtures/configs/ (never the user's edited conf/;
            the working directory, so pdbench takes it for the project root)
    out/    run.output_dir, empty unless the case puts a run there
    cache/  PDBENCH_CACHE_DIR
    hydra/  Hydra's own run and sweep folders (module door)

and the whole sandbox is fingerprinted before and after: a write anywhere but one run folder under
out/ (or the cache, or Hydra's folder) is caught, and so is any change to a file that was there.

Each check that can fail raises its own AssertionError subclass, so a case marked
`xfail(raises=Traceback)` fails only for the reason recorded in the table; a case that fails for
another reason is reported as a real failure.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from in_process import run_front_door
from project_copy import shared_copy

ROOT = Path(__file__).resolve().parents[2]
PROJECT_PARTS = (
    "conf",
    "prompts",
    "examples",
    "tests/fixtures/bad_input",
    "tests/fixtures/configs",
)
FIXTURES = ROOT / "tests" / "fixtures" / "bad_input"
EXISTING_RUN = "taken"  # the run id of the finished run that `existing_run` copies into out/
MEMORY_LIMIT = 2 * 1024**3  # address space of every case: "allocate the whole plan" fails fast

CLASSES = ("yaml", "sizes", "values", "paths", "templates", "cli", "config", "newcomer")


# --- why a case fails: one exception per check ---------------------------------------------------


class Hang(AssertionError):
    """Still running at its time limit (wall clock or CPU seconds)."""


class Traceback(AssertionError):
    """A Python traceback on stdout or stderr."""


class WroteOutside(AssertionError):
    """Wrote outside the run folder, or changed or removed a file that was already there."""


class WrongExit(AssertionError):
    """An exit code other than the expected one (0 means the mistake was accepted)."""


class NotOneLine(AssertionError):
    """stderr is not exactly one line starting with "error: "."""


class LineMissing(AssertionError):
    """The error line does not name the file, option or field."""


class LineWrong(AssertionError):
    """The error line names what it must not (another field, a suggestion that is refused)."""


# --- the table's vocabulary ----------------------------------------------------------------------


@dataclass
class Sandbox:
    case_dir: Path
    template_run: Callable[[], Path]  # the finished run existing_run copies (made once)
    cleanups: list[Callable[[], None]] = field(default_factory=list)

    @property
    def proj(self) -> Path:
        return self.case_dir / "proj"

    @property
    def out(self) -> Path:
        return self.case_dir / "out"

    def fill(self, text: str) -> str:
        """Place the sandbox's folders into an argument: {case}, {out}, {proj}."""
        for name, path in (("{case}", self.case_dir), ("{out}", self.out), ("{proj}", self.proj)):
            text = text.replace(name, str(path))
        return text


Setup = Callable[[Sandbox], None]


class CannotSetUp(Exception):
    """The machine cannot build this case's situation (e.g. no read-only folder as root)."""


@dataclass(frozen=True)
class Case:
    id: str
    kind: str  # one of CLASSES
    args: tuple[str, ...]  # after `pdbench` (entry "cli") or `python -m pdbench` (entry "module")
    line: tuple[str, ...] = ()  # what the error line must name (case-insensitive)
    absent: tuple[str, ...] = ()  # what it must not say (a wrong field, a wrong suggestion)
    codes: tuple[int, ...] = (2,)  # accepted exit codes; (0, 2): run it, or refuse in one line
    entry: str = "cli"
    files: tuple[tuple[str, bytes], ...] = ()  # written into the sandbox, path relative to it
    setup: tuple[Setup, ...] = ()
    env: tuple[tuple[str, str | None], ...] = ()  # None removes the variable
    quick: bool = False  # must finish within a few seconds (hang-prone inputs)
    # A case that is recovered from rather than refused (exit 0): its one `warning: ` line on
    # stderr must name these.
    warning: tuple[str, ...] = ()
    today: tuple[type[AssertionError], str] | None = None  # how it fails today: xfail
    process: bool = False  # also run as a real subprocess under resource limits

    @property
    def cpu_limit_s(self) -> int:
        """A correct refusal takes 0.5-1.5 CPU s through either door, and up to 2.1 when the
        CLI composes conf/config.yaml with an llm agent (`validate ... agent_a=llm_default`,
        measured 2026-11-29 on the idle machine; 1.9 under the suite's load was killed at the
        2 s this once allowed the CLI): 6 s is about 3x the slowest, and still quick."""
        return 6 if self.quick else 30

    @property
    def wall_limit_s(self) -> float:
        return 30 if self.quick else 90


def fixture_bytes(relative: str) -> bytes:
    return (FIXTURES / relative).read_bytes()


def existing_run(sandbox: Sandbox) -> None:
    """A finished run at out/taken (tests/fixtures/bad_input/run/policies.yaml)."""
    shutil.copytree(sandbox.template_run(), sandbox.out / EXISTING_RUN)


def make_file(relative: str, content: bytes = b"not a folder\n") -> Setup:
    def setup(sandbox: Sandbox) -> None:
        path = sandbox.case_dir / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)

    return setup


def edit_file(relative: str, change: Callable[[bytes], bytes]) -> Setup:
    def setup(sandbox: Sandbox) -> None:
        path = sandbox.case_dir / relative
        path.write_bytes(change(path.read_bytes()))

    return setup


def remove(relative: str) -> Setup:
    """A folder or file of the project copy that is not there (a user's project without it)."""

    def setup(sandbox: Sandbox) -> None:
        path = sandbox.case_dir / relative
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink()

    return setup


def read_only(relative: str) -> Setup:
    """A folder nobody may write into: chmod 555, and as root (who ignores modes) immutable."""

    def setup(sandbox: Sandbox) -> None:
        path = sandbox.case_dir / relative
        path.mkdir(parents=True, exist_ok=True)
        path.chmod(0o555)
        sandbox.cleanups.append(lambda: path.chmod(0o755))
        if _writable(path) and shutil.which("chattr"):
            done = subprocess.run(["chattr", "+i", str(path)], capture_output=True)
            if done.returncode == 0:
                sandbox.cleanups.insert(0, lambda: subprocess.run(["chattr", "-i", str(path)]))
        if _writable(path):
            raise CannotSetUp(f"cannot make {relative} read-only here (root without chattr)")

    return setup


def _writable(folder: Path) -> bool:
    probe = folder / ".write-probe"
    try:
        probe.write_bytes(b"")
    except OSError:
        return False
    probe.unlink()
    return True


# --- running a case ------------------------------------------------------------------------------


def pdbench_script() -> str:
    """The installed console script (what `uv run pdbench` runs), without uv's start-up."""
    return str(Path(sys.executable).with_name("pdbench"))


# Limits are set in a tiny exec wrapper rather than a preexec_fn, which is unsafe with threads.
_LIMITS = (
    "import os, resource, sys\n"
    "cpu, memory = int(sys.argv[1]), int(sys.argv[2])\n"
    "resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))\n"
    "resource.setrlimit(resource.RLIMIT_AS, (memory, memory))\n"
    "os.execv(sys.argv[3], sys.argv[3:])\n"
)


@dataclass
class Outcome:
    command: list[str]
    code: int | None = None  # None: killed at the wall-clock limit; -N: killed by signal N
    stdout: str = ""
    stderr: str = ""
    seconds: float = 0.0  # wall clock
    cpu_seconds: float = 0.0  # user + system, of the command and the children it waited for
    before: dict[str, str] = field(default_factory=dict)
    after: dict[str, str] = field(default_factory=dict)
    skipped: str | None = None


def copy_project(target: Path) -> None:
    """The parts of the committed project pdbench reads, as plain copies: one `cp` (GNU
    coreutils) copies them in a third of the time shutil.copytree takes, which every one of the
    ~200 cases pays."""
    target.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        ["cp", "-R", "--parents", "--no-preserve=all", *PROJECT_PARTS, str(target)],
        cwd=shared_copy(),
        check=True,
    )


def build_sandbox(case: Case, sandbox: Sandbox) -> None:
    """The project copy, an empty output_dir, then the case's own files and setup steps."""
    copy_project(sandbox.proj)
    sandbox.out.mkdir()
    for relative, content in case.files:
        path = sandbox.case_dir / sandbox.fill(relative)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(sandbox.fill(content.decode("latin-1")).encode("latin-1"))
    for step in case.setup:
        step(sandbox)


def case_env(case: Case, sandbox: Sandbox) -> dict[str, str]:
    """The test session's environment with the sandbox's cache, without a developer's variables
    that change what pdbench does (HYDRA_FULL_ERROR, a sweep to join, API keys), plus the case's."""
    env = {**os.environ, "PDBENCH_CACHE_DIR": str(sandbox.case_dir / "cache")}
    for name in ("HYDRA_FULL_ERROR", "PDBENCH_SWEEP_ID", "PDBENCH_RUN_DIR"):
        env.pop(name, None)
    for name in [name for name in env if name.endswith("_API_KEY")]:
        env.pop(name)
    for name, value in case.env:
        if value is None:
            env.pop(name, None)
        else:
            env[name] = sandbox.fill(value)
    return env


def run_case_in_process(case: Case, sandbox: Sandbox) -> Outcome:
    """Run the case's command through its front door's entry function in this process."""
    args = [sandbox.fill(a) for a in case.args]
    shown = ["pdbench"] if case.entry == "cli" else ["python", "-m", "pdbench"]
    outcome = Outcome(command=[*shown, *args], before=fingerprint(sandbox.case_dir))
    ran = run_front_door(
        case.entry,
        args,
        cwd=sandbox.proj,
        env=case_env(case, sandbox),
        wall_limit_s=case.wall_limit_s,
    )
    outcome.code, outcome.stdout, outcome.stderr = ran.code, ran.stdout, ran.stderr
    outcome.seconds, outcome.cpu_seconds = ran.seconds, ran.cpu_seconds
    outcome.after = fingerprint(sandbox.case_dir)
    return outcome


def run_case(case: Case, sandbox: Sandbox, logs: Path) -> Outcome:
    """Run the case's command in its sandbox; stdout and stderr go to files under `logs` (outside
    the sandbox) so that the process can be reaped with its CPU time (os.wait4)."""
    entry = [pdbench_script()] if case.entry == "cli" else [sys.executable, "-m", "pdbench"]
    command = [*entry, *(sandbox.fill(a) for a in case.args)]
    env = case_env(case, sandbox)
    limits = [str(case.cpu_limit_s), str(MEMORY_LIMIT)]
    outcome = Outcome(command=command, before=fingerprint(sandbox.case_dir))
    stdout_path, stderr_path = logs / f"{case.id}.stdout", logs / f"{case.id}.stderr"
    started = time.monotonic()
    with stdout_path.open("wb") as stdout, stderr_path.open("wb") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-c", _LIMITS, *limits, *command],
            cwd=sandbox.proj,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=stderr,
            start_new_session=True,  # one process group: a timeout ends the case's children too
        )
        status, usage, timed_out = _reap(process.pid, started + case.wall_limit_s)
        process.returncode = 0  # reaped here; keep Popen from waiting for it again
    _kill_group(process.pid)  # anything the case left running (arena workers, joblib)
    outcome.seconds = time.monotonic() - started
    outcome.cpu_seconds = usage.ru_utime + usage.ru_stime
    outcome.code = None if timed_out else os.waitstatus_to_exitcode(status)
    outcome.stdout = stdout_path.read_bytes().decode("utf-8", "replace")
    outcome.stderr = stderr_path.read_bytes().decode("utf-8", "replace")
    outcome.after = fingerprint(sandbox.case_dir)
    return outcome


def _reap(pid: int, deadline: float) -> tuple[int, Any, bool]:
    """Wait for `pid` until `deadline` (then kill its group): (status, rusage, timed out)."""
    while True:
        done, status, usage = os.wait4(pid, os.WNOHANG)
        if done:
            return status, usage, False
        if time.monotonic() > deadline:
            _kill_group(pid)
            _, status, usage = os.wait4(pid, 0)
            return status, usage, True
        time.sleep(0.02)


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def fingerprint(root: Path) -> dict[str, str]:
    """Every folder, file and link under `root` (relative path -> kind and content hash).

    os.scandir with plain strings: each of the ~200 cases fingerprints its sandbox (a project
    copy) twice, and pathlib's per-entry objects (relative_to, is_dir) were a quarter of the
    corpus's time."""
    found: dict[str, str] = {}

    def visit(folder: str, prefix: str) -> None:
        with os.scandir(folder) as entries:
            for entry in entries:
                relative = prefix + entry.name
                if entry.is_symlink():
                    found[relative] = f"link {os.readlink(entry.path)}"
                elif entry.is_dir():
                    found[relative] = "folder"
                    visit(entry.path, relative + "/")
                else:
                    with open(entry.path, "rb") as file:
                        found[relative] = hashlib.sha256(file.read()).hexdigest()

    visit(str(root), "")
    return found


# --- checking a case -----------------------------------------------------------------------------


def check(case: Case, outcome: Outcome) -> None:
    """Raise the exception of the first expectation the outcome breaks."""
    shown = describe(outcome)
    if (
        outcome.code is None
        or outcome.code in (-signal.SIGXCPU, -signal.SIGKILL)
        or outcome.cpu_seconds > case.cpu_limit_s
    ):
        raise Hang(
            f"killed at its limit ({case.cpu_limit_s} CPU s or {case.wall_limit_s:.0f} s) after "
            f"{outcome.seconds:.1f} s\n{shown}"
        )
    if "Traceback" in outcome.stdout + outcome.stderr:
        raise Traceback(f"a traceback\n{shown}")
    problems = unexpected_writes(outcome)
    if problems:
        raise WroteOutside("; ".join(problems) + f"\n{shown}")
    if outcome.code not in case.codes:
        raise WrongExit(f"exit {outcome.code}, expected {case.codes}\n{shown}")
    if outcome.code != 2:
        if case.warning:
            _check_warning(case, outcome, shown)
        return
    lines = [line for line in outcome.stderr.splitlines() if line.strip()]
    if len(lines) != 1 or not lines[0].startswith("error: "):
        raise NotOneLine(f'{len(lines)} lines on stderr, not one "error: " line\n{shown}')
    missing = [text for text in case.line if text.casefold() not in lines[0].casefold()]
    if missing:
        raise LineMissing(f"the line does not name {missing}: {lines[0]}\n{shown}")
    wrong = [text for text in case.absent if text.casefold() in lines[0].casefold()]
    if wrong:
        raise LineWrong(f"the line says {wrong}, which it must not: {lines[0]}\n{shown}")


def _check_warning(case: Case, outcome: Outcome, shown: str) -> None:
    warnings = [line for line in outcome.stderr.splitlines() if line.startswith("warning: ")]
    if len(warnings) != 1:
        raise NotOneLine(f'{len(warnings)} "warning: " lines on stderr, not one\n{shown}')
    missing = [text for text in case.warning if text.casefold() not in warnings[0].casefold()]
    if missing:
        raise LineMissing(f"the warning does not name {missing}: {warnings[0]}\n{shown}")


def unexpected_writes(outcome: Outcome) -> list[str]:
    """What the command wrote outside one run folder under out/ (the cache and Hydra's folder
    aside), and what it changed or removed that was there before: anything at all when it
    failed, anything outside out/ when it succeeded."""
    before, after = outcome.before, outcome.after
    problems = []
    changed = sorted(p for p in before if after.get(p) != before[p])
    if outcome.code == 0:
        changed = [p for p in changed if _top(p) not in ("out", "cache", "hydra")]
    if changed:
        problems.append(f"changed or removed what was there: {_some(changed)}")
    new = [p for p in after if p not in before]
    outside = sorted(p for p in new if _top(p) not in ("out", "cache", "hydra"))
    if outside:
        problems.append(f"wrote outside the run folder: {_some(outside)}")
    # What appeared directly in output_dir: at most one entry, a folder (the run's), besides the
    # workspace's deal key a first run makes there (docs/security.md).
    in_output_dir = sorted(
        p for p in new if _top(p) == "out" and p.count("/") == 1 and p != "out/deal.key"
    )
    if len(in_output_dir) > 1 or any(after[p] != "folder" for p in in_output_dir):
        problems.append(f"wrote into output_dir itself: {_some(in_output_dir)}")
    return problems


def _top(relative: str) -> str:
    return relative.split("/", 1)[0]


def _some(paths: list[str]) -> str:
    return ", ".join(paths[:5]) + (f" and {len(paths) - 5} more" if len(paths) > 5 else "")


def describe(outcome: Outcome) -> str:
    def tail(text: str) -> str:
        return text if len(text) < 3000 else "..." + text[-3000:]

    return (
        f"$ {' '.join(outcome.command)}\nexit {outcome.code} after {outcome.seconds:.1f} s "
        f"({outcome.cpu_seconds:.1f} CPU s)\n"
        f"stdout:\n{tail(outcome.stdout)}\nstderr:\n{tail(outcome.stderr)}"
    )
