"""`pdbench ui`: a non-run dir is a one-line error, and the Streamlit command hands the run dir on."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from pdbench.ui.loaders import RUN_DIR_ENV, run_dir_from

ROOT = Path(__file__).resolve().parents[2]


def pdbench(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", "from pdbench.cli import main; main()", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )


def test_a_non_run_dir_exits_2_with_one_line(tmp_path):
    done = pdbench("ui", str(tmp_path))
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("error: ") and "is not a pdbench run dir" in lines[0]


def test_print_command_names_streamlit_the_app_and_the_run_dir(tmp_path):
    run_dir = tmp_path / "my run"  # a space: the printed command must quote it
    run_dir.mkdir()
    (run_dir / "run_manifest.json").write_text("{}")
    done = pdbench("ui", str(run_dir), "--port", "8765", "--print-command")
    assert done.returncode == 0, done.stderr
    command = shlex.split(done.stdout.strip())
    assert command[1:4] == ["-m", "streamlit", "run"]
    app = Path(command[4])
    assert app.name == "app.py" and app.is_file()
    assert command[command.index("--server.port") + 1] == "8765"
    assert command[command.index("--server.headless") + 1] == "true"
    # Everything after "--" goes to the app's sys.argv, where the viewer finds the run dir.
    script_args = command[command.index("--") + 1 :]
    assert run_dir_from(script_args, {}) == str(run_dir.resolve())


@pytest.mark.parametrize(
    ("argv", "environ", "expected"),
    [
        (["--run-dir", "/runs/a"], {}, "/runs/a"),
        (["--run-dir=/runs/a"], {RUN_DIR_ENV: "/runs/b"}, "/runs/a"),
        ([], {RUN_DIR_ENV: "/runs/b"}, "/runs/b"),
        (["-q", "tests/"], {}, None),  # pytest's own argv under AppTest: no run dir
    ],
)
def test_the_app_takes_the_run_dir_from_argv_then_the_environment(argv, environ, expected):
    assert run_dir_from(argv, environ) == expected
