"""Constrained answers (LLMAgentSpec.constrain) and the audit fields of an attempt.

- the constraint is part of the cache key, and only a constrained request carries it;
- the mock honours it (never garbage); litellm sends llama.cpp's `grammar` field or an OpenAI
  json_schema response format, checked on the JSON body a real HTTP server receives;
- what a server says about its answer (model, response id, fingerprint, separate reasoning) is
  stored with the attempt, cached with the answer and replayed as it was.
"""

from __future__ import annotations

import asyncio
import json
import threading
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from helpers import TEST_DEAL
from pydantic import ValidationError
from reference_loop import play_match_sync

from pdbench.agents.base import AgentContext
from pdbench.agents.kinds import make_agent
from pdbench.config.schema import LLMAgentSpec, MockBehaviour, ProviderSpec
from pdbench.core.horizon import FixedHorizon
from pdbench.core.parse import parse_answer
from pdbench.games.tables import GAMES
from pdbench.providers.base import Completion, CompletionRequest
from pdbench.providers.constraints import label_grammar, label_json_schema
from pdbench.providers.gateway import ProviderGateway
from pdbench.providers.litellm import (
    PLACEHOLDER_API_KEY,
    LiteLLMProvider,
    import_litellm,
)
from pdbench.storage.schema import stored_attempts
from pdbench.strategies import make_policy

ROOT = Path(__file__).resolve().parents[2]
PD = GAMES["pd"]
SPLIT = GAMES["split_or_steal"]


def request(**changes: Any) -> CompletionRequest:
    fields: dict[str, Any] = dict(
        provider="litellm",
        model="openai/m",
        api_base=None,
        system="s",
        messages=(("user", "Answer with exactly one of: C, D."),),
        temperature=0.0,
        max_tokens=8,
    )
    return CompletionRequest(**(fields | changes))


def play(spec: LLMAgentSpec, gateway: ProviderGateway | None = None, game=PD, rounds=6):
    context = AgentContext(
        deal=TEST_DEAL,
        run_seed=0,
        condition="c",
        replicate=0,
        side="a",
        project_root=ROOT,
        gateway=gateway,
    )
    llm = make_agent(spec, game=game, horizon=FixedHorizon(rounds), context=context)
    return play_match_sync(
        game, rounds, llm, make_policy("tft", game), seed_a=1, seed_b=2, disclose_rounds=True
    )


# --- the request and its key ---------------------------------------------------------------------


def test_the_constraint_is_in_the_key_only_when_there_is_one():
    free = request()
    grammar = request(constrain="grammar", labels=("C", "D"))
    schema = request(constrain="json_schema", labels=("C", "D"), response_format="json")
    assert "constrain" not in free.key_fields()  # keys cached before constraints stay valid
    assert grammar.key_fields()["constrain"] == "grammar"
    assert grammar.key_fields()["labels"] == ["C", "D"]
    keys = {free.cache_key(), grammar.cache_key(), schema.cache_key()}
    assert len(keys) == 3
    other_labels = request(constrain="grammar", labels=("split", "steal"))
    assert other_labels.cache_key() != grammar.cache_key()
    assert request(labels=("C", "D")).labels is None  # unconstrained: labels mean nothing


def test_a_constraint_needs_the_labels():
    with pytest.raises(ValueError, match="needs the answers it allows"):
        request(constrain="grammar")


def test_the_allowed_answers_follow_the_response_format():
    assert request(constrain="grammar", labels=("split", "steal")).allowed_answers() == (
        "split",
        "steal",
    )
    as_json = request(constrain="grammar", labels=("C", "D"), response_format="json")
    assert as_json.allowed_answers() == ('{"action": "C"}', '{"action": "D"}')
    for answer in as_json.allowed_answers() or ():
        assert parse_answer(answer, ("C", "D"), "json").valid


def test_the_grammar_allows_exactly_the_answers():
    assert label_grammar(("C", "D")) == 'root ::= "C" | "D"'
    assert label_grammar(('{"action": "C"}', "a\\b")) == (
        'root ::= "{\\"action\\": \\"C\\"}" | "a\\\\b"'
    )


def test_json_schema_needs_json_answers_and_constrained_agents_are_named_so():
    with pytest.raises(ValidationError, match="set response_format: json"):
        LLMAgentSpec(constrain="json_schema")
    spec = LLMAgentSpec(constrain="json_schema", response_format="json", persona="cooperative")
    assert spec.display_name == "mock[cooperative]+json_schema"
    assert LLMAgentSpec().display_name == "mock"


# --- the mock honours it -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("game", "response_format", "constrain"),
    [(PD, "label", "grammar"), (SPLIT, "label", "grammar"), (PD, "json", "json_schema")],
)
def test_a_constrained_mock_never_answers_garbage(game, response_format, constrain):
    garbage_only = ProviderSpec(mock=MockBehaviour(strategy="random", invalid_rate=1.0))
    spec = LLMAgentSpec(provider=garbage_only, response_format=response_format, constrain=constrain)
    result = play(spec, game=game)
    assert result.completed and len(result.rounds) == 6
    for played in result.rounds:
        (attempt,) = played.decision_a.attempts
        assert attempt.valid, attempt.raw
    free = play(spec.model_copy(update={"constrain": "none"}), game=game)
    assert not free.completed  # the same mock, unconstrained, answers garbage and aborts


