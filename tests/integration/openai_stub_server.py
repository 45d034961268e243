"""A tiny OpenAI-compatible chat completions server for tests: stdlib only, one thread.

It records every request body and answers from a script: a list of (status, answer text) that is
consumed one per request; when it runs out, it answers (200, default_text).
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

PATHS = ("/v1/chat/completions", "/chat/completions")


@dataclass
class StubState:
    script: list[tuple[int, str]] = field(default_factory=list)
    default_text: str = "C"
    prompt_tokens: int = 12
    completion_tokens: int = 1
    requests: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    delay_s: float = 0.0  # how long each answer takes (a slow model: room to kill mid-run)
    # Models whose every request fails: "502" answers a proxy's HTML error page, "no_choices" a
    # 200 whose `choices` is empty.
    broken_models: dict[str, str] = field(default_factory=dict)


def _handler(state: StubState) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            if self.path not in PATHS:
                self._send(404, {"error": {"message": f"no route {self.path}"}})
                return
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            with state.lock:
                state.requests.append(body)
                status, text = state.script.pop(0) if state.script else (200, state.default_text)
            if state.delay_s:
                time.sleep(state.delay_s)
            broken = state.broken_models.get(str(body.get("model")))
            if broken == "502":
                self._send_html(502, "<html><body><h1>502 Bad Gateway</h1>nginx</body></html>")
                return
            if broken == "no_choices":
                self._send(200, {"id": "chatcmpl-empty", "object": "chat.completion",
                                 "created": 0, "model": body.get("model"), "choices": []})  # fmt: skip
                return
            if status != 200:
                error_type = {429: "rate_limit_error", 401: "invalid_api_key"}.get(status, "error")
                self._send(status, {"error": {"message": f"stub {status}", "type": error_type}})
                return
            self._send(
                200,
                {
                    "id": f"chatcmpl-stub-{len(state.requests)}",
                    "object": "chat.completion",
                    "created": 0,
                    "model": body.get("model", "test-model"),
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": text},
                            "finish_reason": "stop",
                        }
                    ],
                    "usage": {
                        "prompt_tokens": state.prompt_tokens,
                        "completion_tokens": state.completion_tokens,
                        "total_tokens": state.prompt_tokens + state.completion_tokens,
                    },
                },
            )

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _send_html(self, status: int, page: str) -> None:
            data = page.encode()
            self.send_response(status)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
            pass

    return Handler


class StubServer:
    """`with StubServer() as server:` serves on 127.0.0.1 at a free port until the block ends."""

    def __init__(self) -> None:
        self.state = StubState()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self.state))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def api_base(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def reset(self, script: list[tuple[int, str]] | None = None, default_text: str = "C") -> None:
        with self.state.lock:
            self.state.requests.clear()
            self.state.script[:] = script or []
            self.state.default_text = default_text

    def __enter__(self) -> StubServer:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
