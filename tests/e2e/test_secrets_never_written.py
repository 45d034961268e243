"""Planted keys are written nowhere (issue 21): a key in the environment (OPENAI_API_KEY), in the
project's .env, in provider.api_base (https://user:key@host and ?api_key=...) or given as a
command-line override never appears in any file under the run's output dir, Hydra's outputs/ or
the project, nor on the terminal. Real command lines in a copy of the project, an
OpenAI-compatible stub on 127.0.0.1, and every file written read back byte for byte."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from bad_input_corpus import copy_project

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration"))
from raw_stub_server import RawStubServer
from stub_http import completion_body

ENV_KEY = "sk-planted-env-4f1c9e"
DOTENV_KEY = "sk-planted-dotenv-7a2b5d"
URL_KEY = "sk-planted-url-93de01"
QUERY_KEY = "sk-planted-query-c8e472"
OVERRIDE_KEY = "sk-planted-override-5b61f0"
ECHOED_KEY = "sk-echoed-by-the-server-0d93"  # in no variable: only its shape says it is a key
HEADER_KEY = "hdr-planted-7e21c4"  # no known shape: only the header's name says it
PASTED_KEY = "sk-pasted-into-a-persona-61ab"  # in a prompt file, in no variable
PLANTED = (
    ENV_KEY, DOTENV_KEY, URL_KEY, QUERY_KEY, OVERRIDE_KEY, ECHOED_KEY, HEADER_KEY, PASTED_KEY
)  # fmt: skip


@pytest.fixture(scope="module")
def stub():
    with RawStubServer() as server:
        yield server


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A copy of the project with a .env holding a key (the one file allowed to hold it)."""
    root = tmp_path / "proj"
    copy_project(root)
    (root / ".env").write_text(f"ANTHROPIC_API_KEY={DOTENV_KEY}\n")
    return root


def keyed_url(stub: RawStubServer) -> str:
    return stub.api_base.replace("http://", f"http://pdbench:{URL_KEY}@")


def pdbench(project: Path, *args: str, module: bool = False) -> subprocess.CompletedProcess[str]:
    entry = [sys.executable, "-m", "pdbench"] if module else [_script()]
    return subprocess.run(
        [*entry, *args],
        cwd=project,
        env={**os.environ, "OPENAI_API_KEY": ENV_KEY},
        capture_output=True,
        text=True,
        timeout=240,
    )


def pdbench_here(
    project: Path, *args: str, module: bool = False
) -> subprocess.CompletedProcess[str]:
    """The same command run in this process (tests/in_process.py: the same entry function,
    argv, working folder and environment; its exit code and everything it prints to stdout and
    stderr). Where a key could go is the files and the two streams, both still read. One real
    process per front door stays, where a real process's reading of its environment and .env
    is the point: `pdbench run` over litellm with a keyed URL (the console script) and the
    policy sweep with URL credentials (`python -m pdbench -m`)."""
    from in_process import run_front_door

    ran = run_front_door(
        "module" if module else "cli",
        list(args),
        cwd=project,
        env={**os.environ, "OPENAI_API_KEY": ENV_KEY},
    )
    return subprocess.CompletedProcess(list(args), ran.code, ran.stdout, ran.stderr)  # type: ignore[arg-type]


def _script() -> str:
    return str(Path(sys.executable).with_name("pdbench"))


def leaks(root: Path, *outputs: subprocess.CompletedProcess[str]) -> list[str]:
    """Where a planted key appears: files under `root` (the .env aside) and the terminal."""
    found = []
    for path in sorted(root.rglob("*")):
        if path.is_file() and path.name != ".env":
            data = path.read_bytes()
            found += [f"{path.relative_to(root)}: {key}" for key in PLANTED if key.encode() in data]
    for number, done in enumerate(outputs):
        found += [
            f"terminal {number}: {key}" for key in PLANTED if key in done.stdout + done.stderr
        ]
    return found


