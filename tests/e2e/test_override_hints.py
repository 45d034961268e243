"""Issues 26 and 27: an override that does not fit says what does, and following the hint works.

- `agent_a=tft` on an experiment file: the agents are set per condition; the hint names
  `conditions.<i>.agent_a=...`, which works (the old hint, `+agent_a=...`, led to another error).
- `run.cache.namespace=x` points to `+run.cache.namespace=x`, which works.
- `agent_b.memory_mb=256`, a documented arena option, works with agent_b=arena; with a policy
  agent the line says whose option it is instead of suggesting a wrong field.
"""

from __future__ import annotations

from in_process import run_front_door
from project_copy import shared_copy
from silently_wrong_helpers import Finished, subprocess_env


def _pdbench(tmp_path, *args: str) -> Finished:
    """`pdbench <args>` in the shared copy of the committed project, run in this process
    (tests/in_process.py: the console script's entry function with the same argv, working
    folder and environment; its exit code and both streams). These cases are about what the
    lines say and whether the hinted override works, not about the process; the console script
    as a process is run by tests/e2e/test_command_lines.py and others."""
    ran = run_front_door("cli", list(args), cwd=shared_copy(), env=subprocess_env(tmp_path))
    assert ran.code is not None
    return Finished(ran.code, ran.stdout, ran.stderr)


def _validate(tmp_path, config: str, *overrides: str):
    return _pdbench(tmp_path, "validate", config, *overrides)


def _one_error_line(done) -> str:
    assert done.returncode == 2, done
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done
    return lines[0]


def test_an_agent_override_on_an_experiment_file_names_the_way_that_works(tmp_path):
    line = _one_error_line(_validate(tmp_path, "conf/experiment.yaml", "agent_b=grim"))
    assert "conditions.0.agent_b=" in line and "+agent_b" not in line, line
    followed = _validate(tmp_path, "conf/experiment.yaml", "conditions.0.agent_b=grim")
    assert followed.returncode == 0, followed
    assert "vs GRIM" in followed.stdout.splitlines()[4], followed.stdout


def test_a_field_the_tree_leaves_out_points_to_adding_it(tmp_path):
    line = _one_error_line(_validate(tmp_path, "conf/config.yaml", "run.cache.namespace=x"))
    assert "+run.cache.namespace=" in line, line
    followed = _validate(tmp_path, "conf/config.yaml", "+run.cache.namespace=x")
    assert followed.returncode == 0, followed


def test_a_documented_arena_option_can_be_set(tmp_path):
    done = _validate(
        tmp_path,
        "conf/config.yaml",
        "agent_b=arena",
        "agent_b.path=examples/agents/tit_for_tat.py",
        "agent_b.memory_mb=256",
        "agent_b.sandbox=off",
        "agent_b.max_processes=8",
    )
    assert done.returncode == 0, done


def test_another_kinds_option_says_whose_it_is(tmp_path):
    line = _one_error_line(_validate(tmp_path, "conf/config.yaml", "agent_b.memory_mb=256"))
    assert "memory_mb is an option of arena agents" in line and "agent_b=arena" in line, line


def test_the_namespace_is_not_in_the_condition_name_and_a_list_reads_well(tmp_path):
    done = _validate(tmp_path, "conf/config.yaml", "game.labels=[J, F]", "+run.cache.namespace=x")
    assert done.returncode == 0, done
    assert "    game.labels=[J,F]: TFT vs TFT" in done.stdout, done.stdout


def test_the_namespace_still_draws_new_samples(tmp_path):
    """Out of the name, the namespace must stay in the cache key: a new namespace asks again."""
    import json

    def run(namespace: str, run_id: str) -> dict:
        done = _pdbench(
            tmp_path,
            "run",
            "conf/config.yaml",
            "agent_a=llm_default",
            "agent_a.temperature=1.0",
            "horizon.rounds=2",
            "run.replicates=1",
            f"+run.cache.namespace={namespace}",
            f"run.output_dir={tmp_path / 'runs'}",
            "--run-id",
            run_id,
            "-q",
        )
        assert done.returncode == 0, done
        manifest = json.loads((tmp_path / "runs" / run_id / "run_manifest.json").read_text())
        assert "namespace" not in manifest["conditions"][0]
        return manifest["provider_calls"]

    first = run("a", "n1")
    assert first["live"] == 2 and first["cached"] == 0
    assert run("b", "n2")["live"] == 2, "another namespace was answered from the cache"
    assert run("a", "n3")["cached"] == 2, "the same namespace was asked again"
