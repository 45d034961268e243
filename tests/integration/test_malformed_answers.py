"""Malformed answers are transport failures (issue 21): an answer that is no completion (empty
choices, null content, an HTML error page, truncated JSON) is retried, then the call fails with a
`TransportFailure`, which leaves the match unfinished and resumable; never a traceback, never a
result. Real litellm over real HTTP against a stub on 127.0.0.1; the run-level behaviour through
the real command line."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from raw_stub_server import GOOD, MALFORMED, RawStubServer
from stub_http import stub_fixtures

from pdbench.config.schema import ProviderSpec
from pdbench.providers.base import CompletionRequest, TransportFailure
from pdbench.providers.litellm import LiteLLMProvider

ROOT = Path(__file__).resolve().parents[2]


server, stub = stub_fixtures(RawStubServer, import_litellm=True)


def ask(stub: RawStubServer, attempts: int = 2):
    spec = ProviderSpec(
        name="litellm", model="openai/test-model", api_base=stub.api_base, max_attempts=attempts
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


# --- through the command line: the match stays unfinished, the same command resumes it --------

EXPERIMENT = """\
run: {{replicates: 2, seed: 3}}
provider: {{name: litellm, model: openai/test-model, api_base: "{api_base}", max_attempts: 2}}
persona: cooperative
horizon: {{type: fixed, rounds: 3}}
conditions:
  - {{name: llm_vs_tft, agent_a: llm_default, agent_b: tft}}
"""


def pdbench(tmp_path: Path, config: Path) -> subprocess.CompletedProcess[str]:
    command = [str(Path(sys.executable).with_name("pdbench")), "run", str(config), "-q"]
    return subprocess.run(
        [*command, f"run.output_dir={tmp_path / 'runs'}", "--run-id", "malformed"],
        cwd=ROOT,
        env={**os.environ, "OPENAI_API_KEY": "dummy"},
        capture_output=True,
        text=True,
        timeout=180,
    )


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["empty_choices", "html_502"])
def test_a_run_ends_incomplete_without_a_traceback_and_resumes(stub, tmp_path, kind):
    config = tmp_path / "experiment.yaml"
    config.write_text(EXPERIMENT.format(api_base=stub.api_base))
    stub.default = MALFORMED[kind]
    first = pdbench(tmp_path, config)
    assert first.returncode == 3, first.stderr
    assert "Traceback" not in first.stdout + first.stderr
    assert first.stderr.strip().splitlines()[-1] == (
        "2 matches wait: run the same command again to resume them"
    )
    run_dir = tmp_path / "runs" / "malformed"
    assert orjson.loads((run_dir / "run_manifest.json").read_bytes())["status"] == "incomplete"
    ledger = run_dir / "matches.jsonl"  # no result from a malformed answer
    assert not ledger.exists() or ledger.read_bytes() == b""

    stub.default = GOOD
    again = pdbench(tmp_path, config)
    assert again.returncode == 0, again.stderr
    ledger = [orjson.loads(line) for line in (run_dir / "matches.jsonl").read_bytes().splitlines()]
    assert sorted(entry["replicate"] for entry in ledger) == [0, 1]
    assert orjson.loads((run_dir / "run_manifest.json").read_bytes())["status"] == "complete"
