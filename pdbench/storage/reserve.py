"""Room set aside in a run folder for the records of money already spent.

A provider bills an answer before pdbench can write it down. When the disk fills up at that
moment, the answer's spend line (with the answer, see storage/spend.py) must still be written,
or the answer is neither counted nor kept and the resumed run buys it again. So a run sets aside
RESERVE_BYTES in its folder when it starts (`.pdbench-reserve`, allocated, not sparse) and, on
the first write the disk refuses (ENOSPC, EDQUOT), the spend journal releases it and writes the
line into the room it gives back; the run then stops (exit 5) as on any full disk. The reserve
is removed when the run ends.

What this guarantees: the spend lines that fit in RESERVE_BYTES (a line is the answer and its
counts: a few KB; the calls in flight at the moment, at most run.max_concurrency, each write
one), provided nothing else on the disk takes the freed room first. A disk already too full to
hold the reserve when the run starts gets none, and says so.
"""

from __future__ import annotations

import contextlib
import errno
import os
from pathlib import Path

RESERVE_FILE = ".pdbench-reserve"
RESERVE_BYTES = 1 << 20  # 1 MiB: hundreds of spend lines, a full manifest
DISK_FULL = (errno.ENOSPC, errno.EDQUOT)


def is_disk_full(error: BaseException) -> bool:
    return isinstance(error, OSError) and error.errno in DISK_FULL


class DiskReserve:
    """RESERVE_BYTES allocated in a file of `folder`, released once, when the disk is full."""

    def __init__(self, folder: Path, size: int = RESERVE_BYTES) -> None:
        self.path = folder / RESERVE_FILE
        self.size = size
        self.held = False

    def set_aside(self) -> bool:
        """Allocate the reserve (again, after a run that stopped on a full disk). False when
        the disk has no room for it: the run goes on without one."""
        try:
            descriptor = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o644)
        except OSError:
            return False
        try:
            _allocate(descriptor, self.size)
        except OSError:
            os.close(descriptor)
            self.release()
            return False
        os.close(descriptor)
        self.held = True
        return True

    def release(self) -> bool:
        """Give the room back; True when there was a reserve to give."""
        had, self.held = self.held, False
        with contextlib.suppress(OSError):
            os.unlink(self.path)
        return had


def _allocate(descriptor: int, size: int) -> None:
    """Blocks really allocated (a sparse file would give nothing back): posix_fallocate where
    the filesystem has it, else zeros written."""
    try:
        os.posix_fallocate(descriptor, 0, size)
        return
    except OSError as error:
        if error.errno not in (errno.EOPNOTSUPP, errno.EINVAL, errno.ENOSYS):
            raise
    os.ftruncate(descriptor, 0)
    chunk = bytes(64 * 1024)
    for _ in range(size // len(chunk)):
        os.write(descriptor, chunk)
    os.fsync(descriptor)
