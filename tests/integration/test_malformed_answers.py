"""Malformed answers are transport failures (issue 21): an answer that is no completion (empty
choices, null content, an HTML error page, truncated JSON) is retried, then the call fails with a
`TransportFailure`, which leaves the match unfinished and resumable; never a traceback, never a
result. Real litellm over real HTTP against a stub on 127.0.0.1; the run-level behaviour through
the real command line (run in the test process)."""

from __future__ import annotations

import asyncio
import os
import re
import time
from pathlib import Path

import orjson
import pytest
from in_process import Ran, run_front_door
from raw_stub_server import CHARGED_WITHOUT_TEXT, GOOD, MALFORMED, RawStubServer
from stub_http import stub_fixtures

from pdbench.config.schema import ProviderSpec
from pdbench.providers.base import CompletionRequest, ProviderUnavailable, TransportFailure
from pdbench.providers.gateway import ProviderGateway
from pdbench.providers.litellm import LiteLLMProvider
from pdbench.storage.spend import SpendJournal

ROOT = Path(__file__).resolve().parents[2]


server, stub = stub_fixtures(RawStubServer, import_litellm=True)


def ask(stub: RawStubServer, attempts: int = 2, timeout_s: float = 60.0):
    spec = ProviderSpec(
        name="litellm",
        model="openai/test-model",
        api_base=stub.api_base,
        max_attempts=attempts,
        timeout_s=timeout_s,
    )
    client = LiteLLMProvider(spec, project_root=ROOT, backoff_base_s=0.01)
    request = CompletionRequest(
        provider="litellm",
        model="openai/test-model",
        api_base=stub.api_base,
        system="You play a game.",
        messages=(("user", "Round 1. Answer with exactly one of: C, D."),),
        temperature=0.0,
        max_tokens=16,
    )
    return asyncio.run(client.acomplete(request))


@pytest.mark.parametrize("kind", sorted(MALFORMED))
def test_a_malformed_answer_is_retried_and_then_a_good_one_is_used(stub, kind):
    stub.script[:] = [MALFORMED[kind]]
    completion = ask(stub, attempts=2)
    assert completion.text == "C"
    assert stub.requests == 2  # the malformed answer, then its retry


@pytest.mark.parametrize("kind", sorted(MALFORMED))
def test_a_malformed_answer_that_persists_is_a_transport_failure(stub, kind):
    stub.default = MALFORMED[kind]
    with pytest.raises(TransportFailure) as failure:
        ask(stub, attempts=3)
    assert stub.requests == 3  # every attempt was made, none more
    message = str(failure.value)
    assert "\n" not in message and len(message) < 400, message  # one line, no HTML page


def spent_on(stub: RawStubServer, first: tuple, tmp_path: Path):
    """What the spend journal counts for one request answered `first`, then a good answer."""
    stub.script[:] = [first]
    journal = SpendJournal(tmp_path / "spend.jsonl")
    gateway = ProviderGateway(cache_dir=tmp_path / "cache", spend=journal)
    gateway._client_factory = lambda spec: LiteLLMProvider(spec, backoff_base_s=0.01)
    spec = ProviderSpec(
        name="litellm", model="openai/test-model", api_base=stub.api_base, max_attempts=2
    )
    request = CompletionRequest(
        provider="litellm",
        model="openai/test-model",
        api_base=stub.api_base,
        system="You play a game.",
        messages=(("user", "Round 1. Answer with exactly one of: C, D."),),
        temperature=0.0,
        max_tokens=16,
    )
    try:
        completion = asyncio.run(gateway.complete(spec, request))
    finally:
        gateway.close()
    assert completion.text == "C" and stub.requests == 2  # the retry got a good answer
    return SpendJournal(tmp_path / "spend.jsonl").total()


@pytest.mark.parametrize("kind", sorted(CHARGED_WITHOUT_TEXT))
def test_an_answer_charged_for_without_text_is_counted_as_paid(stub, kind, tmp_path):
    """Issue 27: tool calls, an event stream, bytes that are not UTF-8: answers a provider bills
    that carry no usable text were retried but never counted, so every resume bought them again
    uncounted. They are journaled as paid (never cached): the spend and the budget see them."""
    spent = spent_on(stub, CHARGED_WITHOUT_TEXT[kind], tmp_path)
    assert spent.live == 2, spent  # both answers were paid for
    # (test-model has no price in litellm's table: both calls at an unknown price)
    assert spent.unknown_price == 2
    if kind == "tool_calls":  # its usage is known, and counted
        assert (spent.input_tokens, spent.output_tokens) == (100_000 + 10, 50 + 1)
    else:  # the body could not be read: a paid call with unknown usage
        assert (spent.input_tokens, spent.output_tokens) == (10, 1)


