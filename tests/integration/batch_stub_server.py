"""A local OpenAI Batch API for tests: the files and batches endpoints over HTTP on 127.0.0.1
(upload, create, retrieve, list, output file), and the chat completions endpoint the immediate path
calls, both answering a request with the same text (`answer_text`), so a batch run and an
immediate run of the same experiment play the same rounds. Stdlib only.

What a test can make it do (all on `state`):

- `polls_to_finish`: how many retrieves of a batch see it `in_progress` before it ends (no clock:
  the test decides, a loaded machine changes nothing);
- `hold`: batches stay `in_progress` until `release()` (a run killed between a batch's submission
  and its completion);
- `expire_next`: the next batch to end expires with that many of its requests unanswered (their
  lines in the error file, `batch_expired`), as OpenAI ends a batch its 24 h window ran out on;
- `no_batch_api`: /v1/files answers 404, as a server that serves chat completions only;
- `lose_next_create`: the next batch is created, but its create call answers 500 (the answer lost
  on the way: the client cannot tell whether the batch exists).

It counts what it was sent: `uploads`, `creates` (the custom_ids of each batch created),
`chat_requests` (immediate calls), and `content_reads`.
"""

from __future__ import annotations

import email.parser
import email.policy
import hashlib
import json
import threading
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

from stub_http import LocalStubServer, StubHandler, completion_body

PROMPT_TOKENS = 1_000  # every answer's usage: priced by the map, large enough to be seen
COMPLETION_TOKENS = 1


def answer_text(body: dict[str, Any]) -> str:
    """The stub model's answer to a chat request: C or D, decided by the messages alone (so the
    same prompt gets the same answer on both paths, and a match's moves vary with its history)."""
    digest = hashlib.sha256(json.dumps(body.get("messages"), sort_keys=True).encode()).digest()
    return "C" if digest[0] % 3 else "D"


def chat_answer(body: dict[str, Any], completion_id: str) -> dict[str, Any]:
    return json.loads(
        completion_body(
            answer_text(body),
            completion_id=completion_id,
            model=body.get("model", "test-model"),
            usage=(PROMPT_TOKENS, COMPLETION_TOKENS),
        )
    )


@dataclass
class Batch:
    id: str
    input_file_id: str
    metadata: dict[str, str]
    custom_ids: list[str]
    lines: list[dict[str, Any]]
    created_at: int
    status: str = "validating"
    polls: int = 0
    output_file_id: str | None = None
    error_file_id: str | None = None
    completed: int = 0
    failed: int = 0

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": "batch",
            "endpoint": "/v1/chat/completions",
            "errors": None,
            "input_file_id": self.input_file_id,
            "completion_window": "24h",
            "status": self.status,
            "output_file_id": self.output_file_id,
            "error_file_id": self.error_file_id,
            "created_at": self.created_at,
            "request_counts": {
                "total": len(self.lines),
                "completed": self.completed,
                "failed": self.failed,
            },
            "metadata": self.metadata,
        }


@dataclass
class BatchStubState:
    files: dict[str, bytes] = field(default_factory=dict)
    batches: dict[str, Batch] = field(default_factory=dict)
    uploads: int = 0
    creates: list[list[str]] = field(default_factory=list)
    chat_requests: list[dict[str, Any]] = field(default_factory=list)
    content_reads: int = 0
    polls_to_finish: int = 1
    hold: bool = False
    expire_next: int = 0
    no_batch_api: bool = False
    lose_next_create: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)

    def submitted_ids(self) -> list[str]:
        """Every custom_id of every batch created, in order (a request sent twice is twice)."""
        return [custom_id for batch in self.creates for custom_id in batch]


def _finish(state: BatchStubState, batch: Batch) -> None:
    """Answer every line of the batch, or expire it with `expire_next` lines unanswered."""
    failing = min(state.expire_next, len(batch.lines))
    state.expire_next = 0
    answered, errors = [], []
    for number, line in enumerate(batch.lines):
        custom_id = line["custom_id"]
        if number >= len(batch.lines) - failing:
            errors.append(
                {
                    "id": f"batch_req_{batch.id}_{number}",
                    "custom_id": custom_id,
                    "response": None,
                    "error": {"code": "batch_expired", "message": "not executed in the window"},
                }
            )
            continue
        answered.append(
            {
                "id": f"batch_req_{batch.id}_{number}",
                "custom_id": custom_id,
                "response": {
                    "status_code": 200,
                    "request_id": f"req_{number}",
                    "body": chat_answer(line["body"], f"chatcmpl-{batch.id}-{number}"),
                },
                "error": None,
            }
        )
    batch.output_file_id = _store(state, answered) if answered else None
    batch.error_file_id = _store(state, errors) if errors else None
    batch.completed, batch.failed = len(answered), len(errors)
    batch.status = "expired" if errors else "completed"


def _store(state: BatchStubState, lines: list[dict[str, Any]]) -> str:
    file_id = f"file-out-{len(state.files)}"
    state.files[file_id] = "".join(json.dumps(line) + "\n" for line in lines).encode()
    return file_id


