"""The test suite's process guards: a socket that may only reach this machine, and a record of
every write into the project's data/ folder.

tests/conftest.py installs it in the pytest process and puts this folder on PYTHONPATH, so every
Python subprocess a test starts (pdbench's two front doors, the viewer's server, stub servers)
imports it at start-up as `sitecustomize`. Connections to loopback addresses and Unix sockets
pass; any other connection, and any name lookup of another host, raises `NetworkBlocked` (an
OSError, so a provider sees a refused connection, a transport failure) and is appended to the
file named by PDBENCH_TEST_NETWORK_LOG, which conftest reports at the end of the session.

The write guard (an audit hook, `install_write_guard`) appends to PDBENCH_TEST_WRITE_LOG every
file opened for writing, folder made, file renamed, removed or copied under the folders named by
PDBENCH_TEST_GUARDED_DIR (the project's data/, outputs/ and multirun/, joined by os.pathsep),
with the process id. Only the test session's
processes carry the hook, so conftest can fail the session for a write a test made and not for
the user's own experiment writing into data/ at the same time.
"""

from __future__ import annotations

import ipaddress
import os
import socket

LOCAL_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost", ""}


class NetworkBlocked(ConnectionRefusedError):
    """A test tried to reach another machine."""


def _is_local(host: object) -> bool:
    if host is None:
        return True
    if isinstance(host, bytes):
        host = host.decode(errors="replace")
    name = str(host).strip("[]").casefold()
    if name in LOCAL_NAMES or name == socket.gethostname().casefold():
        return True
    try:
        address = ipaddress.ip_address(name.split("%", 1)[0])
    except ValueError:
        return False
    return address.is_loopback or address.is_unspecified or str(address) in _OWN_ADDRESSES


ALLOW_OWN_ENV = "PDBENCH_TEST_ALLOW_OWN_ADDRESSES"  # "1": this machine's own addresses pass too
_OWN_ADDRESSES: set[str] = set()


def own_addresses() -> set[str]:
    """This machine's own IP addresses (its interfaces' and its host name's), for the one test
    that needs them: a Ray head binds to the machine's address, not only to loopback. Read before
    the guard is installed, with the real resolver; a UDP socket's connect sends no packet."""
    found: set[str] = set()
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None):
            found.add(str(info[4][0]).split("%", 1)[0])
    except OSError:
        pass
    for family, probe in ((socket.AF_INET, "198.51.100.1"), (socket.AF_INET6, "2001:db8::1")):
        try:
            with socket.socket(family, socket.SOCK_DGRAM) as udp:
                udp.connect((probe, 9))
                found.add(str(udp.getsockname()[0]))
        except OSError:
            pass
    return found


