"""bubblewrap's command line: an empty root with only the given paths in it.

The worker gets its own PID, network, IPC and UTS namespaces: it sees its own processes only, has
no network (not even the host's loopback), a private /tmp, read-only the system's programs and
libraries, the Python runtime and the files it is given, and one writable folder. `--die-with-
parent` ties the sandbox to the thread that started bwrap (PR_SET_PDEATHSIG), and ending bwrap
ends the PID namespace, in which the kernel then kills every process.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

# What the system's programs and libraries need, nothing that holds data.
SYSTEM_PATHS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64")
SYSTEM_FILES = ("/etc/ld.so.cache", "/etc/localtime")


def bwrap_argv(
    command: list[str],
    *,
    read_only: Sequence[Path],
    writable: Path | None,
    hidden: Sequence[Path] = (),
    hidden_files: Sequence[Path] = (),
    tmp_bytes: int | None = None,
    as_root: bool = False,
) -> list[str]:
    """bwrap's command line around `command`. Its root is an empty tmpfs (made read-only at the
    end) with only these paths in it; `hidden` folders are covered by an empty tmpfs when a shown
    folder contains them (say, a runtime installed above the project), and `hidden_files` (a
    run's deal keys) by an empty file."""
    args = [shutil.which("bwrap") or "bwrap", "--die-with-parent", "--unshare-pid"]
    args += ["--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    if as_root:
        # Privileged bwrap keeps root's capabilities; child.py needs two to become unprivileged.
        args += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    args += ["--proc", "/proc", "--dev", "/dev"]

    mounts: list[tuple[str, list[str]]] = []  # (where, its bwrap arguments)
    for name in (*SYSTEM_PATHS, *SYSTEM_FILES):
        if os.path.islink(name):
            mounts.append((name, ["--symlink", os.readlink(name), name]))
        elif os.path.exists(name):
            mounts.append((name, ["--ro-bind", name, name]))
    shown: list[str] = [name for name, _ in mounts]
    covered = [os.path.normpath(os.path.abspath(path)) for path in hidden]
    for path in read_only:
        where = os.path.normpath(os.path.abspath(path))
        if not _within_any(where, shown) or _within_any(where, covered):
            mounts.append((where, ["--ro-bind", where, where]))
            shown.append(where)
    for where in covered:
        if _within_any(where, shown):
            mounts.append((where, ["--tmpfs", where]))
    for path in hidden_files:
        where = os.path.normpath(os.path.abspath(path))
        if os.path.isfile(where) and _within_any(where, shown) and not _within_any(where, covered):
            # /dev/null, bound as a device (a plain bind mount is nodev: opening it would fail)
            mounts.append((where, ["--dev-bind", os.devnull, where]))
    size = ["--size", str(tmp_bytes)] if tmp_bytes else []
    mounts.append(("/tmp", ["--perms", "1777", *size, "--tmpfs", "/tmp"]))
    if writable is not None:
        where = os.path.normpath(os.path.abspath(writable))
        mounts.append((where, ["--bind", where, where]))
    # The folders leading to a mount point, readable by anyone (bwrap would make them 0700,
    # which an unprivileged agent cannot pass), unless a bind mount brings them from the host.
    is_tmpfs = {where: "--tmpfs" in mount for where, mount in mounts}
    leading = {str(folder) for where in is_tmpfs for folder in Path(where).parents}
    for folder in sorted(leading - {"/", *is_tmpfs}):
        around = [where for where in is_tmpfs if _within_any(folder, [where])]
        if not around or is_tmpfs[max(around, key=len)]:
            mounts.append((folder, ["--perms", "0755", "--dir", folder]))
    # Folders before what lies inside them, so that nothing mounted later covers a file or a
    # hidden folder's tmpfs; sorting is stable, so equal depths keep their order.
    for _, mount in sorted(mounts, key=lambda item: item[0].count("/")):
        args += mount
    if writable is not None:
        args += ["--chdir", str(writable)]
    return [*args, "--remount-ro", "/", "--", *command]


def runtime_paths() -> list[Path]:
    """The Python installation the worker runs on: the virtual environment and its base, as
    Python names them and where their symlinks lead."""
    found: list[Path] = []
    named = (sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix, sys.executable)
    for name in named:
        for path in (Path(os.path.abspath(name)), Path(name).resolve()):
            if not any(path.is_relative_to(known) for known in found):
                found = [known for known in found if not known.is_relative_to(path)] + [path]
    return found


def _within_any(path: str, folders: Sequence[str]) -> bool:
    return any(path == folder or path.startswith(folder.rstrip("/") + "/") for folder in folders)
