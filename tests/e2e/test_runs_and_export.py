"""`pdbench runs [DIR]` lists the runs on disk and `pdbench export RUN --csv` writes a run's
aggregates and rounds as CSV (issue 26), run as a user types them in a copy of the project."""

from __future__ import annotations

import subprocess
from pathlib import Path

import orjson
import pandas as pd
import pytest
from in_process import run_front_door
from project_copy import PDBENCH, command_env, copy_project

from pdbench.games.matrix.stored import as_rounds


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> tuple[Path, Path]:
    """(project copy, runs folder) holding a finished run and a run whose matches all aborted."""
    tmp = tmp_path_factory.mktemp("runs_export")
    project = copy_project(tmp / "project")
    runs = tmp / "runs"
    for run_id, overrides in (
        ("finished", ["agent_a=gtft", "agent_b=alld"]),
        ("aborted", ["agent_a=llm_default", "agent_b=tft", "provider.mock.invalid_rate=1.0"]),
    ):
        # The aborted run is the real process (its exit code 6 is the process's contract); the
        # finished one only has to leave a run on disk, so it runs in this process.
        command = pdbench if run_id == "aborted" else pdbench_here
        done = command(
            project,
            tmp,
            "run",
            "conf/config.yaml",
            *overrides,
            "--run-id",
            run_id,
            "-q",
            f"run.output_dir={runs}",
        )
        # every match of the second run aborts: it ends `aborted`, exit 6 (issue 26)
        assert done.returncode == (6 if run_id == "aborted" else 0), done.stderr
    return project, runs


def pdbench(project: Path, tmp: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [PDBENCH, *args],
        cwd=project,
        env=command_env(tmp),
        capture_output=True,
        text=True,
        timeout=120,
    )


def pdbench_here(project: Path, tmp: Path, *args: str) -> subprocess.CompletedProcess:
    """The same command through the console script's entry function in this process
    (tests/in_process.py: the same argv, working folder and environment; the exit code from its
    SystemExit, stdout and stderr). `runs` and `export` each still run once as a real process;
    the other calls check what a command prints, writes and exits with, not the process."""
    ran = run_front_door("cli", list(args), cwd=project, env=command_env(tmp))
    return subprocess.CompletedProcess([PDBENCH, *args], ran.code, ran.stdout, ran.stderr)  # type: ignore[arg-type]


def one_error_line(done: subprocess.CompletedProcess, *words: str) -> None:
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    assert all(word in lines[0] for word in words), lines[0]
    assert "Traceback" not in done.stderr


def test_runs_lists_each_run_with_status_conditions_spend_and_date(made, tmp_path):
    project, runs = made
    done = pdbench(project, tmp_path, "runs", str(runs))
    assert done.returncode == 0, done.stderr
    header, *rows = done.stdout.strip().splitlines()
    assert header.split()[:5] == ["run", "status", "conditions", "matches", "spent"]
    table = {row.split()[0]: row.split() for row in rows}
    assert set(table) == {"finished", "aborted"}
    for run_id, row in table.items():
        manifest = orjson.loads((runs / run_id / "run_manifest.json").read_bytes())
        assert row[1] == manifest["status"]
        assert row[2] == str(len(manifest["conditions"]))
        assert row[3] == f"{manifest['matches']['completed']}/{manifest['matches']['planned']}"
        assert row[4] == f"{manifest['spend']['cost_usd']:.4f}"
        assert row[5] == manifest["started_utc"][:10]


def test_runs_default_folder_and_bad_folders(made, tmp_path):
    project, runs = made
    fresh = pdbench_here(project, tmp_path, "runs")  # a fresh clone: data/runs not made yet
    assert fresh.returncode == 0 and "no runs in data/runs" in fresh.stdout, fresh.stderr
    one_error_line(pdbench_here(project, tmp_path, "runs", str(tmp_path / "nope")), "nope")
    one_error_line(pdbench_here(project, tmp_path, "runs", str(runs / "finished")), "is a run")


def test_export_writes_the_aggregates_and_rounds_as_csv(made, tmp_path):
    project, runs = made
    for run_id in ("finished", "aborted"):
        out = tmp_path / run_id
        command = pdbench if run_id == "finished" else pdbench_here  # one real process
        done = command(project, tmp_path, "export", str(runs / run_id), "--csv", "--out", str(out))
        assert done.returncode == 0, done.stderr
        stored = pd.read_parquet(runs / run_id / "aggregates.parquet")
        for name, level in (("conditions.csv", "condition"), ("replicates.csv", "replicate")):
            exported = pd.read_csv(out / name)
            expected = stored[stored["level"] == level].drop(columns=["level"])
            assert list(exported.columns) == list(expected.columns)
            assert len(exported) == len(expected)
            for column in ("cooperation_rate", "total_payoff_a", "n_rounds"):
                pd.testing.assert_series_equal(
                    exported[column].astype(float).reset_index(drop=True),
                    expected[column].astype(float).reset_index(drop=True),
                    check_names=False,
                )
        stored = (runs / run_id / "rounds.jsonl").read_bytes().splitlines()
        lines = list(as_rounds(orjson.loads(line) for line in stored))  # a row per round
        rounds = pd.read_csv(out / "rounds.csv")
        assert len(rounds) == len(lines)
        if lines:
            first = lines[0]
            assert rounds.loc[0, "agent_a_action"] == first["agent_a_action"]
            assert rounds.loc[0, "round_index"] == first["round_index"]
    default = pdbench_here(project, tmp_path, "export", str(runs / "finished"), "--csv")
    assert default.returncode == 0 and (runs / "finished" / "export" / "rounds.csv").is_file()


def test_export_without_a_format_writes_csv(made, tmp_path):
    """Issue 41: `pdbench export RUN` was refused without --csv; CSV, the one format, is the
    default."""
    project, runs = made
    out = tmp_path / "plain"
    done = pdbench_here(project, tmp_path, "export", str(runs / "finished"), "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert {p.name for p in out.iterdir()} == {"conditions.csv", "replicates.csv", "rounds.csv"}


def test_export_bad_input_is_one_line(made, tmp_path):
    project, runs = made
    one_error_line(pdbench_here(project, tmp_path, "export", str(tmp_path), "--csv"), str(tmp_path))
    blocker = tmp_path / "file"
    blocker.write_text("x")
    one_error_line(
        pdbench_here(
            project, tmp_path, "export", str(runs / "finished"), "--csv", "--out", str(blocker)
        ),
        "--out",
    )