def _blocked(what: str) -> NetworkBlocked:
    log = os.environ.get("PDBENCH_TEST_NETWORK_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as out:
            out.write(f"{os.getpid()} {what}\n")
    return NetworkBlocked(f"tests are offline: {what} is blocked (tests/network_guard)")


def install() -> None:
    """Guard connect, connect_ex and name lookups of every socket in this process (idempotent)."""
    if getattr(socket.socket.connect, "_pdbench_guard", False):
        return
    if os.environ.get(ALLOW_OWN_ENV) == "1":
        _OWN_ADDRESSES.update(own_addresses())
    real_connect, real_connect_ex = socket.socket.connect, socket.socket.connect_ex
    real_getaddrinfo = socket.getaddrinfo

    def allowed(sock: socket.socket, address: object) -> bool:
        if sock.family not in (socket.AF_INET, socket.AF_INET6):
            return True  # Unix sockets, socketpairs
        return isinstance(address, tuple) and _is_local(address[0])

    def connect(self: socket.socket, address: object) -> None:
        if not allowed(self, address):
            raise _blocked(f"connect to {address!r}")
        return real_connect(self, address)  # type: ignore[arg-type]

    def connect_ex(self: socket.socket, address: object) -> int:
        if not allowed(self, address):
            raise _blocked(f"connect to {address!r}")
        return real_connect_ex(self, address)  # type: ignore[arg-type]

    def getaddrinfo(host, *args, **kwargs):  # type: ignore[no-untyped-def]
        if not _is_local(host):
            raise _blocked(f"name lookup of {host!r}")
        return real_getaddrinfo(host, *args, **kwargs)

    connect._pdbench_guard = True  # type: ignore[attr-defined]
    socket.socket.connect = connect  # type: ignore[method-assign]
    socket.socket.connect_ex = connect_ex  # type: ignore[method-assign]
    socket.getaddrinfo = getaddrinfo


# --- writes into the guarded folder ----------------------------------------------------------------

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
# Audit events that change the file system: the positions of the paths they write, each with the
# position of its dir_fd (a relative path is relative to that folder, as shutil.rmtree does it).
_PATH_EVENTS: dict[str, tuple[tuple[int, int | None], ...]] = {
    "os.mkdir": ((0, 2),),
    "os.remove": ((0, 1),),
    "os.rmdir": ((0, 1),),
    "os.rename": ((0, 2), (1, 3)),
    "os.truncate": ((0, None),),
    "os.symlink": ((1, 2),),
    "os.link": ((1, 3),),
    "os.chmod": ((0, 2),),
    "os.utime": ((0, 3),),
    "shutil.copyfile": ((1, None),),
    "shutil.copytree": ((1, None),),
    "shutil.move": ((0, None), (1, None)),
    "shutil.rmtree": ((0, 1),),
}


def opened_for_writing(mode: object, flags: object) -> bool:
    """Whether an `open` audit event (built-in open, io.open or os.open) may write."""
    if isinstance(mode, str):
        return any(letter in mode for letter in "wax+")
    return isinstance(flags, int) and bool(flags & _WRITE_FLAGS)


def written_paths(event: str, args: tuple) -> list[object]:
    """The paths an audit event writes to, made absolute (empty for events that write nothing)."""
    if event == "open":
        path, mode, flags = (*args, None, None, None)[:3]
        return [path] if opened_for_writing(mode, flags) else []
    found: list[object] = []
    for position, dir_fd_position in _PATH_EVENTS.get(event, ()):
        if position >= len(args):
            continue
        path = args[position]
        has_dir_fd = dir_fd_position is not None and dir_fd_position < len(args)
        dir_fd = args[dir_fd_position] if has_dir_fd else None  # type: ignore[index]
        if isinstance(dir_fd, int) and dir_fd >= 0:  # -1: no dir_fd given
            if isinstance(path, int):
                continue
            try:
                path = os.path.join(os.readlink(f"/proc/self/fd/{dir_fd}"), os.fsdecode(path))
            except OSError:
                continue  # a folder we cannot name: not the guarded one's business to guess
        found.append(path)
    return found


def _under(path: object, folders: tuple[str, ...]) -> str | None:
    if isinstance(path, int) or path is None:  # a file descriptor: opened (and checked) before
        return None
    try:
        absolute = os.path.abspath(os.fsdecode(path))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    for folder in folders:
        if absolute == folder or absolute.startswith(folder + os.sep):
            return absolute
    return None


def install_write_guard() -> None:
    """Record writes under PDBENCH_TEST_GUARDED_DIR in PDBENCH_TEST_WRITE_LOG (idempotent)."""
    import sys

    guarded, log = (
        os.environ.get("PDBENCH_TEST_GUARDED_DIR"),
        os.environ.get("PDBENCH_TEST_WRITE_LOG"),
    )
    installed = sys.__dict__.setdefault("_pdbench_write_guards", set())
    if not guarded or not log or (guarded, log) in installed:
        return
    installed.add((guarded, log))
    import threading

    # one folder, or several joined by os.pathsep (data/, and Hydra's outputs/ and multirun/)
    named = [folder for folder in guarded.split(os.pathsep) if folder]
    folders = tuple(
        dict.fromkeys(path for f in named for path in (os.path.abspath(f), os.path.realpath(f)))
    )
    watched = frozenset(("open", *_PATH_EVENTS))
    state = threading.local()  # the hook's own write to the log is not watched

    def hook(event: str, args: tuple) -> None:
        if event not in watched or getattr(state, "busy", False):
            return
        state.busy = True
        try:
            for path in written_paths(event, args):
                found = _under(path, folders)
                if found is not None:
                    with open(log, "a", encoding="utf-8") as out:
                        # the test running in this process, when pytest's own (its workers)
                        test = os.environ.get("PYTEST_CURRENT_TEST", "").removesuffix(" (call)")
                        out.write(f"{os.getpid()} {event} {found}\t{test}\n")
        except Exception:  # a guard never breaks the code it watches
            pass
        finally:
            state.busy = False

    sys.addaudithook(hook)


if os.environ.get("PDBENCH_TEST_OFFLINE") == "1":
    install()
    install_write_guard()
