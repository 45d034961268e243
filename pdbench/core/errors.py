"""One root for every error pdbench raises on purpose.

The CLI catches `PdbenchError`, prints its one-line message and exits with code 2; anything else is a
bug and keeps its traceback.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class PdbenchError(Exception):
    """An error caused by the user's input, with a message fit to print on one line."""


class ConfigError(PdbenchError):
    """A config value or file is wrong. Names the file and the field."""

    def __init__(self, message: str, *, file: str | None = None, field: str | None = None):
        self.file = file
        self.field = field
        self.reason = message
        where = ": ".join(part for part in (file, field) if part)
        super().__init__(f"{where}: {message}" if where else message)


class InvalidActionError(PdbenchError):
    """Something that is not C or D was offered as an action."""


class MatchAborted(PdbenchError):
    """An agent could not produce an action and its config says to abort the match.

    `attempts` are the tries of the round that could not be completed, so what was asked and
    answered is kept even though no action came of it."""

    def __init__(self, message: str, *, attempts: tuple = ()) -> None:
        super().__init__(message)
        self.attempts = attempts


class BudgetExhausted(PdbenchError):
    """The run's cost budget is spent: no new provider call may start."""


class CacheMiss(PdbenchError):
    """Offline replay was asked for and a prompt is not in the cache."""


class WriteFailed(Exception):
    """Writing a run's file (or the cache) failed: a full disk or an I/O error. Not bad input
    (exit 5): the run stops at once, the manifest keeps its last good version and says why."""

    def __init__(self, path: object, error: BaseException, *, written: bool = False) -> None:
        """`written`: the record was written all the same (in the room a reserve gave back);
        the run stops because the disk is full, not because this record is lost."""
        import errno

        self.path = str(path)
        self.written = written
        code = getattr(error, "errno", None)
        full = code in (errno.ENOSPC, errno.EDQUOT) or "disk is full" in str(error)
        reason = getattr(error, "strerror", None) or str(error)
        self.reason = "disk full" if full else f"I/O error ({reason})"
        super().__init__(f"{self.reason} while writing {self.path}")


def did_you_mean(name: str, options: Iterable[str]) -> str:
    """Return ' (did you mean "x"?)' for the closest option, or '' when nothing is close."""
    close = difflib.get_close_matches(name, list(options), n=1, cutoff=0.6)
    return f' (did you mean "{close[0]}"?)' if close else ""


def unknown_choice(kind: str, name: str, options: Iterable[str]) -> str:
    """The message for a lookup miss: the bad name, a suggestion, and what exists."""
    options = sorted(options)
    return f'unknown {kind} "{name}"{did_you_mean(name, options)}; choose one of: ' + ", ".join(
        options
    )


class StopRequested(Exception):
    """The run was asked to stop (Ctrl-C, SIGTERM): no new provider call or match starts. Not
    bad input and not a result: the match that met it stays unfinished, and the run ends
    interrupted (exit 130); the same command resumes it."""