# --- litellm over HTTP: what the server receives, what it answers ---------------------------------


class RecordingServer:
    """An OpenAI-compatible server on 127.0.0.1 that records each request (headers and JSON body)
    and answers as llama.cpp does, plus a separate reasoning text."""

    def __init__(self, answer: str) -> None:
        self.received: list[tuple[dict[str, str], dict[str, Any]]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.received.append(({k.lower(): v for k, v in self.headers.items()}, body))
                payload = json.dumps(
                    {
                        "id": "chatcmpl-recorded-1",
                        "object": "chat.completion",
                        "created": 0,
                        "model": "served-model-name",
                        "system_fingerprint": "b1234-cpu",
                        "choices": [
                            {
                                "index": 0,
                                "finish_reason": "stop",
                                "message": {
                                    "role": "assistant",
                                    "content": answer,
                                    "reasoning_content": "They cooperated, so I cooperate.",
                                },
                            }
                        ],
                        "usage": {"prompt_tokens": 40, "completion_tokens": 2, "total_tokens": 42},
                    }
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.api_base = f"http://127.0.0.1:{self._http.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._http.serve_forever, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._http.shutdown()
        self._http.server_close()


@pytest.fixture(scope="module")
def litellm_loaded():
    import_litellm()  # seconds: once for the module


@pytest.fixture
def served(litellm_loaded, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    servers: list[RecordingServer] = []

    def start(answer: str) -> RecordingServer:
        servers.append(RecordingServer(answer))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


def ask(server: RecordingServer, **changes: Any) -> Completion:
    spec = ProviderSpec(name="litellm", model="openai/local-model", api_base=server.api_base)
    client = LiteLLMProvider(spec, project_root=ROOT)
    return asyncio.run(client.acomplete(request(api_base=server.api_base, **changes)))


def test_grammar_goes_in_the_body_and_a_keyless_server_gets_the_placeholder_key(served):
    server = served("C")
    completion = ask(server, constrain="grammar", labels=("C", "D"))
    headers, body = server.received[0]
    assert body["grammar"] == 'root ::= "C" | "D"'  # top level, where llama.cpp reads it
    assert "extra_body" not in body and "response_format" not in body
    assert headers["authorization"] == f"Bearer {PLACEHOLDER_API_KEY}"
    assert completion.text == "C"


def test_json_schema_is_an_openai_response_format_with_the_labels_as_an_enum(served):
    server = served('{"action": "steal"}')
    ask(server, constrain="json_schema", labels=("split", "steal"), response_format="json")
    _, body = server.received[0]
    assert body["response_format"] == label_json_schema(("split", "steal"))
    enum = body["response_format"]["json_schema"]["schema"]["properties"]["action"]["enum"]
    assert enum == ["split", "steal"] and "grammar" not in body


def test_what_the_server_says_about_its_answer_is_kept(served):
    completion = ask(served("D"))
    assert completion.audit() == {
        "reported_model": "served-model-name",
        "response_id": "chatcmpl-recorded-1",
        "system_fingerprint": "b1234-cpu",
        "reasoning": "They cooperated, so I cooperate.",
    }
    assert (completion.input_tokens, completion.output_tokens) == (40, 2)
    restored = Completion.from_json_dict(completion.to_json_dict(), cached=True)
    assert restored == replace(completion, cached=True)


# --- audit fields on stored attempts, live and replayed --------------------------------------------


class Audited:
    """A provider client whose answers carry every audit field."""

    def __init__(self) -> None:
        self.calls = 0

    async def acomplete(self, request: CompletionRequest) -> Completion:
        self.calls += 1
        return Completion(
            "C",
            30,
            1,
            None,
            reported_model="served-model-name",
            response_id=f"chatcmpl-{self.calls}",
            system_fingerprint="b1234-cpu",
            reasoning="Cooperation pays here.",
        )


def test_audit_fields_are_stored_cached_and_replayed_identically(tmp_path):
    client = Audited()
    spec = LLMAgentSpec(
        provider=ProviderSpec(name="litellm", model="openai/m", api_base="http://x")
    )

    def stored_rounds(mode: str, store_prompts: bool | str = True) -> list[list[dict]]:
        gateway = ProviderGateway(
            cache_dir=tmp_path / "cache", cache_mode=mode, client_factory=lambda _: client
        )
        result = play(spec, gateway, rounds=3)
        gateway.close()
        return [stored_attempts(r.decision_a.attempts, store_prompts) for r in result.rounds]

    live = stored_rounds("readwrite")
    assert client.calls == 3
    assert [a["response_id"] for (a,) in live] == ["chatcmpl-1", "chatcmpl-2", "chatcmpl-3"]
    for (attempt,) in live:
        assert attempt["reported_model"] == "served-model-name"
        assert attempt["system_fingerprint"] == "b1234-cpu"
        assert attempt["reasoning"] == "Cooperation pays here."
        assert "cached" not in attempt
    assert stored_rounds("replay") == live and client.calls == 3
    hashed = stored_rounds("replay", store_prompts="hash")
    assert "reasoning" not in hashed[0][0] and len(hashed[0][0]["reasoning_sha256"]) == 64
    assert "reasoning" not in stored_rounds("replay", store_prompts=False)[0][0]
