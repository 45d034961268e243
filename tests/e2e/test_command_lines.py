"""Every command line of issue 14's "Command line" section, run as a user types it, in a copy of
the committed project (tests/project_copy.py), output and Hydra folders in tmp_path. The cases
about the process are real subprocesses of the installed `pdbench` script (what `uv run pdbench`
runs) and of `python -m pdbench`: the vllm preset through each door (what a fresh process logs),
a sweep given to `pdbench run` (exit 2, one line) and the uv command. The others run the same
entry functions with the same argv, folder and environment in this process (cli_here,
module_here: tests/in_process.py), with the exit code and both streams a process would show.

Typer usage errors, `run -m`, a sweep without -m, --config-name nope and +runn.seed are in
test_bad_input_corpus.py; the rest of the section maps to these tests:

- "Hydra's flags work exactly as in any Hydra app: `--cfg job`, `-c job`, `--cfg job --resolve`,
  `--info defaults`, `-cn`, `--package`": test_cfg_job_prints_the_composed_config,
  test_cfg_job_resolve_resolves_interpolations, test_info_defaults_lists_the_defaults,
  test_config_name_runs_another_primary, test_package_prints_one_node
- "`glob()` sweeps work or give one line": test_glob_sweep_runs_each_matching_option,
  test_glob_that_cannot_sweep_is_one_line
- "`pdbench run conf/config.yaml agent_a=tft,grim` says to use `python -m pdbench -m`":
  test_run_with_a_sweep_points_to_the_module_door
- "`pdbench validate` and `--dry-run` accept a sweep and show its conditions":
  test_validate_and_dry_run_show_a_sweep
- "Arena agents from the command line ... and sweeps over arena agents work":
  test_arena_agent_from_the_command_line, test_sweep_over_two_arena_files
- "the `vllm` preset runs without a key" and "litellm's own INFO logging never reaches the
  console through either front door": test_vllm_preset_needs_no_key_and_litellm_stays_quiet
- "Arena agent turns are not provider calls": test_arena_agent_from_the_command_line,
  test_sweep_over_two_arena_files (manifest CallCounts.agent_turns, live 0)
- "`validate` and `run` agree on the run id for the same command":
  test_validate_and_run_agree_on_the_run_id, test_validate_and_a_sweep_agree_on_the_run_id
- "`uv run pdbench validate configs/experiment.yaml` ... answers with the right path":
  test_the_spec_path_configs_answers_with_conf
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from project_copy import PDBENCH, PROJECT, copy_project
from silently_wrong_helpers import stub_server_class

ROUNDS = 4
QUICK = ("run.replicates=1", f"horizon.rounds={ROUNDS}")  # one short match per condition
SHORT_PRIMARY = (
    "defaults:\n  - config\n  - _self_\n\nhorizon:\n  rounds: 3\nrun:\n  replicates: 1\n"
)
ARENA_FILES = ("examples/agents/grudger.py", "examples/agents/tit_for_tat.py")


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """One copy of the committed project for the module, with one extra primary config
    (conf/short.yaml) for the -cn test, written before any test hashes the config tree."""
    root = copy_project(tmp_path_factory.mktemp("command_lines") / "project")
    (root / "conf" / "short.yaml").write_text(SHORT_PRIMARY)
    return root


def _env(tmp: Path, drop_keys: bool = False) -> dict[str, str]:
    env = {**os.environ, "PDBENCH_CACHE_DIR": str(tmp / "cache"), "COLUMNS": "120"}
    for name in ("HYDRA_FULL_ERROR", "PDBENCH_SWEEP_ID", "PDBENCH_RUN_DIR"):
        env.pop(name, None)
    if drop_keys:
        env = {k: v for k, v in env.items() if not k.endswith("_API_KEY")}
    return env


def cli(project: Path, tmp: Path, *args: str, **env: bool) -> subprocess.CompletedProcess:
    """`pdbench <args>` in the project copy."""
    return subprocess.run(
        [PDBENCH, *args], cwd=project, env=_env(tmp, **env),
        capture_output=True, text=True, timeout=180,
    )  # fmt: skip


def module(project: Path, tmp: Path, *args: str, **env: bool) -> subprocess.CompletedProcess:
    """`python -m pdbench <args>` in the project copy, Hydra's own folders in tmp."""
    hydra_dirs = (f"hydra.run.dir={tmp / 'hydra_run'}", f"hydra.sweep.dir={tmp / 'hydra_sweep'}")
    flags_only = any(a in ("--cfg", "-c", "--info", "-i") for a in args)
    return subprocess.run(
        [sys.executable, "-m", "pdbench", *args, *(() if flags_only else hydra_dirs)],
        cwd=project, env=_env(tmp, **env), capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def _here(entry: str, project: Path, tmp: Path, args: tuple[str, ...], **env: bool):
    from in_process import run_front_door

    ran = run_front_door(entry, list(args), cwd=project, env=_env(tmp, **env))
    return subprocess.CompletedProcess([entry, *args], ran.code, ran.stdout, ran.stderr)


def cli_here(project: Path, tmp: Path, *args: str, **env: bool) -> subprocess.CompletedProcess:
    """`pdbench <args>` run in this process (tests/in_process.py): the same entry function, argv,
    working folder and environment, with the exit code and both streams a process would show.
    For the cases about what a command does, not about the process: the console script and
    `python -m pdbench` as processes are run by the vllm preset test (one per door) and by the
    uv test, and sweeps started from the script by test_run_with_a_sweep_points_to_the_module_door."""
    return _here("cli", project, tmp, args, **env)


def module_here(project: Path, tmp: Path, *args: str, **env: bool) -> subprocess.CompletedProcess:
    """`python -m pdbench <args>` in this process, Hydra's own folders in tmp (as module())."""
    hydra_dirs = (f"hydra.run.dir={tmp / 'hydra_run'}", f"hydra.sweep.dir={tmp / 'hydra_sweep'}")
    flags_only = any(a in ("--cfg", "-c", "--info", "-i") for a in args)
    return _here("module", project, tmp, (*args, *(() if flags_only else hydra_dirs)), **env)


def ok(done: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    assert "Traceback" not in done.stdout + done.stderr
    return done


def one_error_line(done: subprocess.CompletedProcess) -> str:
    """Exit 2 and exactly one line on stderr, `error: ...`; that line."""
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 2, f"exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    return lines[0]


def run_dir_of(done: subprocess.CompletedProcess) -> Path:
    return Path(re.search(r"^run dir: (\S+)", done.stdout, re.MULTILINE).group(1))  # type: ignore[union-attr]


def manifest_of(run_dir: Path) -> dict:
    return json.loads((run_dir / "run_manifest.json").read_text())


# --- Hydra's own flags ---------------------------------------------------------------------------


def test_cfg_job_prints_the_composed_config(project, tmp_path):
    out = tmp_path / "runs"
    long = ok(
        module_here(project, tmp_path, "--cfg", "job", "agent_a=grim", f"run.output_dir={out}")
    )
    short = ok(module_here(project, tmp_path, "-c", "job", "agent_a=grim", f"run.output_dir={out}"))
    assert long.stdout == short.stdout
    config = yaml.safe_load(long.stdout)
    assert "hydra" not in config  # `job`: the task's config only
    assert config["game"]["id"] == "pd"
    assert config["agent_a"]["policy"] == "grim"
    assert config["run"]["output_dir"] == str(out)
    assert not out.exists()  # printing the config runs nothing


def test_cfg_job_resolve_resolves_interpolations(project, tmp_path):
    override = "run.run_id=${game.id}-x"
    plain = yaml.safe_load(ok(module_here(project, tmp_path, "--cfg", "job", override)).stdout)
    resolved = yaml.safe_load(
        ok(module_here(project, tmp_path, "--cfg", "job", "--resolve", override)).stdout
    )
    assert plain["run"]["run_id"] == "${game.id}-x"
    assert resolved["run"]["run_id"] == "pd-x"


def test_info_defaults_lists_the_defaults(project, tmp_path):
    out = ok(module_here(project, tmp_path, "--info", "defaults", "agent_b=alld")).stdout
    assert "Defaults List" in out
    for entry in ("game/pd", "agent_a/tft", "agent_b/alld", "persona/cooperative", "provider/mock"):
        assert re.search(rf"^\|\s*{re.escape(entry)}\s+\|", out, re.MULTILINE), entry


def test_config_name_runs_another_primary(project, tmp_path):
    """-cn short: conf/short.yaml (3 rounds, 1 replicate on top of config.yaml) is what runs,
    and the run says so: its manifest names conf/short.yaml and its id starts with short-."""
    composed = yaml.safe_load(
        ok(module_here(project, tmp_path, "-cn", "short", "--cfg", "job")).stdout
    )
    assert composed["horizon"]["rounds"] == 3
    done = ok(module_here(project, tmp_path, "-cn", "short", f"run.output_dir={tmp_path / 'runs'}"))
    run_dir = run_dir_of(done)
    manifest = manifest_of(run_dir)
    assert manifest["status"] == "complete"
    assert manifest["replicates"] == 1
    assert [seed["n_rounds"] for seed in manifest["seeds"]] == [3]
    assert manifest["config_source"] == "conf/short.yaml"
    assert run_dir.name.startswith("short-"), run_dir


def test_package_prints_one_node(project, tmp_path):
    done = ok(module_here(project, tmp_path, "--cfg", "job", "--package", "game", "game=stag_hunt"))
    assert done.stdout.startswith("# @package game")
    node = yaml.safe_load(done.stdout)
    assert node["id"] == "stag_hunt"
    assert "run" not in node and "game" not in node


# --- sweeps --------------------------------------------------------------------------------------


def test_glob_sweep_runs_each_matching_option(project, tmp_path):
    expected = sorted(p.stem for p in (project / "conf" / "agent").glob("t*.yaml"))
    assert len(expected) >= 2  # tf2t, tft
    done = ok(
        module_here(
            project, tmp_path, "-m", "agent_b=glob(t*)", *QUICK, f"run.output_dir={tmp_path}"
        )
    )
    manifest = manifest_of(run_dir_of(done))
    assert manifest["status"] == "complete"
    assert manifest["conditions"] == [f"agent_b={name}" for name in expected]


@pytest.mark.parametrize(
    ("override", "named"),
    [("agent_b=glob(zz*)", "agent_b"), ("horizon.rounds=glob(1*)", "horizon.rounds")],
    ids=["no-option-matches", "not-a-group"],
)
def test_glob_that_cannot_sweep_is_one_line(project, tmp_path, override, named):
    line = one_error_line(
        module_here(project, tmp_path, "-m", override, f"run.output_dir={tmp_path}")
    )
    assert named in line and "glob()" in line
    assert not any(tmp_path.glob("sweep-*"))


def test_run_with_a_sweep_points_to_the_module_door(project, tmp_path):
    done = cli(project, tmp_path, "run", "conf/config.yaml", "agent_a=tft,grim",
               f"run.output_dir={tmp_path / 'runs'}")  # fmt: skip
    line = one_error_line(done)
    assert "python -m pdbench -m agent_a=tft,grim" in line
    assert not (tmp_path / "runs").exists()


def test_validate_and_dry_run_show_a_sweep(project, tmp_path):
    sweep = ("conf/config.yaml", "agent_a=tft,grim", "persona=cooperative", *QUICK)
    out = tmp_path / "runs"
    shown = ok(cli_here(project, tmp_path, "validate", *sweep, f"run.output_dir={out}")).stdout
    assert re.search(r"conditions\s+2\b", shown), shown
    for name in ("agent_a=grim", "agent_a=tft"):
        assert re.search(rf"^\s+{name}: \S+ vs TFT \| pd \| {ROUNDS} rounds", shown, re.MULTILINE)
    planned = ok(cli_here(project, tmp_path, "run", "--dry-run", *sweep, f"run.output_dir={out}"))
    assert "dry run: 2 matches" in planned.stdout and "nothing written" in planned.stdout
    rows = [line.split() for line in planned.stdout.splitlines()]
    assert sorted(row[0] for row in rows if len(row) == 7 and row[1] == "0") == [
        "agent_a=grim",
        "agent_a=tft",
    ]
    assert not out.exists() and not (tmp_path / "cache").exists()


# --- arena agents --------------------------------------------------------------------------------


def test_arena_agent_from_the_command_line(project, tmp_path):
    done = ok(
        cli_here(project, tmp_path, "run", "conf/config.yaml", "agent_a=arena",
            f"agent_a.path={ARENA_FILES[0]}", *QUICK, f"run.output_dir={tmp_path}")
    )  # fmt: skip
    manifest = manifest_of(run_dir_of(done))
    assert manifest["status"] == "complete"
    calls = manifest["provider_calls"]
    assert calls["agent_turns"] == ROUNDS  # one turn a round: agent turns, not provider calls
    assert calls["live"] == 0 and calls["cached"] == 0 and calls["unknown_price"] == 0
    assert "grudger vs TFT" in done.stdout


def test_sweep_over_two_arena_files(project, tmp_path):
    done = ok(
        module_here(project, tmp_path, "-m", "agent_a=arena", f"agent_a.path={','.join(ARENA_FILES)}",
               *QUICK, f"run.output_dir={tmp_path}")
    )  # fmt: skip
    manifest = manifest_of(run_dir_of(done))
    assert manifest["status"] == "complete"
    assert manifest["conditions"] == [f"agent_a.path={path}" for path in ARENA_FILES]
    for name in manifest["conditions"]:
        counts = manifest["provider_calls_by_condition"][name]
        assert counts["agent_turns"] == ROUNDS and counts["live"] == 0, name
    assert manifest["provider_calls"]["agent_turns"] == 2 * ROUNDS


# --- a local OpenAI-compatible server ------------------------------------------------------------


@pytest.mark.parametrize("door", ["cli", "module"])
def test_vllm_preset_needs_no_key_and_litellm_stays_quiet(project, tmp_path, door):
    """No *_API_KEY in the environment; every LLM turn is one request to the stub; none of
    litellm's own log lines reach stdout or stderr, and pdbench's warnings appear once each."""
    rounds = 8
    command = ("agent_a=llm_default", "provider=vllm", "run.replicates=1",
               f"horizon.rounds={rounds}", f"run.output_dir={tmp_path / 'runs'}")  # fmt: skip
    with stub_server_class()() as server:
        args = (*command, f"provider.api_base={server.api_base}")
        if door == "cli":
            done = cli(project, tmp_path, "run", "conf/config.yaml", *args, drop_keys=True)
        else:
            done = module(project, tmp_path, *args, drop_keys=True)
        requests = list(server.state.requests)
    ok(done)
    assert len(requests) == rounds
    assert {r["model"] for r in requests} == {"meta-llama/Llama-3.1-8B-Instruct"}
    console = (done.stdout + done.stderr).splitlines()
    litellm_lines = [line for line in console if "LiteLLM" in line or re.search(r"\bINFO\b", line)]
    assert litellm_lines == []
    warnings = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(warnings) == len(set(warnings)), done.stderr
    assert manifest_of(run_dir_of(done))["provider_calls"]["live"] == rounds


# --- run ids and paths ---------------------------------------------------------------------------


def _validated_run_id(done: subprocess.CompletedProcess) -> str:
    return re.search(r"run id\s+(\S+)", ok(done).stdout).group(1)  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "command",
    [("conf/experiment.yaml", "run.replicates=1"), ("conf/config.yaml", "agent_a=grim", *QUICK)],
    ids=["experiment", "primary"],
)
def test_validate_and_run_agree_on_the_run_id(project, tmp_path, command):
    out = f"run.output_dir={tmp_path / 'runs'}"
    validated = _validated_run_id(cli_here(project, tmp_path, "validate", *command, out))
    ran = run_dir_of(ok(cli_here(project, tmp_path, "run", *command, out, "-q")))
    assert ran.name == validated
    if command[0] == "conf/config.yaml":  # the same run through Hydra's door: the same id
        shutil.rmtree(ran)
        via_hydra = run_dir_of(ok(module_here(project, tmp_path, *command[1:], out)))
        assert via_hydra.name == validated


def test_validate_and_a_sweep_agree_on_the_run_id(project, tmp_path):
    grid = ("agent_b=tft,alld", *QUICK, f"run.output_dir={tmp_path / 'runs'}")
    validated = _validated_run_id(
        cli_here(project, tmp_path, "validate", "conf/config.yaml", *grid)
    )
    assert validated.startswith("sweep-")
    assert run_dir_of(ok(module_here(project, tmp_path, "-m", *grid))).name == validated


def test_the_spec_path_configs_answers_with_conf(project, tmp_path):
    """The original spec's command, word for word, through uv (`--project` uses this checkout's
    environment, so no virtual environment is made in the copy)."""
    uv = shutil.which("uv")
    if uv is None:
        pytest.skip("uv is not on PATH")
    done = subprocess.run(
        [uv, "run", "--frozen", "--project", str(PROJECT), "pdbench", "validate",
         "configs/experiment.yaml"],
        cwd=project, env=_env(tmp_path), capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    line = one_error_line(done)
    assert "configs/experiment.yaml" in line and "conf/experiment.yaml" in line
    assert not (project / ".venv").exists()
