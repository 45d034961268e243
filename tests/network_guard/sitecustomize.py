"""The test suite's network guard: a socket that may only reach this machine.

tests/conftest.py installs it in the pytest process and puts this folder on PYTHONPATH, so every
Python subprocess a test starts (pdbench's two front doors, the viewer's server, stub servers)
imports it at start-up as `sitecustomize`. Connections to loopback addresses and Unix sockets
pass; any other connection, and any name lookup of another host, raises `NetworkBlocked` (an
OSError, so a provider sees a refused connection, a transport failure) and is appended to the
file named by PDBENCH_TEST_NETWORK_LOG, which conftest reports at the end of the session.
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
    return address.is_loopback or address.is_unspecified


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


if os.environ.get("PDBENCH_TEST_OFFLINE") == "1":
    install()
