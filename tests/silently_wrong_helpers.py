"""Shared by the tests of issue 13 ("never silently wrong"): how to start pdbench through its stable
front doors and how to read what it stored.

Only stable entry points are used, because the package internals are being reorganised: the
`pdbench` console script (a real process, or its entry point called in this process when a test
needs litellm, whose import costs seconds per process), `python -m pdbench`, `load` +
`run_experiment`, and pandas/json on the artifacts.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import shlex
import socket
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path

import pandas as pd
from project_copy import command_env, run_in_shared_copy, shared_copy, start_in_shared_copy

from pdbench.games.matrix.stored import as_rounds

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "silently_wrong"


# --- starting pdbench ---------------------------------------------------------------------------


def console_command() -> list[str]:
    """The installed `pdbench` console script (what `uv run pdbench` runs)."""
    script = Path(sys.executable).with_name("pdbench")
    assert script.is_file(), f"no console script at {script}: run `uv sync` first"
    return [str(script)]


def module_command() -> list[str]:
    """Hydra's front door: `python -m pdbench`."""
    return [sys.executable, "-m", "pdbench"]


def subprocess_env(tmp: Path) -> dict[str, str]:
    return {
        **command_env(tmp),
        "OPENAI_API_KEY": "dummy",  # the stub server accepts any key; litellm wants one
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",  # offline: litellm's bundled price map
    }


def run_process(command: list[str], tmp: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run a command as a user types it, in a copy of the committed project (never the user's
    edited conf/)."""
    return run_in_shared_copy(command, subprocess_env(tmp), timeout)


def start_process(command: list[str], tmp: Path) -> subprocess.Popen:
    return start_in_shared_copy(command, subprocess_env(tmp))


@dataclass
class Finished:
    """What a command left behind: its exit code and its two streams."""

    returncode: int
    stdout: str
    stderr: str

    def __str__(self) -> str:
        return f"exit {self.returncode}\n--- stdout\n{self.stdout}\n--- stderr\n{self.stderr}"

    __repr__ = __str__  # what an assertion message shows


def in_process(entry: str, args: list[str], tmp: Path) -> Finished:
    """`run_process`'s command through its front door in this process (tests/in_process.py:
    entry "cli" is `pdbench`, "module" is `python -m pdbench`): the same entry function, argv,
    folder (the shared copy) and environment, its exit code and both streams."""
    from in_process import run_front_door

    ran = run_front_door(entry, args, cwd=shared_copy(), env=subprocess_env(tmp))
    assert ran.code is not None
    return Finished(ran.code, ran.stdout, ran.stderr)


def console_in_process(*args: str, monkeypatch) -> Finished:
    """The `pdbench` console script's own entry point (from the installed metadata), called in
    this process with `sys.argv` set: the same code path as the real command, without a second
    multi-second import of litellm. Returns its exit code and what it printed."""
    (script,) = entry_points(group="console_scripts", name="pdbench")
    main = script.load()
    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(sys, "argv", ["pdbench", *args])
    monkeypatch.setenv("COLUMNS", "200")
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main()
        except SystemExit as done:
            code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
    return Finished(code, out.getvalue(), err.getvalue())


_viewer_script: list[Path] = []  # one per test session: every run dir gets the same script


def viewer_script(run_dir: Path, tmp: Path) -> Path:
    """The Streamlit script `pdbench ui` would start, read from its `--print-command`."""
    if not _viewer_script:
        printed = run_process([*console_command(), "ui", str(run_dir), "--print-command"], tmp)
        assert printed.returncode == 0, printed.stderr
        words = shlex.split(printed.stdout.strip().splitlines()[-1])
        _viewer_script.append(Path(words[words.index("run") + 1]))
    return _viewer_script[0]


def run_experiment_file(
    config: Path, overrides: list[str], *, output_dir: Path, run_id: str | None = None
):
    """load + run_experiment, the library's two stable calls; returns the run outcome."""
    from pdbench.runners.experiment import run_experiment
    from pdbench.runners.prepare import load

    # PDBENCH_CACHE_DIR wins where tests/conftest.py sets it; module fixtures run before it does.
    extra = [f"run.output_dir={output_dir}", f"run.cache.dir={output_dir / 'cache'}"]
    if run_id is not None:
        extra.append(f"run.run_id={run_id}")
    return run_experiment(load(config, [*overrides, *extra], project_root=ROOT))


