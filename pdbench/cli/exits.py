"""Exit codes and the one place an error becomes one line on stderr (both front doors).

| code | meaning |
|------|---------|
| 0    | the run is complete |
| 1    | a bug: an unexpected exception (its traceback is kept) |
| 2    | bad input: config, command line, names, paths, a locked run dir |
| 3    | run incomplete: provider failures left matches unfinished (even all); the same command resumes |
| 4    | stopped by the cost budget (even before a match ended); resumable with a larger budget |
| 5    | a write failed (disk full, I/O error); the last good manifest is kept |
| 6    | aborted: every match was played, but a condition has no finished match (all aborted) |
| 130  | interrupted (Ctrl-C); resumable |
"""

from __future__ import annotations

import contextlib
import sys

OK = 0
BUG = 1
BAD_INPUT = 2
INCOMPLETE = 3
BUDGET = 4
WRITE_FAILED = 5
ABORTED = 6
CONTRACT_BROKEN = 7  # pdbench check-game: the game fails a contract check
INTERRUPTED = 130


# The exit code of a run that ended with each manifest status (a failure raises instead).
STATUS_CODES = {
    "complete": OK,
    "incomplete": INCOMPLETE,
    "stopped": BUDGET,
    "interrupted": INTERRUPTED,
    "aborted": ABORTED,
}


def status_code(status: str) -> int:
    return STATUS_CODES.get(status, BUG)


def say_unfinished(status: str, waiting: int, reason: str | None) -> None:
    """The last lines of a run that did not finish: why, then how many matches wait and what to
    do (always the last line, so scripts can read it)."""
    if status == "aborted":  # nothing waits: the aborted matches are the result
        say(
            f"run aborted: {reason}; change what made them abort (agent max_retries, on_invalid="
            "fallback, a constraint, the prompt), then run with a new --run-id / run.run_id"
        )
        return
    say(f"run {status}: {reason}" if reason else f"run {status}")
    if status == "stopped":
        say(f"{waiting} matches wait: raise run.max_cost_usd and run the same command again")
    else:
        say(f"{waiting} matches wait: run the same command again to resume them")


def say_interrupted(stopped: object) -> int:
    """The one line of a run stopped by Ctrl-C or SIGTERM after it stored what finished; returns
    the exit code (130).

    What the run wrote is closed by now. The heap is frozen so that the collections Python runs
    while it shuts down skip it: on a large run they took seconds after the signal."""
    import gc

    stored, planned = getattr(stopped, "stored", None), getattr(stopped, "planned", None)
    what = f"{stored} of {planned} matches are stored" if stored is not None else "stored"
    say(
        f"interrupted: {what} (answers of calls that finished are cached); run the same "
        "command again to resume"
    )
    gc.freeze()
    return INTERRUPTED


def say_write_failed(failure: BaseException) -> None:
    """The one line of a run stopped by a failed write (exit 5)."""
    say(
        f"error: run failed: {failure}; what was stored before it is kept: free some space (or "
        "fix the folder), then run the same command again to resume"
    )


def raise_on_sigterm() -> None:
    """SIGTERM (a cluster's scheduler, `kill`) stops a run as Ctrl-C does: what finished is kept,
    the manifest says interrupted, and the same command resumes."""
    import signal

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupt)


def encodable_output() -> None:
    """Whatever the terminal's encoding (an ISO-8859-1 locale, PYTHONIOENCODING=latin-1), text
    it cannot show is replaced (`?`), never a UnicodeEncodeError after the work is done."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if callable(reconfigure):
            # A closed or detached stream has nothing to protect.
            with contextlib.suppress(ValueError, OSError):
                reconfigure(errors="replace")


def say(message: str) -> None:
    """One line on stderr (newlines inside the message are folded), secrets redacted: an error
    may quote a command-line value or a URL with its key. Control characters are spelled out
    (pdbench.core.visible): a message may quote a file's content or an agent's text, and the
    terminal must show it, never act on it."""
    from pdbench.core.redact import redact_text
    from pdbench.core.visible import visible

    print(visible(redact_text(" ".join(message.split("\n")))), file=sys.stderr)


def usage_error_types() -> tuple[type[BaseException], ...]:
    """Click's usage errors, from the click Typer vendors and from click itself."""
    found: list[type[BaseException]] = []
    try:
        from typer._click.exceptions import ClickException as vendored

        found.append(vendored)
    except ImportError:  # an older typer uses click directly
        pass
    import click

    found.append(click.ClickException)
    return tuple(found)


def usage_message(error: BaseException, command: str | None) -> str:
    """A click usage error as one line, with where to look for help."""
    format_message = getattr(error, "format_message", None)
    message = format_message() if callable(format_message) else str(error)
    context = getattr(error, "ctx", None)
    path = getattr(context, "command_path", None) or command or "pdbench"
    hint = f" (see {path} --help)"
    if "No such option: -m" in message:
        hint = "; sweeps run through Hydra: uv run python -m pdbench -m key=a,b ..."
    return f"error: {path}: {message}{hint}"
