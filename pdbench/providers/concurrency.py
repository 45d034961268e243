"""How many provider calls may be in flight: at most `run.max_concurrency`, fewer while the
provider says it is rate limited (issue 33).

As inspect_ai's adaptive concurrency does, the limit is cut in half when a call is answered 429
(one cut per burst: the 429s of calls already in flight when it was cut do not cut it again) and
grows back by one after as many calls as the limit succeed without a rate limit (additive
increase, multiplicative decrease, as TCP does). A `Retry-After` header (seconds, or an HTTP date)
holds back every new call until it has passed, not only the call that was told, for at most
`provider.max_retry_after_s`; a pause of SAY_WAITS_FROM_S or more is said in one line.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextvars import ContextVar
from datetime import UTC
from email.utils import parsedate_to_datetime
from typing import Any

log = logging.getLogger(__name__)

# A pause before a retry at least this long is said in one line (what, how long, how to stop);
# shorter ones pass unsaid.
SAY_WAITS_FROM_S = 5.0


def retry_after_seconds(
    error: BaseException, *, now: Callable[[], float] = time.time
) -> float | None:
    """The pause a rate-limited answer asks for, as it asks it: its `retry-after-ms` or
    `Retry-After` header (delay-seconds or an HTTP-date), read from litellm's response headers
    or the HTTP response; None when it asks for none (or for something that is no pause). The
    caller caps it (`provider.max_retry_after_s`, see `rate_limit_pause`)."""
    for headers in (
        getattr(error, "litellm_response_headers", None),
        getattr(getattr(error, "response", None), "headers", None),
    ):
        if headers is None:
            continue
        try:
            milliseconds = headers.get("retry-after-ms")
            value = headers.get("retry-after")
        except Exception:
            continue
        seconds = _seconds(milliseconds, value, now)
        if seconds is not None:
            return seconds
    return None


def _seconds(milliseconds: Any, value: Any, now: Callable[[], float]) -> float | None:
    if milliseconds is not None:
        with contextlib.suppress(TypeError, ValueError):
            return max(float(milliseconds) / 1000.0, 0.0)
    if value is None:
        return None
    text = str(value).strip()
    try:
        return max(float(text), 0.0)
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(when.timestamp() - now(), 0.0)


class AdaptiveLimit:
    """A limit on calls in flight that halves on rate limits and recovers additively."""

    def __init__(
        self,
        maximum: int,
        *,
        clock: Callable[[], float] = time.monotonic,
        say: Callable[[str], None] | None = None,
    ) -> None:
        """`say` tells the user one line about a long pause (default: the log)."""
        if maximum < 1:
            raise ValueError(f"max_concurrency must be at least 1, got {maximum}")
        self.maximum = maximum
        self.limit = maximum
        self.in_flight = 0
        self.cuts = 0  # times the limit was cut, for the record
        self._clock = clock
        self._successes = 0  # since the limit last changed
        self._epoch = 0  # bumped at each cut: a call started before it cannot cut again
        self._resume_at = 0.0  # no new call before this (Retry-After)
        self._said_until = 0.0  # the end of the last pause said: one line per pause, not per call
        self._say = say or log.warning
        self._conditions: dict[asyncio.AbstractEventLoop, asyncio.Condition] = {}

    def _condition(self) -> asyncio.Condition:
        # One per event loop: a gateway may serve several asyncio.run() calls.
        loop = asyncio.get_running_loop()
        if loop not in self._conditions:
            self._conditions = {loop: asyncio.Condition()}
        return self._conditions[loop]

    async def _acquire(self) -> None:
        condition = self._condition()
        async with condition:
            while True:
                pause = self._resume_at - self._clock()
                if self.in_flight < self.limit and pause <= 0:
                    break
                if pause > 0:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(condition.wait(), pause)
                else:
                    await condition.wait()
            self.in_flight += 1

    async def _release(self) -> None:
        condition = self._condition()
        async with condition:
            self.in_flight -= 1
            condition.notify_all()

    @contextlib.asynccontextmanager
    async def slot(self) -> AsyncIterator[CallSlot]:
        """Hold one of the `limit` slots for one call (its retries included)."""
        await self._acquire()
        call = CallSlot(self, self._epoch)
        try:
            yield call
        finally:
            await self._release()

    async def paused(self, call: CallSlot, seconds: float) -> None:
        """A call's backoff: its slot is given up while it waits and taken again (under the
        limit as it is then, after any Retry-After) before it retries."""
        await self._release()
        try:
            await asyncio.sleep(seconds)
        finally:
            try:
                await self._acquire()
            except asyncio.CancelledError:
                self.in_flight += 1  # the slot's own release still comes: keep the count whole
                raise
        call.epoch = self._epoch

    def rate_limited(self, started_epoch: int, retry_after: float | None) -> None:
        """A call that started in `started_epoch` was answered 429 (asking to wait
        `retry_after` seconds, when it says)."""
        if retry_after is not None:
            self._resume_at = max(self._resume_at, self._clock() + retry_after)
        if started_epoch == self._epoch and self.limit > 1:
            self.limit = max(1, self.limit // 2)
            self.cuts += 1
            self._epoch += 1
            self._successes = 0

    def say_waiting(self, seconds: float, message: str) -> None:
        """Say `message` about a pause of `seconds`, unless a pause said before is still
        running (the calls of a burst all wait: the user is told once)."""
        now = self._clock()
        if now < self._said_until:
            return
        self._said_until = now + seconds
        self._say(message)

    def succeeded(self) -> None:
        """A call was answered without a rate limit: after `limit` of them, one more slot."""
        if self.limit >= self.maximum:
            return
        self._successes += 1
        if self._successes >= self.limit:
            self.limit += 1
            self._successes = 0
            # the waiting calls look again when this call releases its slot


class CallSlot:
    """One call's hold on the limit: the epoch it (re)started in, and its rate limits."""

    def __init__(self, limit: AdaptiveLimit, epoch: int) -> None:
        self.limit = limit
        self.epoch = epoch
        self.rate_limits = 0

    def rate_limited(self, retry_after: float | None) -> None:
        self.rate_limits += 1
        self.limit.rate_limited(self.epoch, retry_after)

    async def backoff(self, seconds: float) -> None:
        await self.limit.paused(self, seconds)


