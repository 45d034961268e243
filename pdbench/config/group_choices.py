"""A command line's group choices (`agent_a=tft`, `persona=cooperative,exploitative`) and the
primary's defaults list, checked before Hydra composes: an option that is not there is one line
naming the group, the option, the folder looked in and what is there, instead of Hydra's
message (which names none of it) or its stack trace."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from omegaconf import DictConfig, ListConfig

from pdbench.config.overrides import parse_overrides
from pdbench.config.tree import GROUPS, HYDRA_GROUPS, group_options, unknown_option
from pdbench.config.yaml_reader import read_yaml
from pdbench.core.errors import ConfigError


def check_choices(path: Path, overrides: Iterable[str], project_root: Path, shown: str) -> None:
    """Every group choice of a composition of the primary `path` with `overrides`."""
    check_group_overrides(overrides, project_root, shown)
    check_default_choices(path, overrides, project_root, shown)


# The folder a Hydra group's options are in, where it is not the group's own name.
GROUP_FOLDER = {"agent_a": "agent", "agent_b": "agent", "keeper_audit": "keeper"}


def check_default_choices(
    path: Path, overrides: Iterable[str], project_root: Path, shown: str
) -> None:
    """The choices of the primary's defaults list that the command line leaves: one whose option
    file is missing (a project without conf/persona/) is one line naming the group, the option
    and the folder, before Hydra composes (whose message names none of it)."""
    chosen = {o.key_or_group for o in parse_overrides(overrides, shown)}
    defaults = read_yaml(path, project_root).get("defaults") or []
    for entry in defaults if isinstance(defaults, ListConfig) else []:
        if not isinstance(entry, DictConfig):
            continue  # _self_
        for key, option in entry.items():
            group = str(key)
            if group in chosen or group not in HYDRA_GROUPS or option is None:
                continue
            folder = GROUP_FOLDER.get(group, group)
            if str(option) not in group_options(folder, project_root):
                raise ConfigError(
                    unknown_option(folder, str(option), project_root) + " (the default of "
                    f"{shown}; choose another with {group}=...)",
                    file=shown,
                    field=group,
                )


def check_group_overrides(
    overrides: Iterable[str], project_root: Path, shown: str = "conf/config.yaml"
) -> None:
    """Check `group=option[,option...]` overrides before Hydra sees them: unknown options get a
    "did you mean" instead of Hydra's stack trace."""
    from hydra.core.override_parser.types import ValueType

    for override in parse_overrides(overrides, shown):
        group = override.key_or_group
        if group not in HYDRA_GROUPS and group not in GROUPS:
            continue
        if override.is_sweep_override():
            glob = override.value_type == ValueType.GLOB_CHOICE_SWEEP
            if glob or not override.is_choice_sweep():
                continue  # glob() is matched against the options in sweep.expand; range() left
            values = list(override.sweep_string_iterator())
        elif override.value() is None:
            continue  # ~group deletes the choice
        else:
            values = [str(override.value())]
        folder = GROUP_FOLDER.get(group, group)
        options = group_options(folder, project_root)
        for option in values:
            if option not in options:
                raise ConfigError(
                    unknown_option(folder, option, project_root),
                    file=shown,
                    field=override.package or group,
                )