def test_a_key_in_the_url_environment_and_dotenv_is_written_nowhere(stub, project, tmp_path):
    """Over litellm the keyed URL fails (litellm's aiohttp transport refuses credentials in a
    URL next to its Authorization header): the error reaches the terminal and the manifest. On
    the mock the same URL runs to the end: rounds, ledger, manifest, aggregates, summary."""
    out = tmp_path / "runs"
    config = ("run", "tests/fixtures/bad_input/run/llm.yaml", f"run.output_dir={out}")
    keyed = f"provider.api_base='{keyed_url(stub)}'"
    over_litellm = pdbench(
        project, *config, keyed, "provider=litellm", "provider.model=openai/test-model",
        "provider.max_attempts=2",
    )  # fmt: skip
    assert over_litellm.returncode == 3, over_litellm.stderr
    assert "1 matches wait" in over_litellm.stderr
    on_the_mock = pdbench_here(project, *config, keyed)
    assert on_the_mock.returncode == 0, on_the_mock.stderr
    manifests = [path.read_text() for path in out.glob("*/run_manifest.json")]
    assert len(manifests) == 2
    assert all("http://***@127.0.0.1" in manifest for manifest in manifests)  # server named
    assert leaks(tmp_path, over_litellm, on_the_mock) == []


def test_a_secret_query_parameter_is_written_nowhere(project, tmp_path):
    out = tmp_path / "runs"
    url = f"http://127.0.0.1:9/v1?api_key={QUERY_KEY}&region=eu"
    done = pdbench_here(
        project,
        "run",
        "tests/fixtures/bad_input/run/llm.yaml",
        f"provider.api_base='{url}'",
        f"run.output_dir={out}",
    )
    assert done.returncode == 0, done.stderr
    manifest = next(out.glob("*/run_manifest.json")).read_text()
    assert "api_key=***&region=eu" in manifest
    assert leaks(tmp_path, done) == []


@pytest.mark.parametrize("module", [False, True], ids=["pdbench_run", "hydra_door"])
def test_a_key_given_as_an_override_is_refused_without_echoing_it(project, tmp_path, module):
    out = tmp_path / "runs"
    overrides = (
        "agent_a=llm_default",
        f"+provider.api_key={OVERRIDE_KEY}",
        f"run.output_dir={out}",
    )
    if module:
        done = pdbench_here(project, *overrides, module=True)
    else:
        done = pdbench_here(project, "run", "conf/config.yaml", *overrides)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "api_key" in lines[0], lines
    assert leaks(tmp_path, done) == []


def test_hydra_keeps_no_config_snapshot_and_no_key_in_its_outputs(stub, project, tmp_path):
    """A single run and a sweep through `python -m pdbench` (on the mock, with a keyed URL):
    Hydra's outputs/ folder holds no .hydra/ snapshot, and its job log and the sweep's
    multirun.yaml hold no key."""
    out = tmp_path / "runs"
    common = (
        "agent_a=llm_default",
        f"provider.api_base='{keyed_url(stub)}'",
        "run.replicates=1",
        "horizon.rounds=2",
        f"run.output_dir={out}",
    )
    single = pdbench_here(project, *common, module=True)
    assert single.returncode == 0, single.stderr
    # The sweep in this process too (Hydra's basic launcher runs its jobs here): what is checked
    # is what Hydra and the jobs write; the Hydra door's real process is the sweep of
    # test_url_credentials_in_a_sweep_are_written_nowhere.
    sweep = pdbench_here(project, "-m", *common, "agent_b=tft,alld", module=True)
    assert sweep.returncode == 0, sweep.stderr
    outputs = project / "outputs"
    assert outputs.is_dir()
    assert list(outputs.rglob(".hydra")) == []
    multirun = list(outputs.rglob("multirun.yaml"))
    assert len(multirun) == 1 and "http://***@127.0.0.1" in multirun[0].read_text()
    assert leaks(tmp_path, single, sweep) == []


