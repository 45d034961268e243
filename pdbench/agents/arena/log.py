"""Where an arena agent's output goes: its capped log file and pdbench's notes in it.

The log holds two kinds of lines, told apart by how they start, and the agent can write only
one kind: every line it prints is written as `agent | <line>`, so no line of the agent's can
start as pdbench's own, `[pdbench <time>] <note>` (a note's further lines: `[pdbench <time>] |
<line>`). Both are written with every control character spelled out (pdbench.core.visible):
the file is as safe to `cat` as `pdbench train` is to watch. Bytes that are not UTF-8 are
written as `\\xNN`.
"""

from __future__ import annotations

import codecs
import hashlib
import os
import re
import tempfile
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, Literal

from pdbench.core.visible import visible

if TYPE_CHECKING:
    from pdbench.agents.base import AgentContext

LOG_CAP_BYTES = 1 << 20  # what one agent may print per match before the rest is discarded
AGENT_GUTTER = "agent | "  # starts every line the agent printed
NOTE_CONTINUED = "| "  # after a note's mark: a further line of the same note
_NOTE_MARK = re.compile(r"\[pdbench [^\]\n]*\] ")

LineKind = Literal["agent", "note", "note continued"]


# A file name may have 255 bytes; ".log" and the replicate and side take some. A group's condition
# is named by every seat's override (a public goods train run's was 356 characters).
CONDITION_IN_NAME_MAX = 160


def match_slug(context: AgentContext) -> str:
    """<condition>__rep<replicate>__<side>, safe as a file name: one agent in one match. A
    condition name too long for a file name is cut and ends in a digest of the whole name, so
    two conditions never share a log."""
    condition = re.sub(r"[^\w.=+-]", "_", context.condition)
    if len(condition.encode()) > CONDITION_IN_NAME_MAX:
        digest = hashlib.sha256(context.condition.encode()).hexdigest()[:12]
        cut = condition.encode()[: CONDITION_IN_NAME_MAX - 13].decode(errors="ignore")
        condition = f"{cut}~{digest}"
    side = re.sub(r"[^\w.=+-]", "_", context.side)
    return f"{condition}__rep{context.replicate}__{side}"


def agent_log_path(context: AgentContext | None, agent_path: Path) -> Path:
    """<run_dir>/agent_logs/<condition>__rep<replicate>__<side>.log, or a temp file."""
    if context is not None and context.run_dir is not None:
        return Path(context.run_dir) / "agent_logs" / f"{match_slug(context)}.log"
    handle, name = tempfile.mkstemp(prefix=f"pdbench-arena-{agent_path.stem}-", suffix=".log")
    os.close(handle)
    return Path(name)


def read_log_line(line: str) -> tuple[LineKind, str]:
    """Whose a line of an agent log is, and its text without the mark. A line that is not a
    note (the agent's, or one of a log written before the marks) is the agent's."""
    mark = _NOTE_MARK.match(line)
    if mark is None:
        return "agent", line.removeprefix(AGENT_GUTTER)
    text = line[mark.end() :]
    if text.startswith(NOTE_CONTINUED):
        return "note continued", text[len(NOTE_CONTINUED) :]
    return "note", text


class AgentLog:
    """The agent's printed output (capped) and pdbench's notes about it, in one file."""

    def __init__(self, path: Path, cap_bytes: int = LOG_CAP_BYTES) -> None:
        self.path = path
        self.cap_bytes = cap_bytes
        self.written = 0  # bytes the agent printed that were kept (before they were spelled out)
        self.dropped = 0
        self._lock = threading.Lock()
        self._file: BinaryIO | None = None
        # A character split between two reads is decoded whole, with the second.
        self._decoder = codecs.getincrementaldecoder("utf-8")("backslashreplace")
        self._line_open = False  # the agent's last line has no newline yet

    def _handle(self) -> BinaryIO:
        if self._file is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = open(self.path, "ab")  # noqa: SIM115 - kept open for the match
        return self._file

    def write(self, data: bytes) -> None:
        with self._lock:
            room = self.cap_bytes - self.written
            if room > 0:
                self._write_output(self._decoder.decode(data[:room]))
                self.written += min(room, len(data))
                if len(data) >= room:
                    self._write_note(f"output cut off after {self.cap_bytes} bytes")
            self.dropped += max(0, len(data) - max(room, 0))
            self._handle().flush()

    def _write_output(self, text: str) -> None:
        """The agent's text, each of its lines behind the gutter."""
        shown: list[str] = []
        *ended, rest = text.split("\n")
        for line in ended:
            shown += ["" if self._line_open else AGENT_GUTTER, visible(line), "\n"]
            self._line_open = False
        if rest:
            shown += ["" if self._line_open else AGENT_GUTTER, visible(rest)]
            self._line_open = True
        self._handle().write("".join(shown).encode())

    def note(self, text: str) -> None:
        with self._lock:
            self._write_note(text)
            self._handle().flush()

    def _write_note(self, text: str) -> None:
        """A note on lines of its own (an agent's line left open is ended first)."""
        mark = f"[pdbench {time.strftime('%Y-%m-%dT%H:%M:%S')}] "
        first, *further = text.strip("\n").split("\n")
        lines = [mark + visible(first)]
        lines += [mark + NOTE_CONTINUED + visible(line) for line in further]
        lead = "\n" if self._line_open else ""
        self._line_open = False
        self._handle().write(("".join([lead, *(line + "\n" for line in lines)])).encode())

    def close(self) -> None:
        with self._lock:
            tail = self._decoder.decode(b"", final=True)  # bytes of a character never finished
            if tail and self._file is not None:
                self._write_output(tail)
        if self.dropped:
            self.note(f"{self.dropped} further bytes of output were discarded")
            self.dropped = 0
        with self._lock:
            if self._file is not None:
                if self._line_open:
                    self._file.write(b"\n")
                    self._line_open = False
                self._file.close()
                self._file = None