# The call being made in this asyncio task, as the gateway set it: a provider that is answered
# 429 reports it here (as inspect_ai's report_http_retry does), without knowing the gateway.
_current_call: ContextVar[CallSlot | None] = ContextVar("pdbench_current_call", default=None)


def report_rate_limit(retry_after: float | None) -> None:
    """Say that the current call was rate limited (a 429), asking to wait `retry_after` s."""
    call = _current_call.get()
    if call is not None:
        call.rate_limited(retry_after)


async def backoff(seconds: float) -> None:
    """A provider's pause before its next attempt; within a gateway call the call's slot is
    free meanwhile, so the calls in flight really go down to the cut limit."""
    call = _current_call.get()
    if call is None:
        await asyncio.sleep(seconds)
    else:
        await call.backoff(seconds)


@contextlib.contextmanager
def current_call(call: CallSlot) -> Iterator[None]:
    """Make `call` the one providers report to in this block (this task)."""
    token = _current_call.set(call)
    try:
        yield
    finally:
        _current_call.reset(token)


def say_waiting(seconds: float, message: str) -> None:
    """Tell the user about a pause of the current call of SAY_WAITS_FROM_S or more (once per
    pause, see AdaptiveLimit.say_waiting); a shorter one, or one outside a gateway call, goes to
    the log."""
    call = _current_call.get()
    if call is None or seconds < SAY_WAITS_FROM_S:
        log.warning("%s", message)
    else:
        call.limit.say_waiting(seconds, message)


def waiting_line(
    model: str, why: str, seconds: float, asked: float | None, attempt: int, spec: Any
) -> str:
    """The line that says a call's pause before its next attempt: what happened, how long the
    server asked (when more than the cap) and how long the call waits, and how to stop."""
    if asked is not None and asked > seconds:
        why += f": the server asks to wait {asked:g} s; waiting {seconds:g} s"
        why += " (provider.max_retry_after_s)"
    else:
        why += f": waiting {seconds:g} s"
    return (
        f"{model}: {why} before attempt {attempt + 1} of {spec.max_attempts}; Ctrl-C stops the "
        "run (what finished is kept, the same command resumes it)"
    )


def rate_limit_pause(
    error: BaseException, backoff_s: float, *, cap_s: float
) -> tuple[float, float | None]:
    """Report a 429 to the gateway (which halves the calls in flight and holds new ones back for
    its Retry-After) and return (the pause before this call's next attempt, the pause the server
    asked for or None): the Retry-After, at most `cap_s` (a server may ask for minutes, or its
    clock be far off), else the exponential backoff."""
    asked = retry_after_seconds(error)
    wait = None if asked is None else min(asked, cap_s)
    report_rate_limit(wait)
    return (backoff_s if wait is None else wait), asked
