"""OpenAI's Batch API through litellm's files and batches calls (issue 46): upload a JSONL file of
chat requests, create a batch of it, retrieve its status, read its output and error files.

Which providers take batches (`batch_support`): litellm models whose provider is OpenAI, at
OpenAI or at an api_base speaking its API (a server without /v1/files refuses the upload: the run
stops and says so). Not Anthropic's Message Batches: the installed litellm cannot create them
("Batch creation not yet implemented for Anthropic") and the anthropic SDK is not a dependency of
pdbench; an Anthropic model's calls are made one by one at the immediate price, and the run says
so once.

Each call is retried as a chat call is (the provider's one classification of errors, its backoff,
`provider.max_attempts`). Creating a batch is not idempotent, so after a failed create the batch
is looked for by its metadata tag before creating it again: a create the server received but
whose answer was lost is never made twice.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import orjson

from pdbench.config.schema import ProviderSpec
from pdbench.providers.base import (
    Completion,
    CompletionRequest,
    MalformedResponse,
    RequestRefused,
)
from pdbench.providers.litellm import LiteLLMProvider, import_litellm
from pdbench.providers.prices import batch_rates, cost_at_rates
from pdbench.providers.usage import cache_usage

T = TypeVar("T")

ENDPOINT = "/v1/chat/completions"
COMPLETION_WINDOW = "24h"  # the only window OpenAI offers
METADATA_KEY = "pdbench_batch"  # the batch's tag (storage/batch_journal.py)
FILE_TIMEOUT_S = 600.0  # an upload or download of a large file takes longer than a chat call
LIST_PAGE, LIST_PAGES = 100, 20  # how far back a batch is looked for by its tag: 2,000 batches
# Per-request failures worth another batch: the window ran out, a rate limit, the server's error.
TRANSIENT_CODES = ("batch_expired", "batch_cancelled", "rate_limit_exceeded", "server_error")
ANTHROPIC_UNSUPPORTED = (
    "Anthropic's Message Batches are not supported yet (litellm cannot create them and the "
    "anthropic SDK is not installed)"
)


def batch_support(spec: ProviderSpec) -> str | None:
    """None when a provider's calls can go into batches; else why not, in a sentence."""
    if spec.kind.offline:
        return f"the {spec.name} provider answers offline: there is no batch API to send to"
    if spec.api_bases:
        return "several servers (provider.api_bases): a batch goes to one server"
    try:
        _, provider, _, _ = import_litellm().get_llm_provider(spec.model, api_base=spec.api_base)
    except Exception:
        return f"litellm does not know the provider of {spec.model}"
    if provider == "openai":
        return None
    if provider == "anthropic":
        return ANTHROPIC_UNSUPPORTED
    return f"pdbench sends batches to OpenAI's Batch API only, not to {provider}"


@dataclass(frozen=True)
class BatchState:
    """What a retrieve says of a batch."""

    id: str
    status: str
    output_file_id: str | None
    error_file_id: str | None
    total: int
    completed: int
    failed: int
    errors: str  # why a batch failed as a whole (its input refused), "" otherwise


@dataclass(frozen=True)
class LineFailure:
    """A request of a batch that has no answer: retried in the next batch when `transient`."""

    transient: bool
    reason: str


