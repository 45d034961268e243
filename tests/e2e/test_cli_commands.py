"""The documented `pdbench` commands, run as a user types them (`uv run pdbench ...`) in a copy of
the committed project (tests/project_copy.py: never the user's edited conf/experiment.yaml), with
run.output_dir pointing into a temp folder and PDBENCH_CACHE_DIR set. `uv run --project <checkout>`
uses this checkout's environment, so uv makes no virtual environment in the copy."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest
from helpers import only_run_dir
from in_process import run_front_door
from project_copy import PDBENCH, PROJECT, command_env, copy_project

UV = shutil.which("uv")
CONDITIONS = [
    "llm_cooperative_vs_tft",
    "llm_exploitative_vs_grim",
    "gtft_vs_alld",
    "wsls_vs_tft_geometric",
]
ARTIFACTS = ("rounds.jsonl", "run_manifest.json", "aggregates.parquet")

pytestmark = pytest.mark.skipif(UV is None, reason="uv is not on PATH")


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    return copy_project(tmp_path_factory.mktemp("cli_project"))


def uv_run(
    project: Path, *args: str, tmp: Path, timeout: float = 180
) -> subprocess.CompletedProcess:
    """`uv run <args>` in the project copy, with the checkout's environment."""
    return subprocess.run(
        [str(UV), "run", "--project", str(PROJECT), *args],
        cwd=project,
        env=command_env(tmp),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def console(project: Path, *args: str, tmp: Path) -> subprocess.CompletedProcess:
    """`pdbench <args>` through the console script's entry function in this process
    (tests/in_process.py: the same argv, working folder and environment; the exit code from its
    SystemExit, stdout and stderr), a process start fewer. Each kind of command (validate, run,
    list, --help) is still run once as a real `uv run pdbench` process above; what the other
    calls check is what the command prints and writes, not the process."""
    ran = run_front_door("cli", list(args), cwd=project, env=command_env(tmp))
    return subprocess.CompletedProcess([PDBENCH, *args], ran.code, ran.stdout, ran.stderr)  # type: ignore[arg-type]


def ok(proc: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert proc.returncode == 0, f"exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    assert "Traceback" not in proc.stderr
    return proc


# --- validate ------------------------------------------------------------------------------------


def test_validate_experiment(project, tmp_path):
    out = ok(uv_run(project, "pdbench", "validate", "conf/experiment.yaml", tmp=tmp_path)).stdout
    assert "valid: conf/experiment.yaml" in out
    assert re.search(r"conditions\s+4\b", out), out
    for name in CONDITIONS:
        assert name in out
    assert re.search(r"llm_cooperative_vs_tft: \S+\[cooperative\] vs TFT \| pd \| 20 rounds", out)
    assert "geometric, stop_prob 0.1, at most 60" in out
    assert re.search(r"replicates\s+3\b", out), out
    assert re.search(r"matches\s+12\b", out), out
    # Two LLM conditions x 3 replicates x 20 rounds x (1 call + 2 retries).
    assert re.search(r"LLM calls\s+at most 360\b", out), out
    assert not (project / "data" / "runs").exists()


# --- run -----------------------------------------------------------------------------------------


# `pdbench run conf/experiment.yaml --replicates 2`: one command for the real run and its dry
# run, whose seeds must match.
EXPERIMENT = ("run", "conf/experiment.yaml", "--replicates", "2")


def run_experiment_command(
    project: Path, output: Path, *extra: str, tmp: Path
) -> subprocess.CompletedProcess:
    """`uv run pdbench run conf/experiment.yaml --replicates 2` into `output` (a real process)."""
    return uv_run(project, "pdbench", *EXPERIMENT, f"run.output_dir={output}", *extra, tmp=tmp)


@pytest.fixture(scope="module")
def experiment_run(project, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cli_run")
    output = tmp / "runs"
    proc = run_experiment_command(project, output, tmp=tmp)
    return proc, output, tmp


def read_rounds(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_run_writes_the_three_artifacts_and_prints_a_summary(experiment_run):
    proc, output, _ = experiment_run
    ok(proc)
    run_dir = only_run_dir(output)
    assert re.fullmatch(r"experiment-[0-9a-f]{10}", run_dir.name)
    for name in ARTIFACTS:
        assert (run_dir / name).is_file(), name
    # The summary: status, one line per condition, where the run is.
    assert f"run {run_dir.name}: complete" in proc.stdout
    for name in CONDITIONS:
        assert name in proc.stdout
    assert "run dir:" in proc.stdout and run_dir.name in proc.stdout

    manifest = json.loads((run_dir / "run_manifest.json").read_text())
    assert manifest["status"] == "complete"
    assert manifest["run_id"] == run_dir.name
    assert manifest["replicates"] == 2
    assert manifest["conditions"] == CONDITIONS
    assert manifest["matches"] == {"planned": 8, "completed": 8, "failed": []}

    rounds = read_rounds(run_dir / "rounds.jsonl")
    assert {(r["condition"], r["replicate"]) for r in rounds} == {
        (c, i) for c in CONDITIONS for i in (0, 1)
    }
    assert {r["run_id"] for r in rounds} == {run_dir.name}

    table = pd.read_parquet(run_dir / "aggregates.parquet")
    assert set(table["condition"]) == set(CONDITIONS)
    assert len(table) >= 4 * 2  # a row per condition x replicate, plus per-condition rows


def test_dry_run_writes_nothing_and_prints_the_seeds(
    project, experiment_run, tmp_path, monkeypatch
):
    _, real_output, _ = experiment_run
    output = tmp_path / "runs"
    monkeypatch.delenv("PDBENCH_WORKSPACE_DEAL")  # a new workspace: its first run draws a key
    # The dry run in this process: what it prints and that it writes nothing are the point; the
    # same command's real `uv run` process is the experiment_run fixture's.
    proc = ok(console(project, *EXPERIMENT, f"run.output_dir={output}", "--dry-run", tmp=tmp_path))
    assert not output.exists()
    assert not (tmp_path / "cache").exists()
    assert "nothing written" in proc.stdout
    # a new runs folder has no deal key yet: the seeds shown are one draw, and it says so
    assert f"deal key: none yet ({output / 'deal.key'} is made by the first run)" in proc.stdout
    assert "horizon seed" in proc.stdout and "agent a seed" in proc.stdout
    assert set(planned_seeds(proc.stdout)) == {(c, i) for c in CONDITIONS for i in (0, 1)}
    # Where the run is, the seeds it prints are the ones the run used (its folder's own key).
    run_dir = only_run_dir(real_output)
    before = sorted((p, p.stat().st_mtime_ns) for p in real_output.rglob("*"))
    again = ok(
        console(project, *EXPERIMENT, f"run.output_dir={real_output}", "--dry-run", tmp=tmp_path)
    )
    assert "deal key" not in again.stdout
    assert sorted((p, p.stat().st_mtime_ns) for p in real_output.rglob("*")) == before
    manifest = json.loads((run_dir / "run_manifest.json").read_text())
    used = {
        (s["condition"], s["replicate"]): (s["n_rounds"], s["horizon"], s["agent_a"], s["agent_b"])
        for s in manifest["seeds"]
    }
    assert planned_seeds(again.stdout) == used


def planned_seeds(stdout: str) -> dict[tuple[str, int], tuple[int, ...]]:
    """The dry run's plan table: (condition, replicate) -> rounds and the three seeds."""
    planned = {}
    for line in stdout.splitlines():
        parts = line.split()
        if len(parts) == 7 and parts[1].isdigit():
            planned[(parts[0], int(parts[1]))] = tuple(int(p) for p in parts[2:6])
    return planned


# --- list and help -------------------------------------------------------------------------------


def test_list_everything_and_list_agents(project, tmp_path):
    everything = ok(uv_run(project, "pdbench", "list", tmp=tmp_path)).stdout
    for title, folder in [
        ("agents", "agent"),
        ("personas", "persona"),
        ("games", "game"),
        ("mechanisms", "mechanism"),
        ("providers", "provider"),
        ("horizons", "horizon"),
        ("keepers", "keeper"),
        ("judges", "judge"),
    ]:
        assert f"{title} (conf/{folder}/):" in everything
    for option in ("tft", "llm_default", "exploitative", "stag_hunt", "mock", "geometric",
                   "truthful", "first_speaker", "mediation"):  # fmt: skip
        assert re.search(rf"^\s+{option}\s+\S", everything, re.MULTILINE), option

    agents = ok(console(project, "list", "agents", tmp=tmp_path)).stdout  # `list` ran as uv above
    assert agents.splitlines()[0] == "agents (conf/agent/):"
    listed = [line.split()[0] for line in agents.splitlines()[1:] if line[2:3].strip()]
    assert listed == sorted(p.stem for p in (project / "conf" / "agent").glob("*.yaml"))
    assert "personas" not in agents
    assert "Tit For Tat" in agents  # each option's one-line description


def test_help(project, tmp_path):
    main = ok(uv_run(project, "pdbench", "--help", tmp=tmp_path)).stdout
    assert "Usage" in main
    for command in ("validate", "run", "aggregate", "ui", "list"):
        assert command in main
    for command in ("validate", "run", "aggregate", "ui", "list"):
        text = ok(console(project, command, "--help", tmp=tmp_path)).stdout
        assert "Usage" in text and command in text, command
    assert "--dry-run" in ok(console(project, "run", "--help", tmp=tmp_path)).stdout


# --- the small things a newcomer trips on (issue 41) ----------------------------------------------


def test_version_is_the_installed_packages(project, tmp_path):
    from importlib.metadata import version

    done = ok(console(project, "--version", tmp=tmp_path))
    assert done.stdout.strip() == f"pdbench {version('pdbench')}"


def test_the_top_level_help_and_the_package_say_what_pdbench_plays(project, tmp_path):
    import tomllib

    text = " ".join(ok(console(project, "--help", tmp=tmp_path)).stdout.split())
    description = tomllib.loads((PROJECT / "pyproject.toml").read_text())["project"]["description"]
    for said in (text, description):
        assert "turn-based games" in said and "dilemma" in said, said
        assert "ladder" in said or "rank" in said, said


def _comment_block(path: Path) -> str:
    lines = []
    for line in path.read_text().splitlines():
        if not line.startswith("#"):
            break
        if not line.lstrip("# ").startswith("@package"):
            lines.append(line.lstrip("# ").strip())
    return " ".join(lines)


def test_list_shows_whole_sentences(project, tmp_path):
    """A description continued on the next comment line was cut at the end of the first one
    ("...; the loser of a challenge"): each is now the file's first sentence, or its whole
    leading comment."""
    listed = ok(console(project, "list", tmp=tmp_path)).stdout
    entries: list[tuple[str, str]] = []  # (group, option and description, wrapped lines joined)
    for line in listed.splitlines():
        if not line.startswith(" "):
            group = line.split("(conf/")[1].rstrip("/):")
        elif line.startswith("   "):  # a description's next line, under its column
            entries[-1] = (entries[-1][0], f"{entries[-1][1]} {line.strip()}")
        else:
            entries.append((group, line.strip()))
    for group, entry in entries:
        option, description = entry.split(maxsplit=1)
        block = _comment_block(project / "conf" / group / f"{option}.yaml")
        assert description == block or (
            block.startswith(description) and description.endswith(".")
        ), (option, description, block)
    assert "the loser of a challenge loses a die; the last player with dice wins." in listed


def test_python_m_pdbench_takes_dry_run(project, tmp_path):
    output = tmp_path / "runs"
    one = run_front_door(
        "module",
        ["agent_a=tft", "agent_b=grim", f"run.output_dir={output}", "--dry-run"],
        cwd=project,
        env=command_env(tmp_path),
    )
    assert one.code == 0, one.stderr
    assert "dry run: 3 matches" in one.stdout and "nothing written" in one.stdout
    grid = run_front_door(
        "module",
        ["-m", "agent_a=tft", "agent_b=grim,alld", f"run.output_dir={output}", "--dry-run"],
        cwd=project,
        env=command_env(tmp_path),
    )
    assert grid.code == 0, grid.stderr
    assert "dry run: 6 matches" in grid.stdout
    assert "agent_b=alld" in grid.stdout and "agent_b=grim" in grid.stdout
    assert not output.exists() and not (project / "outputs").exists()
    assert not (project / "multirun").exists()
