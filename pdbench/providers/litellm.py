"""Any chat model litellm can reach (OpenAI, Anthropic, Gemini, a local vLLM or Ollama server...).

litellm is imported on the first call, not at import time: it takes seconds to load, and runs
that use only the mock or policies never need it. Transport failures that may pass (rate limits,
timeouts, dropped connections, 5xx) are retried here with exponential backoff, up to
`ProviderSpec.max_attempts`; litellm's own retries are turned off so there is one policy.

Constrained answers (`CompletionRequest.constrain`) go to an OpenAI-compatible server as llama.cpp's
`grammar` field (in litellm's `extra_body`, which the OpenAI SDK merges into the JSON body) or as
an OpenAI `json_schema` response format (both built in `pdbench.providers.constraints`).
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

from pdbench.config.schema import ProviderSpec
from pdbench.providers import concurrency
from pdbench.providers.base import (
    Completion,
    CompletionRequest,
    MalformedResponse,
    MissingCredentials,
    ProviderError,
    ProviderUnavailable,
    RequestRefused,
)
from pdbench.providers.constraints import label_grammar, label_json_schema
from pdbench.providers.litellm_library import import_litellm
from pdbench.providers.prices import cost_at
from pdbench.providers.prompt_cache import prompt_cache_kwargs
from pdbench.providers.unanswered import timed_out_call
from pdbench.providers.usage import cache_usage
from pdbench.storage.schema import CallCounts

log = logging.getLogger(__name__)

# Sent as the key to a server at an api_base when no key for the model's provider is set: the
# OpenAI SDK under litellm's openai/ models refuses to send a request without one, and local
# servers (llama.cpp, vLLM) ignore it. A server that does want a key rejects it with a 401, which
# ends in the usual "no API key for <model>: set OPENAI_API_KEY" message.
PLACEHOLDER_API_KEY = "pdbench-no-key-set"


# What litellm says of a 200 answer whose body it could not read: bytes that are not UTF-8, or
# a body that is no JSON, which is a model's answer (billed) when it is an event stream of
# completion chunks, and not when it is a proxy's HTML page.
UNDECODABLE_ANSWER = "codec can't decode"
UNREADABLE_ANSWER = "Empty or invalid response from LLM endpoint"
MODEL_OUTPUT_SIGNS = ("data:", "chat.completion")


def load_dotenv_file(project_root: Path) -> None:
    """Read API keys from `<project_root>/.env`; variables already set keep their value."""
    path = project_root / ".env"
    if path.is_file():
        from dotenv import load_dotenv

        load_dotenv(path, override=False)


class LiteLLMProvider:
    """A `ProviderClient` over `litellm.acompletion` / `litellm.completion`."""

    def __init__(
        self,
        spec: ProviderSpec,
        *,
        project_root: Path | None = None,
        backoff_base_s: float = 1.0,
        backoff_max_s: float = 30.0,
    ) -> None:
        self.spec = spec
        self.backoff_base_s = backoff_base_s
        self.backoff_max_s = backoff_max_s
        self.transport_attempts = 0  # every HTTP attempt, retries included
        self._missing_keys: list[str] | None = None  # looked up on the first call
        self._placeholder_key = False  # an api_base without a key: send PLACEHOLDER_API_KEY
        self._billed_without_answer: list[CallCounts] = []
        load_dotenv_file(project_root or Path.cwd())

    # --- the entry point -----------------------------------------------------------------

    async def acomplete(self, request: CompletionRequest) -> Completion:
        litellm = import_litellm()
        self._check_key_once(litellm, request.model)
        kwargs = self._call_kwargs(request)
        for attempt in range(1, self.spec.max_attempts + 1):
            self.transport_attempts += 1
            try:
                response = await self._within_deadline(litellm, kwargs, request.model)
                return self._to_completion(litellm, response, request.model)
            except Exception as error:
                self._count_if_paid(litellm, error, request.model)
                if isinstance(error, litellm.Timeout):  # sent, maybe answered and billed
                    self._billed_without_answer.append(timed_out_call(self.spec, request))
                await self._pause(self._delay_or_raise(litellm, error, attempt, request.model))
        raise AssertionError("unreachable: the last attempt raises")

    async def _pause(self, seconds: float) -> None:
        """The wait before the next attempt (the call's slot is free meanwhile)."""
        await concurrency.backoff(seconds)

    def take_billed_without_answer(self) -> list[CallCounts]:
        """Since the last call of this method: the answers a provider charged for that carry no
        usable text, which the gateway journals as paid (see `_count_if_paid`), and the calls
        that timed out, which it journals as estimates (providers/unanswered.py)."""
        taken, self._billed_without_answer = self._billed_without_answer, []
        return taken

    def _count_if_paid(self, litellm: Any, error: Exception, model: str) -> None:
        """An answer the server sent in full and billed, but with no usable text: a message with
        tool calls or no content whose usage says what it cost, or a 200 body of model output the
        client cannot read (an event stream, invalid UTF-8: counted at an unknown price). It is
        retried like a malformed answer, never cached; but it was paid for, so it is counted. A
        proxy's HTML page or an answer without usage is not counted: nothing says it was billed."""
        text = str(error)
        usage = getattr(getattr(error, "response", None), "usage", None)
        if isinstance(error, MalformedResponse) and usage is not None:
            cost = self._cost(litellm, error.response, model)
            self._billed_without_answer.append(
                CallCounts(
                    live=1,
                    input_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
                    output_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
                    cost_usd=cost or 0.0,
                    unknown_price=int(cost is None),
                )
            )
        elif UNDECODABLE_ANSWER in text or (
            UNREADABLE_ANSWER in text and any(sign in text for sign in MODEL_OUTPUT_SIGNS)
        ):
            self._billed_without_answer.append(CallCounts(live=1, unknown_price=1))

    # --- helpers -------------------------------------------------------------------------------

    async def _within_deadline(self, litellm: Any, kwargs: dict[str, Any], model: str) -> Any:
        """The whole answer within `timeout_s`: the HTTP client's timeout bounds each read, so a
        server that trickles its body a byte at a time would never time out. Past the deadline
        the request is cancelled and fails as a timeout (retried like one)."""
        try:
            return await asyncio.wait_for(litellm.acompletion(**kwargs), self.spec.timeout_s)
        except TimeoutError:
            raise litellm.Timeout(
                message=f"no complete answer within timeout_s={self.spec.timeout_s:g} s",
                model=model,
                llm_provider="openai",
            ) from None

    def _call_kwargs(self, request: CompletionRequest) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "model": request.model,
            "messages": request.chat_messages(),
            "temperature": request.temperature,
            "max_tokens": request.max_tokens,
            "timeout": self.spec.timeout_s,
            "num_retries": 0,  # we retry ourselves, with one backoff policy
            "max_retries": 0,  # nor may the OpenAI SDK underneath retry on its own
        }
        if request.api_base:
            kwargs["api_base"] = request.api_base
            if self._placeholder_key:
                kwargs["api_key"] = PLACEHOLDER_API_KEY
        if request.seed is not None:
            kwargs["seed"] = request.seed
        if request.response_format == "json":
            kwargs["response_format"] = {"type": "json_object"}
        answers = request.allowed_answers()
        if request.constrain == "grammar" and answers is not None:
            kwargs["extra_body"] = {"grammar": label_grammar(answers)}
        elif request.constrain == "json_schema" and request.labels is not None:
            kwargs["response_format"] = label_json_schema(request.labels)
        return prompt_cache_kwargs(self.spec, request, kwargs)

    def _delay_or_raise(self, litellm: Any, error: Exception, attempt: int, model: str) -> float:
        """The pause before the next attempt, or raise when this error ends the call.

        Errors are classified where they arise: worth retrying (rate limits, timeouts, dropped
        connections, 5xx, an answer that is no completion), or final (a rejected key, a model
        or request the server refuses). Either way, once they end the call they are transport
        failures: the match stays unfinished, never a result."""
        transient = (
            litellm.RateLimitError,
            litellm.Timeout,
            litellm.APIConnectionError,
            litellm.InternalServerError,
            litellm.ServiceUnavailableError,
            litellm.APIError,  # a 5xx or an unreadable body (an HTML error page) without a class
            MalformedResponse,
            ValueError,  # the SDK failed to decode the body (truncated JSON)
        )
        # litellm maps some statuses to a class of their own and others (a 403 from an
        # OpenAI-compatible server) to its generic APIError: the status code decides too.
        code = _status_code(error)
        if (
            isinstance(error, litellm.AuthenticationError)
            or code == 401
            or self._missing_key(litellm, error, model)
        ):
            raise self._auth_error(litellm, error, model) from error
        if isinstance(error, litellm.NotFoundError) or code == 404:
            raise RequestRefused(
                f"provider.model: the server at {self._server()} does not know {model} "
                f"({_first_line(error)}); check the model name (and provider.api_base)"
            ) from error
        if isinstance(error, litellm.PermissionDeniedError) or code == 403:
            raise RequestRefused(
                f"provider.model: the key may not use {model} at {self._server()} "
                f"({_first_line(error)}); check the key's permissions or the model name"
            ) from error
        if isinstance(error, litellm.BadRequestError) or code in (400, 422):
            raise RequestRefused(
                f"provider: the server at {self._server()} refused the request for {model} as "
                f"bad ({_first_line(error)}); check provider.model and the agent's settings "
                "(max_tokens, response_format, constrain)"
            ) from error
        # Any 5xx is worth retrying, whatever class litellm maps it to: its BadGatewayError (a
        # proxy's HTML 502 page) descends from the OpenAI SDK's APIError, not from litellm's.
        server_error = code in range(500, 600)
        if not (isinstance(error, transient) or server_error):
            raise error  # not a provider problem: a bug, with its traceback
        start_it = self._start_the_server_hint(error)
        if start_it:  # nothing listens on this machine's port: no wait changes that, say it now
            raise ProviderUnavailable(f"{model}: the connection was refused{start_it}") from error
        if attempt >= self.spec.max_attempts:
            raise ProviderUnavailable(
                f"{model}: still failing after {attempt} attempts ({type(error).__name__}: "
                f"{_first_line(error)})"
            ) from error
        delay = min(self.backoff_base_s * 2 ** (attempt - 1), self.backoff_max_s)
        asked = None
        rate_limited = isinstance(error, litellm.RateLimitError) or code == 429
        if rate_limited:
            delay, asked = concurrency.rate_limit_pause(
                error, delay, cap_s=self.spec.max_retry_after_s
            )
        why = "rate limited (429)" if rate_limited else type(error).__name__
        line = concurrency.waiting_line(model, why, delay, asked, attempt, self.spec)
        concurrency.say_waiting(delay, line)  # said when long, else logged
        return delay

    def _check_key_once(self, litellm: Any, model: str) -> None:
        """Fail before any call when a hosted model's key is not set: one clear sentence instead
        of an HTTP error. A server at an api_base (a local one often needs no key) gets
        PLACEHOLDER_API_KEY instead. The environment is looked at once; every call of a provider
        without its key fails the same way."""
        if self._missing_keys is None:
            missing = self._missing_env_keys(litellm, model)
            self._placeholder_key = self.spec.api_base is not None and bool(missing)
            self._missing_keys = [] if self.spec.api_base is not None else missing
        if self._missing_keys:
            raise MissingCredentials(
                f"no API key for {model}: set {' or '.join(self._missing_keys)} in the "
                "environment or in .env (see .env.example)"
            )

    def _missing_key(self, litellm: Any, error: Exception, model: str) -> bool:
        """A missing key surfaces as other error types too (the OpenAI SDK refuses to send)."""
        text = str(error).casefold()
        return ("credentials" in text or "api_key" in text) and bool(
            self._missing_env_keys(litellm, model)
        )

    @staticmethod
    def _missing_env_keys(litellm: Any, model: str) -> list[str]:
        try:
            return list(litellm.validate_environment(model=model).get("missing_keys") or [])
        except Exception:
            return []

    def _auth_error(self, litellm: Any, error: Exception, model: str) -> ProviderError:
        missing = self._missing_env_keys(litellm, model)
        if missing:
            return MissingCredentials(
                f"no API key for {model}: set {' or '.join(missing)} (see .env.example)"
            )
        return RequestRefused(
            f"provider: the API key for {model} was rejected by the server at {self._server()} "
            f"({_first_line(error)}); set the right key in the environment or .env"
        )

    def _server(self) -> str:
        """Where the calls go, as the user named it (credentials in the URL are redacted
        when the line is printed)."""
        return self.spec.api_base or "the provider's default URL"

    def _start_the_server_hint(self, error: Exception) -> str:
        """A refused connection to a server on this machine: it is most likely not started."""
        from urllib.parse import urlsplit

        host = urlsplit(self.spec.api_base or "").hostname
        local = host in ("127.0.0.1", "localhost", "::1", "0.0.0.0")
        if not (local and _refused_connection(error)):
            return ""
        return (
            f"; nothing answers at {self.spec.api_base}: start the server first (for the local "
            "model: uv run pdbench serve-local, in another terminal)"
        )

    def _to_completion(self, litellm: Any, response: Any, model: str) -> Completion:
        choices = getattr(response, "choices", None)
        if not choices:
            raise MalformedResponse("the response has no choices", response)
        message = getattr(choices[0], "message", None)
        if message is None or not isinstance(getattr(message, "content", None), str):
            raise MalformedResponse("the response's message has no text content", response)
        usage = getattr(response, "usage", None)
        cached_input_tokens, cache_write_tokens = cache_usage(response)
        return Completion(
            text=message.content or "",
            input_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
            output_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
            cost_usd=self._cost(litellm, response, model),
            reported_model=_text_or_none(getattr(response, "model", None)),
            response_id=_text_or_none(getattr(response, "id", None)),
            system_fingerprint=_text_or_none(getattr(response, "system_fingerprint", None)),
            reasoning=_text_or_none(getattr(message, "reasoning_content", None)),
            cached_input_tokens=cached_input_tokens,
            cache_write_tokens=cache_write_tokens,
        )

    def _cost(self, litellm: Any, response: Any, model: str) -> float | None:
        """The call's price: at the price the config gives (even $0: a free server), else from
        litellm's table; None when unknown."""
        if self.spec.usd_per_million_tokens is not None:
            return cost_at(self.spec.usd_per_million_tokens, response)
        try:
            cost = litellm.completion_cost(completion_response=response)
        except Exception:
            cost = None
        # None: the gateway says so, once per run (ProviderGateway._checked).
        return float(cost) if cost else None


def _status_code(error: BaseException) -> int | None:
    code = getattr(error, "status_code", None)
    return code if isinstance(code, int) else None


def _refused_connection(error: BaseException) -> bool:
    """Nobody answered at all: the connection could not be made (refused), as the HTTP client
    says under litellm's InternalServerError or APIConnectionError. A connection dropped after it
    was made (reset, a server that went away mid-answer) is not this: it is retried."""
    seen: BaseException | None = error
    for _ in range(10):  # the chain of causes, not forever
        if seen is None:
            return False
        if isinstance(seen, ConnectionRefusedError) or (
            type(seen).__name__ in ("ConnectError", "ClientConnectorError")
        ):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _first_line(error: BaseException) -> str:
    """An error's message on one line, cut short (a server's HTML page stays out of the log)."""
    text = " ".join(str(error).split())
    return text if len(text) <= 200 else text[:197] + "..."


def _text_or_none(value: Any) -> str | None:
    """A response attribute as stored: non-empty text, or None when absent or empty."""
    return value if isinstance(value, str) and value else None
