"""The Hydra door reads every file of the config tree with pdbench's strict reader before it
composes (a duplicate key in a group file is one line naming the file). A sweep composes once per
job: a file's contents are parsed and checked once per process while they do not change, wherever
the file is (a copy of the project elsewhere is not parsed again), and again when they do."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pdbench.config import hydra_compose, yaml_reader
from pdbench.core.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def tree(tmp_path, monkeypatch):
    """A copy of conf/ and the list of files whose contents the strict reader parsed."""
    shutil.copytree(ROOT / "conf", tmp_path / "conf")
    monkeypatch.setattr(yaml_reader, "_PARSED", type(yaml_reader._PARSED)())
    monkeypatch.setattr(yaml_reader, "_CHECKED", set())
    parsed: list[bytes] = []
    original = yaml_reader._parse_text

    def counted(raw):
        parsed.append(raw)
        return original(raw)

    monkeypatch.setattr(yaml_reader, "_parse_text", counted)
    return tmp_path, parsed


def test_the_tree_is_parsed_once_while_it_does_not_change(tree):
    project, parsed = tree
    contents = {path.read_bytes() for path in (project / "conf").rglob("*.yaml")}
    for opponent in ("grim", "tft", "alld"):
        hydra_compose.compose_primary(
            project / "conf" / "config.yaml", [f"agent_b={opponent}"], project_root=project
        )
    assert sorted(parsed) == sorted(contents)


def test_a_copy_of_the_tree_elsewhere_is_not_parsed_again(tree, tmp_path):
    project, parsed = tree
    hydra_compose.compose_primary(project / "conf" / "config.yaml", [], project_root=project)
    parsed_first = len(parsed)
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(project / "conf", elsewhere / "conf")
    hydra_compose.compose_primary(elsewhere / "conf" / "config.yaml", [], project_root=elsewhere)
    assert parsed_first > 0
    assert len(parsed) == parsed_first


def test_a_file_changed_since_is_read_again_and_refused(tree):
    project, parsed = tree
    primary = project / "conf" / "config.yaml"
    hydra_compose.compose_primary(primary, [], project_root=project)
    parsed_before = len(parsed)
    group_file = project / "conf" / "agent" / "grim.yaml"
    group_file.write_text(group_file.read_text() + "type: policy\ntype: policy\n")
    with pytest.raises(ConfigError) as refused:
        hydra_compose.compose_primary(primary, [], project_root=project)
    assert "agent/grim.yaml" in str(refused.value)
    assert parsed[parsed_before:] == [group_file.read_bytes()]  # parsed again: it changed
    with pytest.raises(ConfigError) as again:  # a refused file is refused every time
        hydra_compose.compose_primary(primary, [], project_root=project)
    assert "agent/grim.yaml" in str(again.value)


def test_checking_a_plain_file_builds_no_omegaconf_container(tree, monkeypatch):
    """OmegaConf.create was most of the check (0.3 CPU s for the tree, in every process that
    composes): a file of plain YAML values (mappings, lists, strings without `${`, numbers,
    booleans, nulls) is one OmegaConf holds as it is, so only the others are built to be sure."""
    project, _ = tree
    built = []
    original = yaml_reader.OmegaConf.create

    def counted(*args, **kwargs):
        built.append(args)
        return original(*args, **kwargs)

    monkeypatch.setattr(yaml_reader.OmegaConf, "create", counted)
    plain = project / "plain.yaml"
    plain.write_text("a: 1\nb: [x, 2.5, null, true, {c: d}]\nc: {3: three}\n")
    yaml_reader.check_yaml(plain, project)
    assert built == []
    interpolated = project / "interpolated.yaml"
    interpolated.write_text("a: ${b}\nb: 2\n")
    yaml_reader.check_yaml(interpolated, project)
    assert len(built) == 1


@pytest.mark.parametrize(
    ("text", "refusal"),
    [
        ("a: ${b\n", "unsupported value: "),  # an interpolation OmegaConf cannot parse
        ("a: {null: 1}\n", "unsupported value: "),  # a key OmegaConf cannot hold
        ("a: !!binary aGVsbG8=\nb: !!set {x, y}\n", "unsupported value: "),
    ],
)
def test_what_omegaconf_cannot_hold_is_still_refused_by_the_check(tree, text, refusal):
    project, _ = tree
    path = project / "odd.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as checked:
        yaml_reader.check_yaml(path, project)
    with pytest.raises(ConfigError) as read:
        yaml_reader.read_yaml(path, project)
    assert str(checked.value) == str(read.value)
    assert refusal in str(checked.value)