def _multipart_file(content_type: str, body: bytes) -> bytes:
    """The `file` part of a multipart/form-data upload."""
    head = f"Content-Type: {content_type}\r\nMIME-Version: 1.0\r\n\r\n".encode()
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + body)
    for part in message.iter_parts():
        if part.get_param("name", header="content-disposition") == "file":
            return part.get_payload(decode=True)
    raise ValueError("no file part in the upload")


def _handler(state: BatchStubState) -> type[StubHandler]:
    class Handler(StubHandler):
        def _json(self, status: int, payload: dict[str, Any]) -> None:
            self.send_answer(status, "application/json", json.dumps(payload).encode())

        def do_POST(self) -> None:
            path = urlsplit(self.path).path
            body = self.read_body()
            with state.lock:
                if path in ("/v1/chat/completions", "/chat/completions"):
                    request = json.loads(body)
                    state.chat_requests.append(request)
                    self._json(200, chat_answer(request, f"chatcmpl-{len(state.chat_requests)}"))
                elif path == "/v1/files" and state.no_batch_api:
                    self._json(404, {"error": {"message": "Not Found"}})
                elif path == "/v1/files":
                    state.uploads += 1
                    file_id = f"file-in-{len(state.files)}"
                    state.files[file_id] = _multipart_file(self.headers["Content-Type"], body)
                    self._json(200, self._file(file_id, "batch"))
                elif path == "/v1/batches":
                    self._create(json.loads(body))
                else:
                    self._json(404, {"error": {"message": f"no route {path}"}})

        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            path = parts.path.rstrip("/")
            with state.lock:
                if path.startswith("/v1/files/") and path.endswith("/content"):
                    file_id = path.split("/")[3]
                    state.content_reads += 1
                    self.send_answer(200, "application/octet-stream", state.files[file_id])
                elif path.startswith("/v1/files/"):
                    self._json(200, self._file(path.split("/")[3], "batch_output"))
                elif path == "/v1/batches":
                    self._list(parse_qs(parts.query))
                elif path.startswith("/v1/batches/"):
                    self._retrieve(path.split("/")[3])
                else:
                    self._json(404, {"error": {"message": f"no route {path}"}})

        def _file(self, file_id: str, purpose: str) -> dict[str, Any]:
            return {
                "id": file_id,
                "object": "file",
                "bytes": len(state.files[file_id]),
                "created_at": 0,
                "filename": f"{file_id}.jsonl",
                "purpose": purpose,
                "status": "processed",
            }

        def _create(self, request: dict[str, Any]) -> None:
            data = state.files[request["input_file_id"]].decode()
            lines = [json.loads(line) for line in data.splitlines() if line.strip()]
            batch = Batch(
                id=f"batch_{len(state.batches)}",
                input_file_id=request["input_file_id"],
                metadata=dict(request.get("metadata") or {}),
                custom_ids=[line["custom_id"] for line in lines],
                lines=lines,
                created_at=len(state.batches),
            )
            state.batches[batch.id] = batch
            state.creates.append(batch.custom_ids)
            if state.lose_next_create:
                state.lose_next_create = False
                self._json(500, {"error": {"message": "stub: the answer was lost"}})
                return
            self._json(200, batch.as_json())

        def _retrieve(self, batch_id: str) -> None:
            batch = state.batches.get(batch_id)
            if batch is None:
                self._json(404, {"error": {"message": f"no batch {batch_id}"}})
                return
            if batch.status in ("validating", "in_progress"):
                batch.polls += 1
                batch.status = "in_progress"
                if not state.hold and batch.polls > state.polls_to_finish:
                    _finish(state, batch)
            self._json(200, batch.as_json())

        def _list(self, query: dict[str, list[str]]) -> None:
            newest_first = sorted(state.batches.values(), key=lambda b: -b.created_at)
            after = (query.get("after") or [None])[0]
            if after is not None:
                ids = [b.id for b in newest_first]
                newest_first = newest_first[ids.index(after) + 1 :] if after in ids else []
            limit = int((query.get("limit") or ["20"])[0])
            page = newest_first[:limit]
            self._json(
                200,
                {
                    "object": "list",
                    "data": [b.as_json() for b in page],
                    "first_id": page[0].id if page else None,
                    "last_id": page[-1].id if page else None,
                    "has_more": len(newest_first) > limit,
                },
            )

    return Handler


class BatchStubServer(LocalStubServer):
    """`with BatchStubServer() as server:` serves on 127.0.0.1 at a free port until the block
    ends."""

    def __init__(self) -> None:
        self.state = BatchStubState()
        super().__init__(_handler(self.state))

    def release(self) -> None:
        """Batches held `in_progress` (`state.hold`) end at their next retrieve."""
        with self.state.lock:
            self.state.hold = False
            for batch in self.state.batches.values():
                batch.polls = max(batch.polls, self.state.polls_to_finish)

    def reset(self) -> None:
        with self.state.lock:
            fresh = BatchStubState()
            for name in ("files", "batches", "creates", "chat_requests"):
                setattr(self.state, name, getattr(fresh, name))
            self.state.uploads = self.state.content_reads = self.state.expire_next = 0
            self.state.polls_to_finish, self.state.hold = 1, False
            self.state.no_batch_api = self.state.lose_next_create = False
