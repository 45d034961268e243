"""Run one of pdbench's front doors inside the test process, as a user's command would run it.

    done = run_front_door("cli", ["validate", "conf/config.yaml"], cwd=project, env=env)
    done.code, done.stdout, done.stderr, done.cpu_seconds

A subprocess costs about a second of CPU before pdbench does anything (imports, Hydra); most
error cases need a tenth of that. This runs the same entry functions the console script
(`pdbench.cli.main`) and `python -m pdbench` (`hydra_entry`) run, with the same argv, working
folder and environment, and turns what a process would show into a `Ran`: the exit code from
SystemExit, stdout and stderr, and, for an exception that would escape to the interpreter, its
traceback on stderr and exit code 1 (what Python prints and returns).

What a command changes in its process is put back after each call, so no case sees another's:
os.environ, the working folder, sys.argv and the standard streams, signal handlers,
sys.excepthook and the log record factory, the logging configuration (Hydra configures the
root logger and opens a job log), Hydra's GlobalHydra singleton, warning filters, and the
module-level caches that key on a file's path (the strict YAML reader's caches stay: they key on a
file's contents, so a case's edited file is parsed afresh). Warnings and log records
reach stderr as they would in a fresh process: pytest's own log handlers are set aside meanwhile.

Not covered in-process, so kept in subprocess cases: resource limits (address space, CPU seconds
enforced by the kernel) and what happens at interpreter start and exit.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import resource
import signal
import sys
import threading
import time
import traceback
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

ENTRIES = ("cli", "module")  # `pdbench ...`, `python -m pdbench ...`


class WallClockExceeded(BaseException):
    """Raised inside the command when it runs past its wall-clock limit (BaseException, so the
    command's own `except Exception` cannot swallow it)."""


@dataclass
class Ran:
    code: int | None  # None: stopped at its wall-clock limit
    stdout: str
    stderr: str
    seconds: float
    cpu_seconds: float  # of this process (every thread) while the command ran


def run_front_door(
    entry: str,
    args: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    wall_limit_s: float | None = None,
    one_stream: bool = False,
) -> Ran:
    """Run `pdbench <args>` (entry "cli") or `python -m pdbench <args>` (entry "module") in this
    process with `cwd` as working folder and exactly `env` as environment. `one_stream`: stdout
    and stderr are written to one stream, in the order a terminal shows them (`Ran.stdout`; the
    warnings recorded while the command ran come last), as for a documented console block."""
    if entry not in ENTRIES:
        raise ValueError(f"entry must be one of {ENTRIES}, not {entry!r}")
    stdout = io.StringIO()
    stderr = stdout if one_stream else io.StringIO()
    started, cpu_started = time.monotonic(), _process_cpu()
    code: int | None
    with _isolated(cwd, env, entry, args, stdout, stderr) as caught:
        try:
            with _wall_clock_limit(wall_limit_s):
                code = _call(entry, list(args))
        except SystemExit as done:
            code = _exit_code(done.code, stderr)
        except WallClockExceeded:
            code = None
        except BaseException:  # what the interpreter would print for an uncaught exception
            stderr.write(traceback.format_exc())
            code = 1
    for warning in caught:
        stderr.write(
            warnings.formatwarning(
                warning.message, warning.category, warning.filename, warning.lineno, warning.line
            )
        )
    return Ran(
        code=code,
        stdout=stdout.getvalue(),
        stderr="" if one_stream else stderr.getvalue(),
        seconds=time.monotonic() - started,
        cpu_seconds=_process_cpu() - cpu_started,
    )


def _call(entry: str, args: list[str]) -> int:
    if entry == "cli":
        from pdbench.cli import main

        main()  # exits through SystemExit unless the command succeeded
        return 0
    from pdbench.cli.hydra_door import hydra_entry

    return hydra_entry(args)


def _exit_code(code: object, stderr: io.StringIO) -> int:
    """What the interpreter makes of `sys.exit(code)`."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    stderr.write(f"{code}\n")  # sys.exit("message") prints it and exits 1
    return 1


def _process_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


@contextlib.contextmanager
def _wall_clock_limit(seconds: float | None) -> Iterator[None]:
    """Interrupt the command after `seconds` (SIGALRM; only the main thread can take it)."""
    if seconds is None or threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: object) -> None:
        raise WallClockExceeded

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# Python's default warning filters when no -W option and no PYTHONWARNINGS are given.
_DEFAULT_FILTERS = (
    ("default", DeprecationWarning, "__main__"),
    ("ignore", DeprecationWarning, ""),
    ("ignore", PendingDeprecationWarning, ""),
    ("ignore", ImportWarning, ""),
    ("ignore", ResourceWarning, ""),
)


@contextlib.contextmanager
def _isolated(
    cwd: Path,
    env: Mapping[str, str],
    entry: str,
    args: Sequence[str],
    stdout: io.StringIO,
    stderr: io.StringIO,
) -> Iterator[list[warnings.WarningMessage]]:
    saved_environ = dict(os.environ)
    saved_cwd = os.getcwd()
    saved_argv = sys.argv
    saved_streams = (sys.stdin, sys.stdout, sys.stderr)
    saved_signals = {number: signal.getsignal(number) for number in (signal.SIGTERM, signal.SIGINT)}
    saved_excepthook = sys.excepthook
    saved_record_factory = logging.getLogRecordFactory()
    saved_logging = _logging_state()
    _clear_process_state()
    root = logging.getLogger()
    root.handlers = []  # pytest's capture handlers: a log line goes to stderr, as in a process
    os.environ.clear()
    os.environ.update(env)
    os.chdir(cwd)
    sys.argv = ["pdbench" if entry == "cli" else "pdbench/__main__.py", *args]
    sys.stdin, sys.stdout, sys.stderr = io.StringIO(""), stdout, stderr
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.resetwarnings()
            for action, category, module in _DEFAULT_FILTERS:
                warnings.filterwarnings(action, category=category, module=module)  # type: ignore[arg-type]
            yield caught
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        sys.argv = saved_argv
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_environ)
        for number, handler in saved_signals.items():
            signal.signal(number, handler)
        sys.excepthook = saved_excepthook
        logging.setLogRecordFactory(saved_record_factory)
        _restore_logging(saved_logging)
        _clear_process_state()


def _clear_process_state() -> None:
    """Hydra's singleton and the caches keyed on a file's path (a sandbox's path can repeat).
    The strict YAML reader's caches are kept: they are keyed on a file's contents."""
    with contextlib.suppress(ImportError):
        from hydra.core.global_hydra import GlobalHydra

        GlobalHydra.instance().clear()
    with contextlib.suppress(ImportError):
        from pdbench.storage import environment

        environment.environment_facts.cache_clear()


_LoggerState = tuple[list[logging.Handler], int, bool, bool]


def _logging_state() -> dict[str, _LoggerState]:
    loggers: dict[str, logging.Logger] = {"": logging.getLogger()}
    for name, logger in logging.Logger.manager.loggerDict.items():
        if isinstance(logger, logging.Logger):
            loggers[name] = logger
    return {
        name: (list(logger.handlers), logger.level, logger.disabled, logger.propagate)
        for name, logger in loggers.items()
    }


def _restore_logging(saved: dict[str, _LoggerState]) -> None:
    """Every logger as it was; handlers the command added (Hydra's job log file) are closed."""
    current = _logging_state()
    for name, (handlers, _, _, _) in current.items():
        for handler in handlers:
            if handler not in saved.get(name, ([], 0, False, True))[0]:
                with contextlib.suppress(Exception):
                    handler.close()
    for name, (handlers, level, disabled, propagate) in saved.items():
        logger = logging.getLogger(name or None)
        logger.handlers = handlers
        logger.setLevel(level)
        logger.disabled = disabled
        logger.propagate = propagate
    for name in current.keys() - saved.keys():  # loggers made by the command: quiet again
        logger = logging.getLogger(name)
        logger.handlers = []
        logger.setLevel(logging.NOTSET)
        logger.disabled = False
        logger.propagate = True
    logging.disable(logging.NOTSET)