class OpenAIBatches:
    """The files and batches calls for one provider spec."""

    def __init__(self, spec: ProviderSpec, *, project_root: Path | None = None) -> None:
        self.spec = spec
        # The chat client's key check, request arguments and error classification, reused.
        self.chat = LiteLLMProvider(spec, project_root=project_root)
        litellm = import_litellm()
        self.model = litellm.get_llm_provider(spec.model, api_base=spec.api_base)[0]
        self._rates = batch_rates(spec)

    def _where(self, timeout_s: float) -> dict[str, Any]:
        api_key = self.chat.check_key_once(import_litellm(), self.spec.model)
        # max_retries 0: the OpenAI SDK underneath must not retry on its own (a create it sent
        # twice would be two batches); `_call` retries, one policy.
        where: dict[str, Any] = {
            "custom_llm_provider": "openai",
            "timeout": timeout_s,
            "max_retries": 0,
        }
        if self.spec.api_base:
            where["api_base"] = self.spec.api_base
        if api_key is not None:
            where["api_key"] = api_key
        return where

    async def _call(self, what: str, call: Callable[[], Awaitable[T]]) -> T:
        litellm = import_litellm()
        for attempt in range(1, self.spec.max_attempts + 1):
            try:
                return await call()
            except Exception as error:
                await asyncio.sleep(self._delay_or_raise(litellm, error, attempt, what))
        raise AssertionError("unreachable: the last attempt raises")

    def _delay_or_raise(self, litellm: Any, error: Exception, attempt: int, what: str) -> float:
        if getattr(error, "status_code", None) == 404 and what == "upload":
            raise RequestRefused(
                f"run.batch: the server at {self.spec.api_base or 'OpenAI'} has no Batch API "
                f"(its /v1/files answered 404); run {self.spec.model} without run.batch"
            ) from error
        return self.chat.delay_or_raise(litellm, error, attempt, self.spec.model)

    # --- requests ------------------------------------------------------------------------------

    def request_line(self, request: CompletionRequest, key: str) -> dict[str, Any]:
        """One line of a batch's input file: the chat request the immediate path would send
        (litellm maps its arguments for the model: max_completion_tokens for reasoning models),
        its cache key as custom_id."""
        from litellm.utils import get_optional_params

        kwargs = self.chat.call_kwargs(request)
        asked = ("temperature", "max_tokens", "seed", "response_format", "extra_body")
        params = get_optional_params(
            model=self.model,
            custom_llm_provider="openai",
            **{name: kwargs[name] for name in asked if name in kwargs},
        )
        params.pop("stream", None)
        extra = params.pop("extra_body", None) or {}
        body = {"model": self.model, "messages": kwargs["messages"], **params, **extra}
        return {"custom_id": key, "method": "POST", "url": ENDPOINT, "body": body}

    # --- the batch's life ------------------------------------------------------------------------

    async def submit(self, lines: list[dict[str, Any]], tag: str) -> tuple[str, str]:
        """Upload the lines and create their batch, tagged; returns (batch id, input file id)."""
        litellm = import_litellm()
        data = b"".join(orjson.dumps(line) + b"\n" for line in lines)
        uploaded = await self._call(
            "upload",
            lambda: litellm.acreate_file(
                file=(f"pdbench-{tag.replace(':', '-')}.jsonl", data),
                purpose="batch",
                **self._where(FILE_TIMEOUT_S),
            ),
        )
        for attempt in range(1, self.spec.max_attempts + 1):
            try:
                created = await litellm.acreate_batch(
                    completion_window=COMPLETION_WINDOW,
                    endpoint=ENDPOINT,
                    input_file_id=uploaded.id,
                    metadata={METADATA_KEY: tag},
                    **self._where(self.spec.timeout_s),
                )
                return str(created.id), str(uploaded.id)
            except Exception as error:
                delay = self._delay_or_raise(litellm, error, attempt, "create")
                found = await self.find(tag)  # the server may have created it all the same
                if found is not None:
                    return found, str(uploaded.id)
                await asyncio.sleep(delay)
        raise AssertionError("unreachable: the last attempt raises")

    async def find(self, tag: str) -> str | None:
        """The id of the batch tagged `tag`, among the most recent LIST_PAGES x LIST_PAGE."""
        litellm = import_litellm()
        after: str | None = None

        def page_after(after: str | None) -> Callable[[], Awaitable[Any]]:
            where = self._where(self.spec.timeout_s)
            return lambda: litellm.alist_batches(after=after, limit=LIST_PAGE, **where)

        for _ in range(LIST_PAGES):
            page = await self._call("list", page_after(after))
            for batch in page.data:
                if (batch.metadata or {}).get(METADATA_KEY) == tag:
                    return str(batch.id)
            if not page.data or not getattr(page, "has_more", False):
                return None
            after = page.data[-1].id
        return None

    async def retrieve(self, batch_id: str) -> BatchState:
        litellm = import_litellm()
        batch = await self._call(
            "retrieve",
            lambda: litellm.aretrieve_batch(
                batch_id=batch_id,
                # litellm would download the output of a finished batch at every retrieve to
                # price it for its logging: pdbench reads it once, itself.
                litellm_metadata={"batch_ignore_default_logging": True},
                **self._where(self.spec.timeout_s),
            ),
        )
        counts = batch.request_counts
        errors = getattr(batch, "errors", None)
        messages = [getattr(e, "message", "") for e in (getattr(errors, "data", None) or [])]
        return BatchState(
            id=batch_id,
            status=str(batch.status),
            output_file_id=batch.output_file_id,
            error_file_id=batch.error_file_id,
            total=int(getattr(counts, "total", 0) or 0),
            completed=int(getattr(counts, "completed", 0) or 0),
            failed=int(getattr(counts, "failed", 0) or 0),
            errors="; ".join(m for m in messages if m),
        )

    async def results(
        self, state: BatchState
    ) -> tuple[dict[str, dict[str, Any]], dict[str, LineFailure]]:
        """(answer bodies, failures) of a batch that ended, by custom_id."""
        answers: dict[str, dict[str, Any]] = {}
        failures: dict[str, LineFailure] = {}
        for file_id in (state.output_file_id, state.error_file_id):
            if file_id is None:
                continue
            for raw in (await self._content(file_id)).splitlines():
                if not raw.strip():
                    continue
                line = orjson.loads(raw)
                custom_id = str(line.get("custom_id"))
                response = line.get("response") or {}
                if response.get("status_code") == 200 and isinstance(response.get("body"), dict):
                    answers[custom_id] = response["body"]
                else:
                    failures[custom_id] = _failure(line.get("error"), response)
        return answers, failures

    async def _content(self, file_id: str) -> bytes:
        litellm = import_litellm()
        content = await self._call(
            "download",
            lambda: litellm.afile_content(file_id=file_id, **self._where(FILE_TIMEOUT_S)),
        )
        return bytes(content.content)

    def to_completion(self, body: dict[str, Any]) -> Completion:
        """An answer's body as the immediate path's Completion, priced at the batch rate.
        MalformedResponse when it holds no text (retried in the next batch)."""
        choices = body.get("choices") or []
        message = choices[0].get("message") if choices and isinstance(choices[0], dict) else None
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, str):
            raise MalformedResponse("the answer's message has no text content", body)
        usage = body.get("usage") or {}
        input_tokens = int(usage.get("prompt_tokens") or 0)
        output_tokens = int(usage.get("completion_tokens") or 0)
        cached, written = cache_usage(body)
        return Completion(
            text=content,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            cost_usd=self.cost(input_tokens, output_tokens, cached or 0),
            reported_model=_text(body.get("model")),
            response_id=_text(body.get("id")),
            system_fingerprint=_text(body.get("system_fingerprint")),
            reasoning=_text(message.get("reasoning_content") if message else None),
            cached_input_tokens=cached,
            cache_write_tokens=written,
        )

    def cost(self, input_tokens: int, output_tokens: int, cached: int = 0) -> float | None:
        """A batch answer's price at the batch rate; None when unknown."""
        if self._rates is None:
            return None
        return cost_at_rates(self._rates[0], input_tokens, output_tokens, cached)


def _failure(error: Any, response: dict[str, Any]) -> LineFailure:
    """Why a request has no answer: an error line (`batch_expired`...) or a non-200 response."""
    status = response.get("status_code")
    body = response.get("body") if isinstance(response.get("body"), dict) else {}
    detail = error if isinstance(error, dict) else (body or {}).get("error") or {}
    code = str(detail.get("code") or status or "no answer")
    reason = f"{code}: {detail.get('message') or 'no message'}"
    transient = code in TRANSIENT_CODES or (
        isinstance(status, int) and (status == 429 or status >= 500)
    )
    return LineFailure(transient=transient, reason=reason)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
