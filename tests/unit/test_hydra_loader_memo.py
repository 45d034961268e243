"""Hydra's own compositions in the Hydra door share the defaults list and the merged config of a set
of group choices (pdbench.config.hydra_loader_memo): `python -m pdbench` composed a single run
three times (the preflight, Hydra's `get_mode`, Hydra's run), a serial sweep each job twice. Only
the two steps that depend on the group choices alone are shared; Hydra runs every other step of
its composition itself, so each composition, its hydra node included, is Hydra's whole one."""

from __future__ import annotations

import contextlib
import shutil
from pathlib import Path

import pytest
from hydra import initialize_config_dir
from hydra.core.global_hydra import GlobalHydra
from hydra.errors import HydraException
from hydra.types import RunMode
from in_process import run_front_door
from omegaconf import OmegaConf
from project_copy import command_env, shared_copy

from pdbench.config import composition_memo, hydra_loader_memo
from pdbench.config.hydra_compose import check_config_tree
from pdbench.config.hydra_loader_memo import hydra_compositions_memoized

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def shared_conf(tmp_path_factory) -> Path:
    """A copy of conf/ that the tests only read."""
    folder = tmp_path_factory.mktemp("project")
    shutil.copytree(ROOT / "conf", folder / "conf")
    return folder


@pytest.fixture
def empty_memo(monkeypatch) -> list[int]:
    """No composition kept from another test of this process; returns the count of defaults
    lists Hydra builds from now on, memo or not (a one-element list)."""
    from hydra._internal import config_loader_impl

    monkeypatch.setattr(composition_memo, "_BASES", type(composition_memo._BASES)())
    monkeypatch.setattr(hydra_loader_memo, "_KEPT", {})
    monkeypatch.setattr(hydra_loader_memo, "_BY_DEFAULTS", {})
    built = [0]
    hydras_own = config_loader_impl.create_defaults_list

    def counted(**kwargs):
        built[0] += 1
        return hydras_own(**kwargs)

    monkeypatch.setattr(config_loader_impl, "create_defaults_list", counted)
    return built


def _loaded(folder: Path, overrides: list[str], run_mode: RunMode, memo: bool):
    """Hydra's ConfigLoader.load_configuration, the function Hydra's run, get_mode and launchers
    compose with, with or without the memo; returns the whole config, hydra node included."""
    conf = folder / "conf"
    with initialize_config_dir(config_dir=str(conf), version_base="1.3"):
        loader = GlobalHydra.instance().hydra.config_loader  # type: ignore[union-attr]
        shared = (
            hydra_compositions_memoized(conf, check_config_tree(conf, folder))
            if memo
            else contextlib.nullcontext()
        )
        with shared:
            return loader.load_configuration(
                config_name="config", overrides=list(overrides), run_mode=run_mode
            )


def _whole(cfg) -> str:
    return OmegaConf.to_yaml(cfg)  # unresolved: interpolations as written


# Every override form beside group choices: field sets, +, ++, ~, typed values, a list, a dict,
# an interpolation, hydra.* settings (what Hydra's run adds: hydra.mode=RUN) and a hydra/ group.
COMMAND_LINES = [
    [],
    ["agent_b=grim", "hydra.mode=RUN"],
    ["agent_a=llm_default", "agent_b=tft", "persona=exploitative", "agent_a.temperature=0.7"],
    ["agent_b=alld", "run.replicates=3", "horizon.rounds=7", "run.seed=11", "hydra.mode=RUN"],
    ["run.output_dir=/tmp/somewhere", "hydra.run.dir=/tmp/elsewhere", "agent_b=wsls"],
    ["+run.cache.namespace=trial", "++run.seed=5", "agent_b=random"],
    ["agent_a=llm_default", "~agent_a.label_style", "agent_b=tft", "hydra.job.chdir=true"],
    ["agent_a=llm_default", "+agent_a.words=[END,STOP]", "agent_b=grim"],
    ["agent_a=llm_default", "agent_a.provider.mock={strategy: cooperate, latency_s: 0.1}"],
    ["run.run_id=${agent_b.name}", "agent_b=tft", "hydra/launcher=joblib"],
    ["game=liars_dice", "agent_a=liars_bluffer", "agent_b=liars_probability"],
]


@pytest.mark.parametrize("overrides", COMMAND_LINES, ids=lambda o: " ".join(o) or "none")
def test_a_shared_composition_is_hydras_whole_one_in_both_modes(shared_conf, empty_memo, overrides):
    # The group choices of the line (spelt `group=option` here: no dot before the `=`).
    groups = [o for o in overrides if "=" in o and "." not in o.split("=")[0]]
    # The memo holds the group choices' composition, made for other field overrides first.
    _loaded(shared_conf, [*groups, "run.seed=123456"], RunMode.RUN, memo=True)
    built = empty_memo[0]
    for mode in (RunMode.RUN, RunMode.MULTIRUN):
        whole = _loaded(shared_conf, overrides, mode, memo=False)
        built += 1  # Hydra's own, without the memo
        shared = _loaded(shared_conf, overrides, mode, memo=True)
        assert _whole(shared) == _whole(whole), mode
        assert OmegaConf.is_struct(shared) == OmegaConf.is_struct(whole)
        assert OmegaConf.is_readonly(shared.hydra) == OmegaConf.is_readonly(whole.hydra)
    assert empty_memo[0] == built  # with it, both served by the choices' composition made first


