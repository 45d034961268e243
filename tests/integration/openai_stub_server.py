"""A tiny OpenAI-compatible chat completions server for tests: stdlib only, one thread.

It records every request body and answers from a script: a list of (status, answer text) that is
consumed one per request; when it runs out, it answers (200, default_text).
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from stub_http import LocalStubServer, StubHandler, completion_body

PATHS = ("/v1/chat/completions", "/chat/completions")
ANTHROPIC_PATH = "/v1/messages"  # Anthropic's Messages API (litellm's anthropic/ models)


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
    reported_model: str | None = None  # the model the answers say they come from (default: asked)
    # Added to every 200 answer: fields of `usage` (prompt_tokens_details, Anthropic's cache
    # counts) and top-level fields (llama.cpp's `timings`).
    usage_extra: dict[str, Any] = field(default_factory=dict)
    # A 429's Retry-After header (seconds or an HTTP date); None: no header.
    retry_after: str | None = None
    # Concurrency as the server saw it: requests being answered now, and for every request,
    # (monotonic time it arrived, requests in flight then including it, status answered).
    in_flight: int = 0
    arrivals: list[tuple[float, int, int]] = field(default_factory=list)
    answer_extra: dict[str, Any] = field(default_factory=dict)


def _handler(state: StubState) -> type[StubHandler]:
    class Handler(StubHandler):
        def do_POST(self) -> None:
            if self.path == ANTHROPIC_PATH:
                self._anthropic()
                return
            if self.path not in PATHS:
                self._send_json(404, {"error": {"message": f"no route {self.path}"}})
                return
            body = json.loads(self.read_body() or b"{}")
            with state.lock:
                state.requests.append(body)
                status, text = state.script.pop(0) if state.script else (200, state.default_text)
                state.in_flight += 1
                state.arrivals.append((time.monotonic(), state.in_flight, status))
            try:
                self._answer(body, status, text)
            finally:
                with state.lock:
                    state.in_flight -= 1

        def _answer(self, body: dict[str, Any], status: int, text: str) -> None:
            if state.delay_s:
                time.sleep(state.delay_s)
            broken = state.broken_models.get(str(body.get("model")))
            if broken == "502":
                page = b"<html><body><h1>502 Bad Gateway</h1>nginx</body></html>"
                self.send_answer(502, "text/html", page)
                return
            if broken == "no_choices":
                empty = completion_body(
                    choices=[], completion_id="chatcmpl-empty", model=body.get("model"), usage=None
                )
                self.send_answer(200, "application/json", empty)
                return
            if status != 200:
                error_type = {429: "rate_limit_error", 401: "invalid_api_key"}.get(status, "error")
                headers = (
                    {"Retry-After": state.retry_after}
                    if status == 429 and state.retry_after is not None
                    else {}
                )
                self._send_json(
                    status, {"error": {"message": f"stub {status}", "type": error_type}}, headers
                )
                return
            answer = completion_body(
                text,
                completion_id=f"chatcmpl-stub-{len(state.requests)}",
                model=state.reported_model or body.get("model", "test-model"),
                usage=(state.prompt_tokens, state.completion_tokens),
            )
            if state.usage_extra or state.answer_extra:
                extended = json.loads(answer)
                extended["usage"].update(state.usage_extra)
                extended.update(state.answer_extra)
                answer = json.dumps(extended).encode()
            self.send_answer(200, "application/json", answer)

        def _anthropic(self) -> None:
            """A Messages API answer: the text, and usage with `usage_extra` (cache counts)."""
            body = json.loads(self.read_body() or b"{}")
            with state.lock:
                state.requests.append(body)
                text = state.default_text
            usage = {"input_tokens": state.prompt_tokens, "output_tokens": state.completion_tokens}
            usage.update(state.usage_extra)
            self._send_json(
                200,
                {
                    "id": f"msg_stub_{len(state.requests)}",
                    "type": "message",
                    "role": "assistant",
                    "model": body.get("model", "claude"),
                    "content": [{"type": "text", "text": text}],
                    "stop_reason": "end_turn",
                    "stop_sequence": None,
                    "usage": usage,
                },
            )

        def _send_json(
            self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None
        ) -> None:
            self.send_answer(status, "application/json", json.dumps(payload).encode(), headers)

    return Handler


class StubServer(LocalStubServer):
    """`with StubServer() as server:` serves on 127.0.0.1 at a free port until the block ends."""

    def __init__(self) -> None:
        self.state = StubState()
        super().__init__(_handler(self.state))

    def reset(self, script: list[tuple[int, str]] | None = None, default_text: str = "C") -> None:
        with self.state.lock:
            self.state.requests.clear()
            self.state.script[:] = script or []
            self.state.default_text = default_text
            self.state.usage_extra = {}
            self.state.retry_after = None
            self.state.arrivals.clear()
            self.state.answer_extra = {}
