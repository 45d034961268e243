"""Run the `pdbench` command with a disk that fills up: `python tests/fault_injection.py <file name>
<writes that succeed> <pdbench args...>`.

Every file named <file name> (a glob pattern: `run_manifest.json.*.tmp` for the temporaries
whole files are written through) that pdbench opens for writing accepts that many writes (counted over
all its opens) and then fails each write with ENOSPC, as a full disk does. With the name
`cache.db`, the replay cache's writes fail instead, with the SQLite error a full disk gives. A
small tmpfs would need root to mount; this injects the same errors where the OS would raise them. `full_disk` does the same in a
test's own process while a block runs; there several names can share one disk (the run folder
and the cache on the same full disk), and removing a file of a given name can give space back
(a reserve released: `freed_by=(name, writes)`).
"""

from __future__ import annotations

import contextlib
import errno
import fnmatch
import io
import os
import sqlite3
import sys
from collections.abc import Iterator
from typing import Any


class FullDisk:
    """The disk's state: how many writes to the target it still accepts."""

    def __init__(self, target: str, allowed: int) -> None:
        self.target, self.allowed, self.writes = target, allowed, 0

    def spend_one(self, name: str) -> None:
        self.writes += 1
        if self.writes > self.allowed:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), name)


class FullDiskFile:
    """A file object whose writes fail once the disk is "full"."""

    def __init__(self, handle: Any, name: str, disk: FullDisk) -> None:
        self._handle, self._name, self._disk = handle, name, disk

    def write(self, data: Any) -> int:
        self._disk.spend_one(self._name)
        return self._handle.write(data)

    def writelines(self, lines: Any) -> None:
        self._disk.spend_one(self._name)
        self._handle.writelines(lines)

    def __enter__(self) -> FullDiskFile:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._handle.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._handle, name)


@contextlib.contextmanager
def full_disk(
    target: str | tuple[str, ...], allowed: int, *, freed_by: tuple[str, int] | None = None
) -> Iterator[FullDisk]:
    """The full disk in this process while the block runs (what the script does for its whole
    process): the files named `target` (one name or several, sharing the disk) accept `allowed`
    writes, then fail with ENOSPC. With `freed_by` (name, writes), removing a file of that name
    gives the disk room for that many more writes."""
    targets = (target,) if isinstance(target, str) else target
    disk = FullDisk(", ".join(targets), allowed)
    with contextlib.ExitStack() as undo:
        if "cache.db" in targets:
            _fill_the_cache(disk, undo)
        files = tuple(name for name in targets if name != "cache.db")
        if files:
            _fill_files(files, disk, undo)
        if freed_by is not None:
            _free_on_removal(*freed_by, disk, undo)
        yield disk


def _fill_the_cache(disk: FullDisk, undo: contextlib.ExitStack) -> None:
    import diskcache

    real_set = diskcache.Cache.set

    def full_set(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            disk.spend_one("cache.db")
        except OSError:
            raise sqlite3.OperationalError("database or disk is full") from None
        return real_set(self, *args, **kwargs)

    diskcache.Cache.set = full_set
    undo.callback(setattr, diskcache.Cache, "set", real_set)


def _fill_files(names: tuple[str, ...], disk: FullDisk, undo: contextlib.ExitStack) -> None:
    real_open = io.open

    def open_on_a_full_disk(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        handle = real_open(file, mode, *args, **kwargs)
        writing = any(flag in mode for flag in "wax+")
        if isinstance(file, int):  # os.fdopen of a descriptor (the run's owner file): no name
            return handle
        name = os.path.basename(os.fspath(file))
        if writing and any(fnmatch.fnmatchcase(name, target) for target in names):
            return FullDiskFile(handle, os.fspath(file), disk)
        return handle

    io.open = open_on_a_full_disk  # pathlib's Path.open and write_bytes go through io.open
    undo.callback(setattr, io, "open", real_open)


def _free_on_removal(name: str, writes: int, disk: FullDisk, undo: contextlib.ExitStack) -> None:
    real_unlink = os.unlink

    def unlink_giving_space_back(path: Any, *args: Any, **kwargs: Any) -> None:
        real_unlink(path, *args, **kwargs)
        if not isinstance(path, int) and fnmatch.fnmatchcase(os.path.basename(path), name):
            disk.allowed = disk.writes + writes

    os.unlink = os.remove = unlink_giving_space_back  # Path.unlink calls os.unlink
    undo.callback(setattr, os, "unlink", real_unlink)
    undo.callback(setattr, os, "remove", real_unlink)


if __name__ == "__main__":
    with full_disk(sys.argv[1], int(sys.argv[2])):
        from pdbench.cli.app import main

        sys.argv = ["pdbench", *sys.argv[3:]]
        main()
