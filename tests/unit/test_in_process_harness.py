"""tests/in_process.py runs a front door in the test process as a subprocess would run it, and
puts back whatever the command changed: a case never sees another's state."""

from __future__ import annotations

import logging
import os
import signal
from pathlib import Path

import pytest
from in_process import run_front_door
from project_copy import shared_copy


@pytest.fixture
def env(tmp_path) -> dict[str, str]:
    return {**os.environ, "PDBENCH_CACHE_DIR": str(tmp_path / "cache")}


def _app_module():
    """pdbench/cli/app.py (the package's `app` attribute is the Typer object of the same name)."""
    import importlib

    return importlib.import_module("pdbench.cli.app")


def test_an_error_is_exit_2_and_one_line(env):
    done = run_front_door(
        "cli", ["validate", "conf/config.yaml", "agent_a=tftt"], cwd=shared_copy(), env=env
    )
    assert done.code == 2
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("error: conf/config.yaml")
    assert 'did you mean "tft"?' in done.stderr


def test_success_is_exit_0_and_prints_to_stdout(env):
    done = run_front_door("cli", ["validate", "conf/config.yaml"], cwd=shared_copy(), env=env)
    assert (done.code, done.stderr) == (0, ""), done.stderr
    assert done.stdout


def test_an_escaping_exception_is_a_traceback_and_exit_1(env, monkeypatch):
    app = _app_module()

    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(app, "app", broken)
    done = run_front_door("cli", ["validate", "conf/config.yaml"], cwd=shared_copy(), env=env)
    assert done.code == 1
    assert "Traceback" in done.stderr and "RuntimeError: a bug" in done.stderr


def test_a_hang_is_stopped_at_the_wall_clock_limit(env, monkeypatch):
    import time

    app = _app_module()

    monkeypatch.setattr(app, "app", lambda **kwargs: time.sleep(30))
    done = run_front_door("cli", ["validate"], cwd=shared_copy(), env=env, wall_limit_s=0.5)
    assert done.code is None
    assert done.seconds < 5


def test_state_a_command_changes_is_put_back(env, tmp_path):
    """Hydra's door configures logging, installs signal handlers and its GlobalHydra singleton,
    sets os.environ (the sweep's variables) and sys.argv; none of it outlives the call."""
    from hydra.core.global_hydra import GlobalHydra

    cwd, argv = os.getcwd(), list(__import__("sys").argv)
    environ = dict(os.environ)
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    sigterm = signal.getsignal(signal.SIGTERM)
    args = [
        "-m",
        "agent_a=tft",
        "agent_b=alld",
        "horizon.rounds=2",
        "run.replicates=1",
        f"run.output_dir={tmp_path / 'out'}",
        f"hydra.sweep.dir={tmp_path / 'hydra'}",
    ]
    done = run_front_door("module", args, cwd=shared_copy(), env=env)
    assert done.code == 0, done.stderr
    assert (tmp_path / "out").is_dir()
    assert os.getcwd() == cwd
    assert __import__("sys").argv == argv
    assert dict(os.environ) == environ
    assert "PDBENCH_SWEEP_ID" not in os.environ
    assert (root.handlers, root.level) == (handlers, level)
    assert signal.getsignal(signal.SIGTERM) == sigterm
    assert not GlobalHydra.instance().is_initialized()


def test_the_same_command_twice_gives_the_same_answer(env):
    """Nothing cached from the first call (Hydra's singleton, parsed files) changes the second."""
    args = ["agent_a=tftt", "hydra.run.dir=hydra"]
    first = run_front_door("module", args, cwd=shared_copy(), env=env)
    second = run_front_door("module", args, cwd=shared_copy(), env=env)
    assert first.code == second.code == 2
    assert first.stderr == second.stderr


def test_a_file_edited_between_calls_is_read_again(env, tmp_path):
    project = tmp_path / "project"
    from project_copy import copy_project

    copy_project(project)
    config = Path(project, "tests/fixtures/configs/policies.yaml")
    ok = run_front_door("cli", ["validate", str(config)], cwd=project, env=env)
    assert ok.code == 0, ok.stderr
    text = config.read_text()
    config.write_text(text.replace("rounds:", "roundz:", 1))
    os.utime(config, ns=(0, 0))  # same size, and a timestamp a cache keyed on mtime would miss
    bad = run_front_door("cli", ["validate", str(config)], cwd=project, env=env)
    assert bad.code == 2, bad.stderr
