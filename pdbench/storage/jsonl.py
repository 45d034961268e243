"""Crash-safe JSON-lines files.

Writers append whole lines and flush them in one write; a crash can tear at most the last line. A
torn last line has no trailing newline, and readers drop it: `complete_prefix` finds where the
last complete line ends, and `truncate_to` cuts a file back there (or to a recorded offset) before
a resumed run appends again.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path

import orjson

from pdbench.core.errors import WriteFailed
from pdbench.core.redact import (
    might_hold_secret,
    redact,
    redact_bytes,
    redact_chunks,
    secret_env_values,
)
from pdbench.storage.safe_files import open_no_follow, replacing


def complete_prefix(path: Path) -> int:
    """Byte length of the file up to and including its last newline (0 when missing)."""
    if not path.exists():
        return 0
    size = path.stat().st_size
    if size == 0:
        return 0
    with path.open("rb") as handle:
        block = 1 << 16
        end = size
        while end > 0:
            start = max(0, end - block)
            handle.seek(start)
            chunk = handle.read(end - start)
            newline = chunk.rfind(b"\n")
            if newline != -1:
                return start + newline + 1
            end = start
    return 0


def truncate_to(path: Path, length: int) -> None:
    if path.exists() and path.stat().st_size != length:
        with open_no_follow(path, "r+b") as handle:
            handle.truncate(length)


def read_lines(path: Path) -> Iterator[dict]:
    """Parsed complete lines; a torn last line is ignored."""
    end = complete_prefix(path)
    if end == 0:
        return
    with path.open("rb") as handle:
        data = handle.read(end)
    for line in data.splitlines():
        if line.strip():
            yield orjson.loads(line)


def append_bytes(
    path: Path, payload: bytes | Iterable[bytes], *, fsync: bool = True, redacted: bool = False
) -> int:
    """Append (bytes, or chunks written in order without joining them first: a large batch is
    not copied into one more buffer) and return the new end offset. Every chunk is redacted
    (pdbench.core.redact): no secret reaches a run's files. A failed write (a full disk) raises
    `WriteFailed` naming the file; what it left half-written is a torn tail that recovery cuts
    away."""
    secrets = () if redacted else secret_env_values()
    try:
        with open_no_follow(path, "ab") as handle:
            if redacted:  # the caller redacted it (and counted offsets on what it redacted)
                if isinstance(payload, bytes):
                    handle.write(payload)
                else:
                    handle.writelines(payload)
            elif isinstance(payload, bytes):
                handle.write(redact_bytes(payload, secrets))
            else:
                handle.writelines(redact_chunks(payload, secrets))
            handle.flush()
            if fsync:
                os.fsync(handle.fileno())
            return handle.tell()
    except OSError as error:
        raise WriteFailed(path, error) from error


def dump_line(record: dict) -> bytes:
    return orjson.dumps(record) + b"\n"


def write_json_atomic(path: Path, data: dict) -> None:
    """Replace a JSON file so that readers see the old or the new version, never half of one;
    secrets redacted (pdbench.core.redact)."""
    options = orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS
    raw = orjson.dumps(data, option=options)
    secrets = secret_env_values()
    if might_hold_secret(raw, secrets):  # the walk costs; most manifests need none
        raw = orjson.dumps(redact(data, secrets), option=options)
    # A temporary of this writer's own; the old version stays in place on any failure and no
    # half-written (or empty) temporary is left behind.
    with replacing(path) as temporary:
        temporary.write_bytes(raw)
