"""Where an arena agent's output goes: its capped log file and pdbench's notes in it."""

from __future__ import annotations

import os
import re
import tempfile
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

if TYPE_CHECKING:
    from pdbench.agents.base import AgentContext

LOG_CAP_BYTES = 1 << 20  # what one agent may print per match before the rest is discarded


def match_slug(context: AgentContext) -> str:
    """<condition>__rep<replicate>__<side>, safe as a file name: one agent in one match."""
    name = f"{context.condition}__rep{context.replicate}__{context.side}"
    return re.sub(r"[^\w.=+-]", "_", name)


def agent_log_path(context: AgentContext | None, agent_path: Path) -> Path:
    """<run_dir>/agent_logs/<condition>__rep<replicate>__<side>.log, or a temp file."""
    if context is not None and context.run_dir is not None:
        return Path(context.run_dir) / "agent_logs" / f"{match_slug(context)}.log"
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
        self._file: BinaryIO | None = None

    def _handle(self) -> BinaryIO:
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
        note = f"{lead}[pdbench {stamp}] {text.lstrip()}\n"
        # An agent's answer quoted in a note may hold a lone surrogate: never an error here.
        self._handle().write(note.encode("utf-8", "backslashreplace"))

    def close(self) -> None:
        if self.dropped:
            self.note(f"{self.dropped} further bytes of output were discarded")
            self.dropped = 0
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None
