"""An OpenAI-compatible server on 127.0.0.1 that answers chat completions with whatever bytes a
test scripts: malformed answers (empty choices, null content, an HTML error page, truncated JSON)
as a broken proxy or server sends them. Stdlib only; one answer per request, then a good one."""

from __future__ import annotations

import json
import threading
import time

from stub_http import LocalStubServer, StubHandler, completion_body

Answer = tuple[int, str, bytes]  # status, Content-Type, body

GOOD: Answer = (200, "application/json", completion_body("C"))


def _event_stream() -> bytes:
    """A streamed answer (server-sent events) sent to a request that did not ask for a stream."""
    chunk = json.loads(completion_body("C", usage=(100_000, 1)))
    chunk["object"] = "chat.completion.chunk"
    chunk["choices"][0]["delta"] = chunk["choices"][0].pop("message")
    return b"data: " + json.dumps(chunk).encode() + b"\n\ndata: [DONE]\n\n"


# Answers a model produced, and a provider bills, that carry no usable text (issue 27).
CHARGED_WITHOUT_TEXT: dict[str, Answer] = {
    "tool_calls": (
        200,
        "application/json",
        completion_body(
            choices=[
                {
                    "index": 0,
                    "message": {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": "call-1",
                                "type": "function",
                                "function": {"name": "choose", "arguments": '{"move": "C"}'},
                            }
                        ],
                    },
                    "finish_reason": "tool_calls",
                }
            ],
            usage=(100_000, 50),
        ),
    ),
    "event_stream": (200, "text/event-stream", _event_stream()),
    "invalid_utf8": (
        200,
        "application/json",
        completion_body("C\u00e9", usage=(100_000, 1)).replace(b"\\u00e9", b"\xff\xfe"),
    ),
}
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
    **CHARGED_WITHOUT_TEXT,
}


class RawStubServer(LocalStubServer):
    """`with RawStubServer() as server:`; `server.script` is consumed one answer per request,
    then every request gets `server.default` (a good answer unless changed); with `trickle_s`,
    answers are sent chunked, one byte every `trickle_s` seconds."""

    def __init__(self) -> None:
        self.script: list[Answer] = []
        self.default: Answer = GOOD
        self.requests = 0
        # Seconds between the bytes of a chunked body (0: the whole body at once): a server
        # that trickles its answer, so no single read ever times out.
        self.trickle_s = 0.0
        self._lock = threading.Lock()
        super().__init__(self._handler())

    def reset(self) -> None:
        """Back to a fresh server: no script, good answers, no requests counted."""
        with self._lock:
            self.script.clear()
            self.default = GOOD
            self.requests = 0
            self.trickle_s = 0.0

    def _next(self) -> Answer:
        with self._lock:
            self.requests += 1
            return self.script.pop(0) if self.script else self.default

    def _handler(self) -> type[StubHandler]:
        stub = self

        class Handler(StubHandler):
            def do_POST(self) -> None:
                self.read_body()
                if stub.trickle_s:
                    self.trickle(*stub._next())
                else:
                    self.send_answer(*stub._next())

            def trickle(self, status: int, content_type: str, body: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                try:
                    for byte in body:
                        self.wfile.write(b"1\r\n" + bytes([byte]) + b"\r\n")
                        self.wfile.flush()
                        time.sleep(stub.trickle_s)
                    self.wfile.write(b"0\r\n\r\n")
                except OSError:
                    pass  # the client gave up: what a deadline is for

        return Handler
