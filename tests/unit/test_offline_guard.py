"""The suite is offline whatever the user's config says (tests/conftest.py, tests/network_guard):
sockets reach only this machine, in the pytest process and in every Python subprocess."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest

REMOTE = ("192.0.2.1", 443)  # TEST-NET-1: never routed, and never reached from a test


@pytest.fixture(autouse=True)
def own_log(tmp_path, monkeypatch):
    """These tests' blocked attempts are on purpose: log them here, not in the session's list."""
    log = tmp_path / "network.log"
    monkeypatch.setenv("PDBENCH_TEST_NETWORK_LOG", str(log))
    return log


def test_a_remote_connection_is_blocked_in_the_test_process(own_log):
    with pytest.raises(ConnectionRefusedError, match="tests are offline"):
        socket.create_connection(REMOTE, timeout=1)
    with pytest.raises(OSError, match="tests are offline"):
        socket.getaddrinfo("api.openai.com", 443)
    with socket.socket() as raw, pytest.raises(OSError, match="tests are offline"):
        raw.connect(REMOTE)  # no name lookup: the connect itself is guarded
    blocked = own_log.read_text()
    assert "api.openai.com" in blocked and "connect to ('192.0.2.1', 443)" in blocked


def test_loopback_and_unix_sockets_still_work(tmp_path):
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        for host in ("127.0.0.1", "localhost"):
            with socket.create_connection((host, port), timeout=5):
                pass
    path = tmp_path / "s.sock"
    with socket.socket(socket.AF_UNIX) as unix_server:
        unix_server.bind(str(path))
        unix_server.listen()
        with socket.socket(socket.AF_UNIX) as client:
            client.connect(str(path))


def test_subprocesses_inherit_the_guard_and_the_proxy_settings(own_log):
    code = (
        "import os, socket\n"
        "try:\n"
        f"    socket.create_connection({REMOTE!r}, timeout=1)\n"
        "except OSError as error:\n"
        "    print(error)\n"
        "print(os.environ['HTTPS_PROXY'], os.environ['NO_PROXY'])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "tests are offline" in done.stdout, done
    assert "http://127.0.0.1:9 127.0.0.1,localhost" in done.stdout
    assert "192.0.2.1" in own_log.read_text()


def test_http_clients_are_pointed_at_a_closed_local_proxy():
    assert os.environ["HTTPS_PROXY"] == os.environ["HTTP_PROXY"] == "http://127.0.0.1:9"
    assert "127.0.0.1" in os.environ["NO_PROXY"].split(",")
