"""Issue 33: on 429s the calls in flight adapt down (halved once per burst) and recover by one
slot at a time, and Retry-After (seconds or an HTTP date) holds back every new call. Real
litellm over real HTTP against the stub server, which counts the requests it is answering."""

import asyncio
import time
from email.utils import formatdate
from pathlib import Path

import pytest
from openai_stub_server import StubServer
from stub_http import stub_fixtures

from pdbench.config.schema import ProviderSpec
from pdbench.providers.base import CompletionRequest
from pdbench.providers.concurrency import AdaptiveLimit, rate_limit_pause, retry_after_seconds
from pdbench.providers.gateway import ProviderGateway
from pdbench.providers.litellm import LiteLLMProvider

ROOT = Path(__file__).resolve().parents[2]

server, stub = stub_fixtures(StubServer, import_litellm=True)


def gateway_for(max_concurrency):
    return ProviderGateway(
        max_concurrency=max_concurrency,
        cache_mode="off",
        project_root=ROOT,
        client_factory=lambda spec: LiteLLMProvider(spec, project_root=ROOT, backoff_base_s=0.01),
    )


def requests(stub, n):
    return [
        CompletionRequest(
            provider="litellm",
            model="openai/test-model",
            api_base=stub.api_base,
            system="",
            messages=(("user", f"prompt {i}"),),
            temperature=0.0,
            max_tokens=4,
        )
        for i in range(n)
    ]


async def play(gateway, spec, batch):
    return await asyncio.gather(*(gateway.complete(spec, r) for r in batch))


def test_a_burst_of_429s_halves_the_calls_in_flight_waits_and_recovers(stub):
    stub.state.delay_s = 0.05
    stub.state.retry_after = "1"
    stub.reset(script=[(429, "")] * 8)  # the first 8 requests: rate limited
    stub.state.delay_s, stub.state.retry_after = 0.05, "1"
    spec = ProviderSpec(name="litellm", model="openai/test-model", api_base=stub.api_base)
    gateway = gateway_for(8)
    try:
        answers = asyncio.run(play(gateway, spec, requests(stub, 64)))
    finally:
        stub.state.delay_s = 0.0
    assert len(answers) == 64 and all(a.text == "C" for a in answers)
    arrivals = stub.state.arrivals
    assert max(n for _, n, _ in arrivals) == 8  # all 8 slots used before the 429s
    last_429 = max(t for t, _, status in arrivals if status == 429)
    after = [(t, n) for t, n, status in arrivals if t > last_429]
    # Retry-After: 1 held every call back, not only the ones that were told
    assert after[0][0] - last_429 >= 0.9
    # one cut for the whole burst: 8 -> 4 (not 8 -> 1 for eight 429s), then back up by one at a time
    assert gateway.limit.cuts == 1
    first_after = [n for _, n in after[:8]]
    assert max(first_after) <= 4
    assert max(n for _, n in after) > 4  # recovered
    assert gateway.limit.limit > 4


def test_retry_after_as_an_http_date_is_honoured(stub):
    stub.reset(script=[(429, "")])
    stub.state.retry_after = formatdate(time.time() + 2, usegmt=True)  # HTTP-date, 1 s resolution
    spec = ProviderSpec(name="litellm", model="openai/test-model", api_base=stub.api_base)
    gateway = gateway_for(2)
    started = time.monotonic()
    asyncio.run(play(gateway, spec, requests(stub, 1)))
    (first, _, status), (second, _, ok) = stub.state.arrivals
    assert (status, ok) == (429, 200)
    assert second - first >= 0.9  # the date is 1-2 s away, not the 0.01 s backoff
    assert time.monotonic() - started < 10


class _Headers(dict):
    def get(self, key, default=None):
        return super().get(key.lower(), default)


class _Error(Exception):
    def __init__(self, headers):
        super().__init__("429")
        self.litellm_response_headers = _Headers(headers)


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"retry-after": "3"}, 3.0),
        ({"retry-after": "Thu, 01 Jan 1970 00:00:10 GMT"}, 5.0),  # now = 5 s after the epoch
        ({"retry-after-ms": "250"}, 0.25),
        ({"retry-after": "soon"}, None),
        ({}, None),
        ({"retry-after": "-4"}, 0.0),
    ],
)
def test_retry_after_is_read_in_both_forms(headers, expected):
    assert retry_after_seconds(_Error(headers), now=lambda: 5.0) == expected


def test_the_limit_halves_once_per_epoch_and_grows_by_one_per_limit_successes():
    limit = AdaptiveLimit(8)
    limit.rate_limited(0, None)
    limit.rate_limited(0, None)  # the same burst
    assert (limit.limit, limit.cuts) == (4, 1)
    limit.rate_limited(1, None)
    assert limit.limit == 2
    for _ in range(2):
        limit.succeeded()
    assert limit.limit == 3
    for _ in range(3):
        limit.succeeded()
    assert limit.limit == 4


# --- a Retry-After of minutes (issue 40) -------------------------------------------------------


def test_a_retry_after_of_minutes_is_capped_by_default():
    asked = _Error({"retry-after": "600"})
    assert ProviderSpec().max_retry_after_s == 60.0  # the documented default
    assert retry_after_seconds(asked) == 600.0  # what the server asked, as it asked it
    assert rate_limit_pause(asked, 1.0, cap_s=ProviderSpec().max_retry_after_s) == (60.0, 600.0)


def test_a_long_wait_is_said_with_how_to_stop_and_its_cap_is_configurable(stub):
    stub.reset(script=[(429, "")] * 3)  # three calls rate limited at once, then answered
    stub.state.retry_after = "600"
    spec = ProviderSpec(
        name="litellm", model="openai/test-model", api_base=stub.api_base, max_retry_after_s=6.0
    )
    said: list[str] = []
    waits: list[float] = []
    gateway = ProviderGateway(
        max_concurrency=3,
        cache_mode="off",
        project_root=ROOT,
        client_factory=lambda spec: FastWaits(spec, waits),
        warn=said.append,
    )
    answers = asyncio.run(play(gateway, spec, requests(stub, 3)))
    assert [a.text for a in answers] == ["C"] * 3
    # each call waited the cap, not the 600 s asked
    assert waits == [6.0] * 3
    # one line for the pause (not one per rate-limited call): what, how long, how to stop
    waits = [line for line in said if "429" in line]
    assert len(waits) == 1, said
    line = waits[0]
    assert "openai/test-model" in line and "rate limited (429)" in line
    assert "asks to wait 600 s" in line and "waiting 6 s" in line
    assert "provider.max_retry_after_s" in line
    assert "Ctrl-C" in line and "the same command resumes" in line


class FastWaits(LiteLLMProvider):
    """The provider as it is, but its pauses are recorded instead of slept through (the test
    asserts on the wait asked, not on time)."""

    def __init__(self, spec: ProviderSpec, waits: list[float]) -> None:
        super().__init__(spec, project_root=ROOT)
        self.waits = waits

    async def _pause(self, seconds: float) -> None:
        self.waits.append(seconds)
