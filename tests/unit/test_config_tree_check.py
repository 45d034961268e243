"""The Hydra door reads every file of the config tree with pdbench's strict reader before it
composes (a duplicate key in a group file is one line naming the file). A sweep composes once per
job: the tree is read once per process while no file changes, and again when one does."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pdbench.config import hydra_compose, yaml_reader
from pdbench.core.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def tree(tmp_path, monkeypatch):
    shutil.copytree(ROOT / "conf", tmp_path / "conf")
    reads: list[Path] = []
    original = yaml_reader.read_yaml

    def counted(path, project_root):
        reads.append(path)
        return original(path, project_root)

    monkeypatch.setattr(yaml_reader, "read_yaml", counted)
    return tmp_path, reads


def test_the_tree_is_read_once_while_it_does_not_change(tree):
    project, reads = tree
    files = len(list((project / "conf").rglob("*.yaml")))
    for opponent in ("grim", "tft", "alld"):
        hydra_compose.compose_primary(
            project / "conf" / "config.yaml", [f"agent_b={opponent}"], project_root=project
        )
    assert len(reads) == files


def test_a_file_changed_since_is_read_again_and_refused(tree):
    project, reads = tree
    primary = project / "conf" / "config.yaml"
    hydra_compose.compose_primary(primary, [], project_root=project)
    read_before = len(reads)
    group_file = project / "conf" / "agent" / "grim.yaml"
    group_file.write_text(group_file.read_text() + "type: policy\ntype: policy\n")
    with pytest.raises(ConfigError) as refused:
        hydra_compose.compose_primary(primary, [], project_root=project)
    assert "agent/grim.yaml" in str(refused.value)
    assert group_file in reads[read_before:]  # read again: it changed
