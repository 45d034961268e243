"""Agents and group options in config files: a group name (`tft`), or `{ref: <file>, overrides:
{...} or [key=value, ...]}` (nested refs are followed and cycle-checked)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from omegaconf import DictConfig, ListConfig, OmegaConf

from pdbench.config.installed_options import installed_options
from pdbench.config.override_fields import declared, unknown_field
from pdbench.config.overrides import apply_overrides
from pdbench.config.tree import conf_dir, group_options, unknown_option
from pdbench.config.yaml_reader import display_path, read_yaml
from pdbench.core.errors import ConfigError, did_you_mean
from pdbench.games.registry import known_game_id


def load_group_option(group: str, option: str, project_root: Path, shown: str) -> DictConfig:
    """conf/<group>/<option>.yaml, for `group=option` in an experiment file's overrides (a game
    by either spelling: `game=stag-hunt` is conf/game/stag_hunt.yaml)."""
    options = group_options(group, project_root)
    if group == "game" and option not in options:
        option = known_game_id(option) or option
    if option not in options:
        raise ConfigError(unknown_option(group, option, project_root), file=shown, field=group)
    installed = installed_options(group, conf_dir(project_root))
    if option in installed:  # a plugin game's, without a file
        return OmegaConf.create(installed[option])
    node = read_yaml(conf_dir(project_root) / group / f"{option}.yaml", project_root)
    if group == "persona":  # persona files are `@package _global_`: {persona: <name>}
        return node.get("persona")
    if group in node and isinstance(node.get(group), DictConfig):
        # A `@package _global_` preset for the Hydra door that sets other groups too (the
        # AgentDuel game sets its 5-round horizon): taking only its game would silently drop them.
        others = sorted(str(key) for key in node if key != group)
        raise ConfigError(
            f"conf/{group}/{option}.yaml is a command-line preset that also sets "
            f"{', '.join(others)}; in an experiment file, copy its {group} and "
            f"{', '.join(others)} blocks",
            file=shown,
            field=group,
        )
    return node


def resolve_agent(
    value: Any,
    *,
    base_dir: Path,
    project_root: Path,
    shown: str,
    where: str,
    stack: tuple = (),
    group: str = "agent",
) -> DictConfig:
    """Turn a group name or `{ref, overrides}` into a full agent config, following nested refs.
    A name is an option of `group` (conf/agent/, or a third role's options folder)."""
    if isinstance(value, str):
        options = group_options(group, project_root)
        if value not in options:
            raise ConfigError(unknown_option(group, value, project_root), file=shown, field=where)
        installed = installed_options(group, conf_dir(project_root))
        if value in installed:  # a plugin game's house player, without a file
            return OmegaConf.create(installed[value])
        return resolve_ref(
            f"{group}/{value}.yaml",
            {},
            base_dir=base_dir,
            project_root=project_root,
            shown=shown,
            where=where,
            stack=stack,
        )
    if isinstance(value, DictConfig) and "ref" in value:
        extra = set(value.keys()) - {"ref", "overrides"}
        if extra:
            raise ConfigError(
                f"a ref takes only ref and overrides, not {', '.join(sorted(map(str, extra)))}",
                file=shown,
                field=where,
            )
        return resolve_ref(
            str(value.ref),
            value.get("overrides") or {},
            base_dir=base_dir,
            project_root=project_root,
            shown=shown,
            where=where,
            stack=stack,
        )
    if isinstance(value, DictConfig):
        return value
    raise ConfigError(
        "an agent is a name from conf/agent/ or {ref: <file>, overrides: {...}}",
        file=shown,
        field=where,
    )


def resolve_ref(
    ref: str,
    overrides: Any,
    *,
    base_dir: Path,
    project_root: Path,
    shown: str,
    where: str,
    stack: tuple,
) -> DictConfig:
    path = (base_dir / ref).resolve()
    if not path.is_file():
        known = [str(p.relative_to(base_dir)) for p in sorted(base_dir.rglob("*.yaml"))]
        raise ConfigError(
            f'ref "{ref}" not found under {display_path(base_dir, project_root)}/'
            + did_you_mean(ref, known),
            file=shown,
            field=f"{where}.ref",
        )
    if path in stack:
        cycle = " -> ".join(display_path(p, project_root) for p in (*stack, path))
        raise ConfigError(f"ref cycle: {cycle}", file=shown, field=f"{where}.ref")
    node = read_yaml(path, project_root)
    if "ref" in node:  # a ref file may itself be a ref with overrides
        node = resolve_agent(
            node,
            base_dir=base_dir,
            project_root=project_root,
            shown=display_path(path, project_root),
            where=where,
            stack=(*stack, path),
        )
    if overrides:
        if isinstance(overrides, ListConfig | list):
            node = apply_overrides(node, [str(o) for o in overrides], shown)
        else:
            unknown = [str(k) for k in overrides if not declared(node, str(k))]
            if unknown:
                problem = unknown_field(node, where, unknown[0], add_hint="", override_syntax=False)
                raise ConfigError(
                    f"{problem} (in {display_path(path, project_root)})",
                    file=shown,
                    field=f"{where}.overrides.{unknown[0]}",
                )
            node = merge_agent(node, overrides)
    return node


def merge_agent(node: DictConfig, overrides: DictConfig) -> DictConfig:
    """Merge overrides into an agent deeply. An agent whose provider is the shared one
    (`${provider}`) gets its provider overrides merged onto the shared provider later (see
    `validation.condition_dict`), so `{provider: {model: x}}` keeps the shared name and api_base."""
    if "provider" in overrides and OmegaConf.is_interpolation(node, "provider"):
        node = node.copy()
        node.provider = {}  # an empty mapping inherits every field of the shared provider
    merged = OmegaConf.merge(node, overrides)
    assert isinstance(merged, DictConfig)
    return merged
