"""Run the `pdbench` command with a disk that fills up: `python tests/fault_injection.py <file name>
<writes that succeed> <pdbench args...>`.

Every file named <file name> (a glob pattern: `run_manifest.json.*.tmp` for the temporaries
whole files are written through) that pdbench opens for writing accepts that many writes (counted over
all its opens) and then fails each write with ENOSPC, as a full disk does. With the name
`cache.db`, the replay cache's writes fail instead, with the SQLite error a full disk gives. A
small tmpfs would need root to mount; this injects the same errors where the OS would raise them. `full_disk` does the same in a
test's own process while a block runs.
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
def full_disk(target: str, allowed: int) -> Iterator[FullDisk]:
    """The full disk in this process while the block runs (what the script does for its whole
    process): every file named `target` accepts `allowed` writes, then fails with ENOSPC."""
    disk = FullDisk(target, allowed)
    if target == "cache.db":
        import diskcache

        real_set = diskcache.Cache.set

        def full_set(self: Any, *args: Any, **kwargs: Any) -> Any:
            try:
                disk.spend_one(target)
            except OSError:
                raise sqlite3.OperationalError("database or disk is full") from None
            return real_set(self, *args, **kwargs)

        diskcache.Cache.set = full_set
        try:
            yield disk
        finally:
            diskcache.Cache.set = real_set
        return
    real_open = io.open

    def open_on_a_full_disk(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        handle = real_open(file, mode, *args, **kwargs)
        writing = any(flag in mode for flag in "wax+")
        if isinstance(file, int):  # os.fdopen of a descriptor (the run's owner file): no name
            return handle
        if writing and fnmatch.fnmatchcase(os.path.basename(os.fspath(file)), target):
            return FullDiskFile(handle, os.fspath(file), disk)
        return handle

    io.open = open_on_a_full_disk  # pathlib's Path.open and write_bytes go through io.open
    try:
        yield disk
    finally:
        io.open = real_open


if __name__ == "__main__":
    with full_disk(sys.argv[1], int(sys.argv[2])):
        from pdbench.cli.app import main

        sys.argv = ["pdbench", *sys.argv[3:]]
        main()