def test_a_config_handed_out_is_the_callers_to_change(shared_conf, empty_memo):
    first = _loaded(shared_conf, ["agent_b=grim"], RunMode.RUN, memo=True)
    OmegaConf.update(first, "run.seed", 99, force_add=True)
    first.hydra.overrides.task.append("run.seed=99")
    again = _loaded(shared_conf, ["agent_b=grim"], RunMode.RUN, memo=True)
    assert again.run.seed != 99
    assert list(again.hydra.overrides.task) == ["agent_b=grim"]


def test_a_refused_composition_is_hydras_refusal_and_is_not_kept(shared_conf, empty_memo):
    for _ in range(2):
        with pytest.raises(HydraException) as shared:
            _loaded(shared_conf, ["agent_b=no_such_agent"], RunMode.RUN, memo=True)
        with pytest.raises(HydraException) as whole:
            _loaded(shared_conf, ["agent_b=no_such_agent"], RunMode.RUN, memo=False)
        assert str(shared.value) == str(whole.value)
    assert not hydra_loader_memo._KEPT


def test_a_sweeps_values_take_no_part_in_its_defaults_list(shared_conf, empty_memo):
    """Hydra leaves a sweep's values out of a multirun's defaults list (its jobs are composed one
    by one): the multirun compositions of one grid, and of grids over other values, share it."""
    grids = (["agent_b=tft,grim", "run.seed=1,2"], ["agent_b=alld,wsls", "run.seed=3"])
    for grid in grids:
        whole = _loaded(shared_conf, grid, RunMode.MULTIRUN, memo=False)
        shared = _loaded(shared_conf, grid, RunMode.MULTIRUN, memo=True)
        assert _whole(shared) == _whole(whole)
    assert empty_memo[0] == 3  # two without the memo, one with it


def test_another_config_folder_is_composed_by_hydra_alone(shared_conf, empty_memo):
    other = shared_conf / "more"
    other.mkdir(exist_ok=True)
    _loaded(shared_conf, [f"hydra.searchpath=[file://{other}]"], RunMode.RUN, memo=True)
    assert not hydra_loader_memo._KEPT and empty_memo[0] == 1


def test_a_changed_tree_is_composed_again(tmp_path, empty_memo):
    shutil.copytree(ROOT / "conf", tmp_path / "conf")  # a copy of its own: this test writes it
    before = _loaded(tmp_path, ["agent_b=grim"], RunMode.RUN, memo=True)
    group_file = tmp_path / "conf" / "agent_b" / "grim.yaml"
    group_file.write_text(group_file.read_text().replace("name: null", "name: grim_changed"))
    after = _loaded(tmp_path, ["agent_b=grim"], RunMode.RUN, memo=True)
    assert before.agent_b.name != "grim_changed" and after.agent_b.name == "grim_changed"
    assert empty_memo[0] == 2


def test_a_run_list_serves_a_multirun_and_not_the_other_way(tmp_path, empty_memo):
    """A group left `???` fails a run's composition and is skipped by a multirun's (Hydra's
    get_mode composes so): a multirun's list may not serve a run."""
    conf = tmp_path / "conf"
    (conf / "side").mkdir(parents=True)
    (conf / "side" / "a.yaml").write_text("x: 1\n")
    (conf / "config.yaml").write_text("defaults:\n  - side: ???\n  - _self_\ny: 2\n")
    assert _loaded(tmp_path, [], RunMode.MULTIRUN, memo=True).y == 2
    with pytest.raises(HydraException) as shared:
        _loaded(tmp_path, [], RunMode.RUN, memo=True)
    with pytest.raises(HydraException) as whole:
        _loaded(tmp_path, [], RunMode.RUN, memo=False)
    assert str(shared.value) == str(whole.value)
    run = _loaded(tmp_path, ["side=a"], RunMode.RUN, memo=True)
    built = empty_memo[0]
    multirun = _loaded(tmp_path, ["side=a"], RunMode.MULTIRUN, memo=True)
    assert empty_memo[0] == built and multirun.side.x == run.side.x == 1


def _door(args: list[str], tmp_path: Path):
    """`python -m pdbench ARGS` in this process (its entry function, tests/in_process.py)."""
    dirs = [
        f"run.output_dir={tmp_path / 'runs'}",
        f"hydra.run.dir={tmp_path / 'hydra'}",
        f"hydra.sweep.dir={tmp_path / 'hydra'}",
    ]
    return run_front_door("module", [*args, *dirs], cwd=shared_copy(), env=command_env(tmp_path))


def test_the_door_builds_a_single_runs_defaults_once(tmp_path, empty_memo):
    done = _door(["agent_a=tft", "agent_b=alld", "horizon.rounds=2"], tmp_path)
    assert done.code == 0, done.stderr
    # The preflight's, and its check of the hydra.* settings alone (group_choices.
    # check_hydra_overrides: other choices); Hydra's get_mode and run share the first (4 before).
    assert empty_memo[0] == 2


def test_a_serial_sweeps_jobs_share_the_preflights_defaults(tmp_path, empty_memo):
    args = ["-m", "agent_a=tft", "agent_b=alld,grim", "horizon.rounds=2"]
    done = _door(args, tmp_path)
    assert done.code == 0, done.stderr
    # Two jobs composed by the preflight and its check of the hydra.* settings; Hydra's get_mode
    # and its multirun config share one list (without the swept values); its two jobs share the
    # preflight's (7 before).
    assert empty_memo[0] == 4
