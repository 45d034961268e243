"""Files of a run folder opened without following links, and replaced through unique temporaries.

Three guarantees a run folder's readers and writers rely on:

- A symbolic link inside a run folder is never followed: a folder holding one is refused (one
  line naming it, exit 2) before anything is read or written, and the files pdbench appends to
  are opened with O_NOFOLLOW, so a link planted later fails instead of writing elsewhere.
- A file replaced as a whole (aggregates, analysis, tournament, a manifest) is written to a
  temporary beside it whose name is unique to the writer (host, pid, random part) and moved over
  the old file in one `os.replace`: two commands writing the same file at once each leave a whole
  file (the last one wins), an exception or a signal removes the writer's temporary, and the
  temporaries of writers that died (kill -9) are removed by the next writer of that file.
"""

from __future__ import annotations

import errno
import hashlib
import io
import os
import secrets
import socket
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, BinaryIO

from pdbench.core.errors import PdbenchError, WriteFailed
from pdbench.storage.processes import process_alive

AGENT_WORK = "agent_work"  # arena agents' scratch folders (pdbench.agents.arena.sandbox)


def link_message(path: Path) -> str:
    return (
        f"{path} is a symbolic link; pdbench never follows a link in a run folder (it could "
        "write into another run or any file): replace it with the file itself"
    )


def refuse_links(folder: Path) -> None:
    """Refuse a run folder that holds a symbolic link anywhere inside it (the folder itself may
    be reached through one: where a user keeps runs is their choice)."""
    if not folder.is_dir():
        return
    for current, dirs, files in os.walk(folder):
        for name in sorted([*dirs, *files]):
            path = Path(current) / name
            if path.is_symlink():
                raise PdbenchError(link_message(path))
        # An arena agent's scratch folders are its own: links it made there are never written
        # through (the folder is removed without following them), and must not block a resume.
        dirs[:] = [name for name in dirs if name != AGENT_WORK]


def _no_follow(path: str, flags: int) -> int:
    return os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666)


def open_no_follow(path: Path, mode: str) -> IO[Any]:
    """`open(path, mode)` that refuses a symbolic link at `path` (PdbenchError naming it)."""
    try:
        return io.open(path, mode, opener=_no_follow)  # noqa: UP020 (io.open: see fault tests)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise PdbenchError(link_message(path)) from None
        raise


class NotRegularFile(PdbenchError):
    """A path that is a link, a FIFO, a folder, a socket or a device where a file was expected."""

    def __init__(self, path: Path, what: str) -> None:
        super().__init__(f"{path}: {what}, not a regular file")
        self.what = f"{what}, not a regular file"


_KINDS = (
    (stat.S_ISLNK, "a symbolic link"),
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a device"),
    (stat.S_ISBLK, "a device"),
)


def _kind(mode: int) -> str | None:
    """What a file of this mode is, when it is not a regular file."""
    if stat.S_ISREG(mode):
        return None
    return next((what for test, what in _KINDS if test(mode)), "something else")


def open_regular(path: Path) -> BinaryIO:
    """Open `path` for reading (binary) only if it is a regular file, or raise NotRegularFile
    saying what it is. Its type is read with lstat before anything opens it (opening a FIFO
    blocks, opening a device may act), and again on what was opened (O_NOFOLLOW, O_NONBLOCK: a
    file swapped for a link or a FIFO in between is refused the same way)."""
    what = _kind(os.lstat(path).st_mode)
    if what is not None:
        raise NotRegularFile(path, what)
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise NotRegularFile(path, "a symbolic link") from None
        raise
    what = _kind(os.fstat(descriptor).st_mode)
    if what is not None:
        os.close(descriptor)
        raise NotRegularFile(path, what)
    return os.fdopen(descriptor, "rb")


def bounded_lines(handle: BinaryIO, cap: int) -> Iterator[tuple[bytes | None, int]]:
    """Each complete line from where `handle` is (without its newline) and the offset after
    it; a line longer than `cap` bytes comes as None, skipped without ever holding more than
    `cap` bytes of it. A last line without a newline (being written, or torn) is not given."""
    while True:
        line = handle.readline(cap + 1)
        if line.endswith(b"\n"):
            yield line[:-1], handle.tell()
            continue
        if len(line) <= cap:
            return  # the end of the file, or a last line still being written
        while not (rest := handle.readline(1 << 20)).endswith(b"\n"):
            if not rest:
                return  # a long last line still being written: read again next time
        yield None, handle.tell()


_HOST = hashlib.sha256(socket.gethostname().encode()).hexdigest()[:6]


def temporary_name_of(path: Path, pid: int) -> Path:
    """The name writer `pid` of this machine gives its temporary of `path`."""
    return path.with_name(f"{path.name}.{_HOST}-{pid}-{secrets.token_hex(3)}.tmp")


def _temporary_name(path: Path) -> Path:
    return temporary_name_of(path, os.getpid())


def _writer_is_gone(temporary: Path, target: Path) -> bool:
    """Whether a temporary of `target` belongs to a dead writer on this machine (or is the
    shared name older versions used, `<name>.tmp`)."""
    middle = temporary.name[len(target.name) + 1 : -len(".tmp")]
    if not middle:
        return True
    host, _, rest = middle.partition("-")
    pid = rest.partition("-")[0]
    if host != _HOST or not pid.isdigit():
        return False  # another machine's writer (a shared file system): not ours to decide
    return not process_alive(int(pid))


def remove_stale_temporaries(path: Path) -> None:
    """Remove temporaries of `path` left by writers that died before they could."""
    try:
        candidates = list(path.parent.glob(f"{_glob_escape(path.name)}.*tmp"))
    except OSError:
        return
    for candidate in candidates:
        if candidate.name.endswith(".tmp") and _writer_is_gone(candidate, path):
            candidate.unlink(missing_ok=True)


def _glob_escape(name: str) -> str:
    return "".join(f"[{c}]" if c in "*?[]" else c for c in name)


@contextmanager
def replacing(path: Path) -> Iterator[Path]:
    """Yield a unique temporary path beside `path`; when the block ends, move it over `path` in
    one step. Any exception (a full disk, Ctrl-C, SIGTERM) removes the temporary and leaves the
    old `path`. An OSError becomes `WriteFailed` naming `path`."""
    remove_stale_temporaries(path)
    temporary = _temporary_name(path)
    try:
        yield temporary
        os.replace(temporary, path)
    except OSError as error:
        temporary.unlink(missing_ok=True)
        raise WriteFailed(path, error) from error
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
