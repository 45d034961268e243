"""What the tests' OpenAI-compatible stub servers share: the chat completion they answer with, how
a handler writes one answer, and a server's life on 127.0.0.1 (a free port, a thread, `with`).

Two servers build on it (both in tests/integration): openai_stub_server.StubServer answers from a
script of (status, text) and records the requests; raw_stub_server.RawStubServer sends scripted
bytes, malformed ones included. `stub_fixtures` gives a test module the two fixtures every user of
either server declares. Stdlib only, apart from pytest for the fixtures.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

import pytest


def completion_body(
    content: Any = "C",
    choices: list | None = None,
    *,
    completion_id: str = "chatcmpl-raw",
    model: Any = "test-model",
    usage: tuple[int, int] | None = (10, 1),
) -> bytes:
    """A chat completion's JSON; `choices` replaces the one choice holding `content`. `usage` is
    (prompt tokens, completion tokens), or None for an answer that reports none."""
    if choices is None:
        choices = [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ]
    body: dict[str, Any] = {
        "id": completion_id,
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": choices,
    }
    if usage is not None:
        prompt_tokens, completion_tokens = usage
        body["usage"] = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        }
    return json.dumps(body).encode()


class StubHandler(BaseHTTPRequestHandler):
    """A request handler that reads a body, writes whole answers and keeps test output quiet."""

    def read_body(self) -> bytes:
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def send_answer(
        self, status: int, content_type: str, body: bytes, headers: dict[str, str] | None = None
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


class LocalStubServer:
    """`with Server() as server:` serves `handler` on 127.0.0.1 at a free port until the block
    ends; `api_base` is the OpenAI-style base URL a provider is given."""

    def __init__(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def api_base(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


def stub_fixtures(
    server_class: Callable[[], Any], *, import_litellm: bool = False
) -> tuple[Any, Any]:
    """The fixtures `server` (one stub for the whole module) and `stub` (that server, reset for
    each test, with the placeholder OPENAI_API_KEY litellm wants and the stub ignores):

        server, stub = stub_fixtures(StubServer, import_litellm=True)

    `import_litellm` imports litellm before the server starts, for modules that call it in this
    process: its seconds are paid once, by the module, not by the first test."""

    @pytest.fixture(scope="module")
    def server() -> Iterator[Any]:
        if import_litellm:
            from pdbench.providers.litellm_setup import import_litellm as load_litellm

            load_litellm()
        with server_class() as started:
            yield started

    @pytest.fixture
    def stub(server: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
        monkeypatch.setenv("OPENAI_API_KEY", "dummy")
        server.reset()
        return server

    return server, stub
