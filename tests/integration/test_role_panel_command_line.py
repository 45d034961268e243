"""Issue 43: a panel binds a third role from the Hydra command line as it does in an experiment
file (`judge=[priorities,first_speaker,longer]`: one agent per option, in order, the first the
chair), through `python -m pdbench` (Hydra's own composition, which would merge the listed
options into one agent) and `pdbench run`; a list for a role no panel plays, an even panel, or a
field override of a panel's member is exit 2 in one line naming the role."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from in_process import run_front_door
from project_copy import command_env, shared_copy

from pdbench.runners.prepare import load

ROOT = Path(__file__).resolve().parents[2]
PRIMARY = ROOT / "conf" / "config.yaml"
DEBATE = ["game=nuclear_war", "agent_a=debate_fixed", "agent_b=debate_priorities"]
PANEL = "judge=[priorities,first_speaker,longer]"


def test_a_panel_on_the_command_line_binds_one_agent_per_option_in_order():
    (condition,) = load(PRIMARY, [*DEBATE, PANEL], project_root=ROOT).spec.conditions
    assert [spec.params for spec in condition.role_specs("judge")] == [
        {"rule": "priorities"}, {"rule": "first_speaker"}, {"rule": "longer"}
    ]  # fmt: skip
    assert condition.name.endswith("judge=[priorities,first_speaker,longer]")


def test_python_m_pdbench_plays_the_panel_and_the_manifest_names_each_member(tmp_path):
    done = run_front_door(
        "module",
        [*DEBATE, PANEL, "run.replicates=1", f"run.output_dir={tmp_path}", "run.run_id=panel"],
        cwd=shared_copy(),
        env=command_env(tmp_path),
    )
    assert done.code == 0, done.stderr
    run_dir = tmp_path / "panel"
    manifest = orjson.loads((run_dir / "run_manifest.json").read_bytes())
    (matchup,) = manifest["matchups"].values()
    assert matchup["third_parties"] == {
        "judge[0]": "SCRIPTED_JUDGE(rule=priorities)",
        "judge[1]": "SCRIPTED_JUDGE(rule=first_speaker)",
        "judge[2]": "SCRIPTED_JUDGE(rule=longer)",
    }
    lines = [orjson.loads(line) for line in (run_dir / "rounds.jsonl").read_bytes().splitlines()]
    decisions = [
        line["actions"]["judge"] for line in lines if "panel" in line["actions"].get("judge", {})
    ]
    assert decisions and all(len(action["panel"]) == 3 for action in decisions)


@pytest.mark.parametrize(
    ("overrides", "field", "words"),
    [
        (["game=passcode", "agent_a=passcode_halving", "agent_b=passcode_lengths",
          "keeper=[truthful,llm,truthful]"], "keeper", "one agent plays keeper"),
        ([*DEBATE, "judge=[priorities,longer]"], "judge", "odd number of at least 3"),
        ([*DEBATE, PANEL, "judge.params.rule=longer"], "judge.params.rule",
         "a panel's members are the options of conf/judge/"),
        ([*DEBATE, "judge=[priorities,longest,longer]"], "judge", 'unknown judge "longest"'),
    ],
)  # fmt: skip
def test_a_panel_that_does_not_fit_is_exit_2_in_one_line_naming_the_role(
    overrides, field, words, tmp_path
):
    done = run_front_door(
        "module", [*overrides, f"run.output_dir={tmp_path}"], cwd=shared_copy(),
        env=command_env(tmp_path),
    )  # fmt: skip
    assert done.code == 2, done
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    assert field in lines[0] and words in lines[0], lines[0]
    assert not list(tmp_path.glob("*/run_manifest.json"))  # nothing ran
