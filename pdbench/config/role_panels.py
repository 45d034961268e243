"""A panel on the command line: `<role>=[<option>,<option>,<option>]` binds a third role that
takes a panel (`ThirdRole.panel`) to one agent per option listed, each read from the role's
options group alone, in the order given (the first is the chair).

Hydra reads a list of a group's options as options to merge into one node, which for a panel
would be one agent made of three; so the Hydra door takes the role's node from here instead
of from the composition (`hydra_compose.condition_from_composed`). A list for a role without
panels, or a field override of a panel's member (`<role>.params.rule=...`, which Hydra would
apply to the merged node), is refused in one line naming the role.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from omegaconf import DictConfig

from pdbench.config.files import resolve_agent
from pdbench.config.overrides import Overrides
from pdbench.config.tree import ROLES, conf_dir, group_folder
from pdbench.core.errors import ConfigError


def listed_options(override: Any, shown: str) -> list[str] | None:
    """The options a role's choice lists (`<role>=[a,b,c]`), checked to be a panel the role
    takes; None when the override is no such list."""
    role = override.key_or_group
    if role not in ROLES or override.is_sweep_override():
        return None
    value = override.value()
    if not isinstance(value, list):
        return None
    if not ROLES[role].panel:
        raise ConfigError(
            f"a list binds a panel, and one agent plays {role}: choose one option",
            file=shown,
            field=role,
        )
    return [str(option) for option in value]


def command_line_panels(
    overrides: Overrides, project_root: Path, shown: str
) -> dict[str, list[DictConfig]]:
    """role -> its panel's agents, for each role the command line binds to a list of options."""
    panels: dict[str, list[DictConfig]] = {}
    for override in overrides.parsed:
        options = listed_options(override, shown)
        if options is None:
            continue
        role = override.key_or_group
        panels[role] = [
            resolve_agent(
                option,
                base_dir=conf_dir(project_root),
                project_root=project_root,
                shown=shown,
                where=f"{role}[{i}]",
                group=group_folder(role),
            )
            for i, option in enumerate(options)
        ]
    for override in overrides.parsed:
        key = override.key_or_group
        role = key.partition(".")[0]
        if role in panels and key != role:
            raise ConfigError(
                f"a panel's members are the options of conf/{group_folder(role)}/ as they are; "
                f"to change one, bind the panel in an experiment file (docs/judged-games.md)",
                file=shown,
                field=key,
            )
    return panels
