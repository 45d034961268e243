"""An OpenAI-compatible server on 127.0.0.1 that answers chat completions with whatever bytes a
test scripts: malformed answers (empty choices, null content, an HTML error page, truncated JSON)
as a broken proxy or server sends them. Stdlib only; one answer per request, then a good one."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Answer = tuple[int, str, bytes]  # status, Content-Type, body


def completion_body(content: Any = "C", choices: list | None = None) -> bytes:
    """A chat completion's JSON; `choices` replaces the one choice holding `content`."""
    if choices is None:
        choices = [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ]
    body = {
        "id": "chatcmpl-raw",
        "object": "chat.completion",
        "created": 0,
        "model": "test-model",
        "choices": choices,
        "usage": {"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11},
    }
    return json.dumps(body).encode()


GOOD: Answer = (200, "application/json", completion_body("C"))
MALFORMED: dict[str, Answer] = {
    "empty_choices": (200, "application/json", completion_body(choices=[])),
    "null_content": (200, "application/json", completion_body(content=None)),
    "html_502": (
        502,
        "text/html",
        b"<html><head><title>502 Bad Gateway</title></head>"
        b"<body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>",
    ),
    "html_200": (200, "text/html", b"<html><body>Service temporarily unavailable</body></html>"),
    "truncated_json": (200, "application/json", completion_body("C")[:40]),
}


class RawStubServer:
    """`with RawStubServer() as server:`; `server.script` is consumed one answer per request,
    then every request gets `server.default` (a good answer unless changed)."""

    def __init__(self) -> None:
        self.script: list[Answer] = []
        self.default: Answer = GOOD
        self.requests = 0
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def api_base(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def _next(self) -> Answer:
        with self._lock:
            self.requests += 1
            return self.script.pop(0) if self.script else self.default

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                status, content_type, body = stub._next()
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler

    def __enter__(self) -> RawStubServer:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