def test_a_key_the_server_echoes_is_stored_nowhere(stub, project, tmp_path, monkeypatch):
    """Issue 27: the answer's text went into the replay cache and spend.jsonl unredacted. The
    server echoes the request's bearer key (from the environment) and a key-shaped string."""
    echo = f"Authorization: Bearer {ENV_KEY}; other key {ECHOED_KEY}\nC"
    monkeypatch.setenv("PDBENCH_CACHE_DIR", str(tmp_path / "cache"))  # looked at by leaks()
    stub.reset()
    stub.default = (200, "application/json", completion_body(echo))
    out = tmp_path / "runs"
    # In this process: the answer goes over litellm and HTTP to the stub as before, and what is
    # checked is what the cache and spend.jsonl store; the console door's real process over
    # litellm is test_a_key_in_the_url_environment_and_dotenv_is_written_nowhere's.
    done = pdbench_here(
        project, "run", "conf/config.yaml", f"run.output_dir={out}", "agent_a=llm_default",
        "agent_a.response_format=reasoning", "provider=litellm",
        f"provider.api_base='{stub.api_base}'", "provider.model=openai/test-model",
        "run.replicates=1", "horizon.rounds=2",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert stub.requests > 0
    cache = list((tmp_path / "cache").rglob("cache.db"))
    spend = list(out.rglob("spend.jsonl"))
    assert cache and spend  # the two files that were written unredacted
    assert b"Bearer ***" in spend[0].read_bytes()
    assert leaks(tmp_path, done) == []


@pytest.mark.parametrize("module", [False, True], ids=["pdbench_run", "hydra_door"])
def test_a_header_holding_a_key_is_refused_without_echoing_it(project, tmp_path, module):
    """Issue 27: the refusal of `+provider.extra_headers={Authorization: ...}` printed the token."""
    header = (
        f'+provider.extra_headers={{Authorization: "Bearer {HEADER_KEY}", X-Api-Key: {HEADER_KEY}}}'
    )
    overrides = ("agent_a=llm_default", header, f"run.output_dir={tmp_path / 'runs'}")
    if module:
        done = pdbench_here(project, *overrides, module=True)
    else:
        done = pdbench_here(project, "run", "conf/config.yaml", *overrides)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "extra_headers" in lines[0]
    assert leaks(tmp_path, done) == []


def test_url_credentials_in_a_sweep_are_written_nowhere(project, tmp_path):
    """Issue 26/27: a sweep's overrides carry the api_base in Hydra's escaped form
    (`https\\://user\\:KEY@`), which redaction did not see: the key went into run_manifest.json,
    every shard manifest and Hydra's launch lines. Policies only: no call is made, and the host
    (example.invalid) cannot resolve by design."""
    out = tmp_path / "runs"
    url = f"https://user:{URL_KEY}@example.invalid/v1"
    sweep = pdbench(
        project, "-m", "agent_a=tft,grim", "agent_b=alld", f"provider.api_base={url}",
        "run.replicates=1", "horizon.rounds=2", f"run.output_dir={out}", module=True,
    )  # fmt: skip
    assert sweep.returncode == 0, sweep.stderr
    manifests = list(out.rglob("run_manifest.json"))
    assert len(manifests) == 3  # the sweep's and its two shards'
    assert all("***@example.invalid" in path.read_text() for path in manifests)
    assert "***@example.invalid" in sweep.stdout + sweep.stderr  # Hydra's launch lines
    assert leaks(tmp_path, sweep) == []


def test_a_key_pasted_into_a_persona_file_is_said_and_not_written(project, tmp_path):
    """Issue 27: a key pasted into a persona file (no variable holds it) was written into
    rounds.jsonl with every prompt, without a word."""
    persona = project / "prompts" / "personas" / "pasted.md"
    persona.write_text(f"You cooperate. (My OpenAI key, for later: {PASTED_KEY})\n")
    out = tmp_path / "runs"
    done = pdbench_here(
        project, "run", "conf/config.yaml", "agent_a=llm_default", "agent_a.persona=pasted", "run.replicates=1", "horizon.rounds=2",
        f"run.output_dir={out}",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if line.startswith("warning: ")]
    assert len(warnings) == 1, done.stderr
    assert "prompts/personas/pasted.md" in warnings[0] and "shaped like a key" in warnings[0]
    rounds = next(out.rglob("rounds.jsonl")).read_text()
    assert "My OpenAI key, for later: ***" in rounds  # the prompt is stored, the key is not
    assert leaks(tmp_path, done) == [f"proj/prompts/personas/pasted.md: {PASTED_KEY}"]
