"""Issue 26 and 27: a provider answer no retry can change is a configuration error, over real
HTTP. An unknown model (404), a bad request (400), a rejected key (401) or a forbidden model (403)
ends the run at once with one `error:` line naming the provider field and exit 2, after one
request (nothing retried); a malformed api_base is refused before any call; a refused
connection to a server on this machine says to start it.

`pdbench run` is called in this process (`console_in_process`): litellm is imported once.
"""

from __future__ import annotations

import time

import pytest
from in_process import run_front_door
from project_copy import shared_copy
from silently_wrong_helpers import (
    console_in_process,
    free_port,
    litellm_experiment,
    read_manifest,
    stub_server_class,
    subprocess_env,
)
from stub_http import stub_fixtures

server, stub = stub_fixtures(stub_server_class(), import_litellm=True)


def _experiment(folder, api_base: str, model: str = "openai/gpt-4o-mni"):
    return litellm_experiment(
        folder,
        api_base,
        "  - {name: llm_vs_tft, agent_a: llm_default, agent_b: tft}",
        model=model,
        rounds=3,
        replicates=2,
    )


def _run(config, tmp_path, monkeypatch, *extra: str):
    return console_in_process(
        "run",
        str(config),
        f"run.output_dir={tmp_path / 'runs'}",
        "--run-id",
        "r",
        "-q",
        *extra,
        monkeypatch=monkeypatch,
    )


@pytest.mark.parametrize(
    ("status", "field", "words"),
    [
        (404, "provider.model", "does not know openai/gpt-4o-mni"),
        (400, "provider", "refused the request"),
        (401, "provider", "API key for openai/gpt-4o-mni was rejected"),
        (403, "provider.model", "may not use openai/gpt-4o-mni"),
    ],
)
def test_an_answer_no_retry_can_change_is_a_config_error(
    stub, tmp_path, monkeypatch, status, field, words
):
    stub.reset(script=[(status, "")] * 50)
    config = _experiment(tmp_path, stub.api_base)
    done = _run(config, tmp_path, monkeypatch, "provider.max_attempts=5")
    assert done.returncode == 2, done
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done
    assert f"{field}:" in lines[0] and words in lines[0], done
    assert "run the same command again" not in done.stderr
    # Nothing retried: the first refusal ends the run (matches in flight at that moment may have
    # asked once each, never more).
    assert len(stub.state.requests) <= 2, len(stub.state.requests)
    assert read_manifest(tmp_path / "runs" / "r")["status"] == "failed"


def test_an_api_base_without_a_scheme_is_refused_before_any_call(tmp_path, monkeypatch):
    config = _experiment(tmp_path, "localhost:9/v1")
    started = time.monotonic()
    done = _run(config, tmp_path, monkeypatch, "provider.max_attempts=5")
    took = time.monotonic() - started
    assert done.returncode == 2, done
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "provider.api_base" in lines[0] and "not a URL" in lines[0], done
    assert took < 10, f"{took:.1f} s: it was retried"
    assert not (tmp_path / "runs" / "r").exists(), "a run dir was made for a config error"


def test_a_refused_local_connection_says_to_start_the_server(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "dummy")
    config = _experiment(tmp_path, f"http://127.0.0.1:{free_port()}/v1", model="openai/local")
    done = _run(config, tmp_path, monkeypatch, "provider.max_attempts=1")
    assert done.returncode == 3, done
    assert "pdbench serve-local" in done.stderr, done


def test_an_unknown_price_is_said_once_per_sweep(stub, tmp_path):
    """Issue 26: the warning came once per job of a sweep. The sweep's jobs run in one process
    (Hydra's basic launcher), so the Hydra door is called in this process: litellm is imported
    once per session, not once more for this test."""
    stub.reset()
    done = run_front_door(
        "module",
        [
            "-m",
            "agent_a=llm_default",
            "agent_b=tft,grim,alld",
            "provider=litellm",
            "provider.model=openai/test-model",
            f"provider.api_base={stub.api_base}",
            "horizon.rounds=2",
            "run.replicates=1",
            f"run.output_dir={tmp_path / 'runs'}",
            "run.run_id=s",
            f"hydra.sweep.dir={tmp_path / 'hydra'}",
        ],
        cwd=shared_copy(),
        env=subprocess_env(tmp_path),
    )
    assert done.code == 0, done.stderr
    assert len(list((tmp_path / "runs" / "s" / "shards").iterdir())) == 3  # three jobs ran
    assert stub.state.requests  # and bought answers at the unknown price
    # Hydra routes log records to its console handler (stdout) and job log.
    output = done.stdout + done.stderr
    warned = [line for line in output.splitlines() if "price of openai/test-model" in line]
    assert len(warned) == 1, done.stderr
