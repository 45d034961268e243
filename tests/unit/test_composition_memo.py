"""A composition's group choices are composed by Hydra once per process while the config tree does
not change (pdbench.config.composition_memo): the conditions of an experiment, the jobs of a sweep
and a `validate` before a `run` mostly differ in field overrides (`run.output_dir=...`,
`agent_a.temperature=...`), which Hydra applies after composing the defaults. The memo applies them
with Hydra's own function, so every composition equals Hydra's whole one, and anything it refuses
is refused by Hydra's whole composition, with Hydra's own error."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf, open_dict

from pdbench.config import composition_memo, hydra_compose
from pdbench.core.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def shared_conf(tmp_path_factory) -> Path:
    """A copy of conf/ that the tests only read (copying 131 files for each test cost more than
    the compositions it checks)."""
    folder = tmp_path_factory.mktemp("project")
    shutil.copytree(ROOT / "conf", folder / "conf")
    return folder


@pytest.fixture
def project(shared_conf, monkeypatch):
    """The shared copy of conf/, an empty memo, and the list of group compositions Hydra made."""
    return _counting(shared_conf, monkeypatch)


def _counting(folder: Path, monkeypatch) -> tuple[Path, list[tuple[str, ...]]]:
    monkeypatch.setattr(composition_memo, "_BASES", type(composition_memo._BASES)())
    made: list[tuple[str, ...]] = []
    original = composition_memo._compose_groups

    def counted(config_name, group_lines):
        made.append(tuple(group_lines))
        return original(config_name, group_lines)

    monkeypatch.setattr(composition_memo, "_compose_groups", counted)
    return folder, made


def _whole(project: Path, overrides: list[str]):
    """Hydra's own composition of the whole command line, as `compose_primary` made it before."""
    with initialize_config_dir(config_dir=str(project / "conf"), version_base="1.3"):
        return compose(config_name="config", overrides=overrides)


def _memo(project: Path, overrides: list[str]):
    return hydra_compose.compose_primary(
        project / "conf" / "config.yaml", overrides, project_root=project
    )


# Field overrides of every form Hydra knows (set, add, force-add, delete, typed values, a list, a
# dict, an interpolation, a hydra.* setting) beside group choices (one changed, one added).
COMMAND_LINES = [
    [],
    ["agent_b=grim"],
    ["agent_a=llm_default", "agent_b=tft", "persona=exploitative", "agent_a.temperature=0.7"],
    ["agent_b=alld", "run.replicates=3", "horizon.rounds=7", "run.seed=11"],
    ["run.output_dir=/tmp/somewhere", "hydra.run.dir=/tmp/elsewhere", "agent_b=wsls"],
    ["+run.cache.namespace=trial", "++run.seed=5", "agent_b=random"],
    ["agent_a=llm_default", "~agent_a.label_style", "agent_b=tft", "hydra.job.chdir=true"],
    ["game=stag_hunt", "run.store_prompts=false", "run.run_id='a b'"],
    ["agent_a=llm_default", "+agent_a.words=[END,STOP]", "agent_b=grim"],
    ["agent_a=llm_default", "+agent_a.extra={a: 1, b: [2, 3]}"],
    ["agent_a=llm_default", "agent_a.provider.mock={strategy: cooperate, latency_s: 0.1}"],
    ["run.run_id=${agent_b.name}", "agent_b=tft"],
    ["game=liars_dice", "agent_a=liars_bluffer", "agent_b=liars_probability"],
]


@pytest.mark.parametrize("overrides", COMMAND_LINES, ids=lambda o: " ".join(o) or "none")
def test_every_composition_is_hydras_whole_one(project, overrides):
    folder, _ = project
    try:
        whole = _whole(folder, overrides)
    except Exception as refused:
        with pytest.raises(ConfigError):
            _memo(folder, overrides)
        pytest.skip(f"Hydra refuses it: {type(refused).__name__}")
    memo = _memo(folder, overrides)
    assert OmegaConf.to_yaml(memo) == OmegaConf.to_yaml(whole)
    assert OmegaConf.is_struct(memo) == OmegaConf.is_struct(whole)
    assert OmegaConf.is_readonly(memo) == OmegaConf.is_readonly(whole)


def test_field_overrides_reuse_one_composition_of_the_groups(project):
    folder, made = project
    for seed in range(4):
        _memo(folder, ["agent_b=grim", f"run.seed={seed}", f"run.output_dir=/tmp/r{seed}"])
    _memo(folder, ["agent_b=tft", "run.seed=1"])
    assert made == [("agent_b=grim",), ("agent_b=tft",)]


def test_a_composition_handed_out_is_the_callers_to_change(project):
    folder, _ = project
    first = _memo(folder, ["agent_b=grim"])
    OmegaConf.update(first, "run.seed", 99, force_add=True)
    with open_dict(first):
        del first["agent_a"]
    again = _memo(folder, ["agent_b=grim"])
    assert again.run.seed != 99 and "agent_a" in again


def test_a_changed_tree_is_composed_again(tmp_path, monkeypatch):
    shutil.copytree(ROOT / "conf", tmp_path / "conf")  # a copy of its own: this test writes it
    folder, made = _counting(tmp_path, monkeypatch)
    before = _memo(folder, ["agent_b=grim"])
    group_file = folder / "conf" / "agent_b" / "grim.yaml"  # a copy: the repository links it
    group_file.write_text(group_file.read_text().replace("name: null", "name: grim_changed"))
    after = _memo(folder, ["agent_b=grim"])
    assert made == [("agent_b=grim",), ("agent_b=grim",)]
    assert (before.agent_b.name, after.agent_b.name) == (None, "grim_changed")


@pytest.mark.parametrize(
    "overrides",
    [
        ["agent_b=grim", "run.no_such_field=3"],  # Hydra: Could not override
        ["+run.seed=5"],  # Hydra: Could not append, an item is already there
        ["~run.no_such_field"],  # Hydra: Could not delete
        ["agent_b=no_such_policy"],  # a group option that does not exist
        ["run.seed=1,2"],  # a sweep in a single composition
        ["agent_b=grim", "agent_b.params={p: 2}", "run.seed=x"],  # a value of the wrong type
    ],
)
def test_what_hydra_refuses_is_refused_as_without_the_memo(project, overrides, monkeypatch):
    folder, _ = project
    with pytest.raises(ConfigError) as memo:
        _memo(folder, overrides)
    # The same command line composed by Hydra whole, every time, as before the memo.
    monkeypatch.setattr(
        composition_memo,
        "compose",
        lambda config_name, overrides, tree_key: compose(
            config_name=config_name, overrides=list(overrides)
        ),
    )
    with pytest.raises(ConfigError) as whole:
        _memo(folder, overrides)
    assert str(memo.value) == str(whole.value)
    assert (memo.value.file, memo.value.field) == (whole.value.file, whole.value.field)