def test_a_proxys_error_page_is_not_counted_as_paid(stub, tmp_path):
    """An HTML page with status 200 (a proxy, not the model) says nothing of a bill."""
    assert spent_on(stub, MALFORMED["html_200"], tmp_path).live == 1


def test_timeout_s_is_a_deadline_for_the_whole_answer(stub):
    """Issue 27: a body sent one byte at a time never timed out (killed at 75 s): each read was
    quick, and the timeout was per read. It is a deadline for the whole answer, then retried
    like any timeout."""
    stub.trickle_s = 0.25  # the ~200-byte answer would take 50 s
    started = time.monotonic()
    # A 1.5 s deadline (was 3 s): still six trickled bytes per attempt, each read quick next to
    # it, so only a deadline for the whole answer ends an attempt
    with pytest.raises(ProviderUnavailable, match=r"after 2 attempts .*timeout_s=1.5 s"):
        ask(stub, attempts=2, timeout_s=1.5)
    elapsed = time.monotonic() - started
    assert elapsed < 20, elapsed  # two attempts of 1.5 s, on a busy machine


# --- through the command line: the match stays unfinished, the same command resumes it --------

EXPERIMENT = """\
run: {{replicates: 2, seed: 3}}
provider: {{name: litellm, model: openai/test-model, api_base: "{api_base}", max_attempts: 2}}
persona: cooperative
horizon: {{type: fixed, rounds: 3}}
conditions:
  - {{name: llm_vs_tft, agent_a: llm_default, agent_b: tft}}
"""


def pdbench(tmp_path: Path, config: Path) -> Ran:
    """`pdbench run` as typed, run in this process (what is tested is the run's outcome, not the
    process: tests/e2e keeps the process contract; a process here cost seconds of CPU each)."""
    args = [
        "run",
        str(config),
        "-q",
        f"run.output_dir={tmp_path / 'runs'}",
        "--run-id",
        "malformed",
    ]
    env = {**os.environ, "OPENAI_API_KEY": "dummy", "PDBENCH_CACHE_DIR": str(tmp_path / "cache")}
    return run_front_door("cli", args, cwd=ROOT, env=env)


def pdbench_lines(stderr: str) -> list[str]:
    """stderr without Python's warning blocks ("file.py:N: XWarning: ..." and its source line),
    which the in-process run writes when the command ends rather than when raised."""
    lines = stderr.strip().splitlines()
    return [
        line
        for i, line in enumerate(lines)
        if not re.match(r"\S+\.py:\d+: \w*Warning: ", line)
        and not (i and re.match(r"\S+\.py:\d+: \w*Warning: ", lines[i - 1]))
    ]


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["empty_choices", "html_502"])
def test_a_run_ends_incomplete_without_a_traceback_and_resumes(stub, tmp_path, kind):
    config = tmp_path / "experiment.yaml"
    config.write_text(EXPERIMENT.format(api_base=stub.api_base))
    stub.default = MALFORMED[kind]
    first = pdbench(tmp_path, config)
    assert first.code == 3, first.stderr
    assert "Traceback" not in first.stdout + first.stderr
    assert pdbench_lines(first.stderr)[-1] == (
        "2 matches wait: run the same command again to resume them"
    )
    run_dir = tmp_path / "runs" / "malformed"
    assert orjson.loads((run_dir / "run_manifest.json").read_bytes())["status"] == "incomplete"
    ledger = run_dir / "matches.jsonl"  # no result from a malformed answer
    assert not ledger.exists() or ledger.read_bytes() == b""

    stub.default = GOOD
    again = pdbench(tmp_path, config)
    assert again.code == 0, again.stderr
    ledger = [orjson.loads(line) for line in (run_dir / "matches.jsonl").read_bytes().splitlines()]
    assert sorted(entry["replicate"] for entry in ledger) == [0, 1]
    assert orjson.loads((run_dir / "run_manifest.json").read_bytes())["status"] == "complete"