def write_config(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text)
    return path


def litellm_experiment(
    folder: Path,
    api_base: str,
    conditions: str,
    *,
    model: str = "openai/test-model",
    rounds: int = 2,
    replicates: int = 3,
) -> Path:
    """experiment.yaml in `folder`: `conditions` (YAML list items) on one shared litellm provider
    at `api_base`, one match at a time and one attempt per call, so a failing server fails the
    call at once. The default model's price is unknown to litellm; openai/gpt-4o-mini has one."""
    return write_config(
        folder,
        "experiment.yaml",
        f"""
run: {{seed: 1, replicates: {replicates}, max_concurrency: 1}}
horizon: {{type: fixed, rounds: {rounds}}}
provider: {{name: litellm, model: {model}, api_base: "{api_base}", max_attempts: 1}}
persona: cooperative
conditions:
{conditions}
""",
    )


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (a provider whose server is down)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def stub_server_class():
    """tests/integration/openai_stub_server.StubServer, importable from any test folder."""
    name = "openai_stub_server"
    if name not in sys.modules:
        path = ROOT / "tests" / "integration" / f"{name}.py"
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name].StubServer


# --- reading artifacts --------------------------------------------------------------------------


def read_rounds(run_dir: Path) -> list[dict]:
    path = run_dir / "rounds.jsonl"
    if not path.exists():
        return []
    # a 2x2 run's turn lines (record version 2) as rounds, through the readers' projection
    return list(
        as_rounds(json.loads(line) for line in path.read_text().splitlines() if line.strip())
    )


def read_manifest(run_dir: Path) -> dict:
    return json.loads((run_dir / "run_manifest.json").read_text())


def rounds_per_match(run_dir: Path) -> Counter:
    return Counter((r["condition"], r["replicate"]) for r in read_rounds(run_dir))


def moves(rounds: list[dict], condition: str, replicate: int, side: str = "a") -> str:
    return "".join(
        r[f"agent_{side}_action"]
        for r in sorted(rounds, key=lambda r: r["round_index"])
        if r["condition"] == condition and r["replicate"] == replicate
    )


def aggregates(run_dir: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(replicate rows, condition rows) of aggregates.parquet, indexed for lookups."""
    table = pd.read_parquet(run_dir / "aggregates.parquet")
    replicates = table[table["level"] == "replicate"].set_index(["condition", "replicate"])
    conditions = table[table["level"] == "condition"].set_index("condition")
    return replicates, conditions


def missing_columns(frame: pd.DataFrame, names: list[str]) -> list[str]:
    return [name for name in names if name not in frame.columns]


def error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("error: ")]


# --- the viewer ---------------------------------------------------------------------------------


def open_viewer(run_dir: Path, tmp: Path, monkeypatch):
    """The viewer `pdbench ui <run_dir>` starts, run headless by streamlit.testing."""
    from streamlit.testing.v1 import AppTest

    # `pdbench ui` hands the run dir to the script in this variable (AppTest keeps pytest's argv).
    monkeypatch.setenv("PDBENCH_RUN_DIR", str(run_dir))
    viewer = AppTest.from_file(str(viewer_script(run_dir, tmp)), default_timeout=60).run()
    assert not viewer.exception, [e.value for e in viewer.exception]
    return viewer


def _element_text(element) -> str:
    if type(element).__name__ == "Metric":
        return f"{element.label}: {element.value}"
    value = getattr(element, "value", "")
    return value if isinstance(value, str) else ""


def header_texts(viewer) -> list[str]:
    """What the viewer shows above its tabs: the first thing a reader sees."""
    texts = []
    for element in viewer.main.children.values():
        if getattr(element, "type", None) == "tab_container":
            break
        texts.append(_element_text(element))
    return [text for text in texts if text]


def viewer_texts(viewer) -> list[str]:
    """Every caption, text, alert and metric the viewer shows, in any tab."""
    elements = [
        *viewer.caption,
        *viewer.markdown,
        *viewer.info,
        *viewer.warning,
        *viewer.error,
        *viewer.metric,
    ]
    return [text for text in map(_element_text, elements) if text]
