"""Hydra composes a command line's group choices once per process, while the config tree does not
change; its field overrides are applied to a copy each time, by Hydra's own function.

Hydra composes in two steps: the defaults list (the primary config and every group option the
command line chooses, Hydra's own settings among them), then the field overrides
(`run.output_dir=...`, `+agent_a.words=[...]`, `~agent_a.label_style`), applied in order to the
composed config (`ConfigLoaderImpl._apply_overrides_to_config`). A field override cannot change
the defaults list (a defaults-list interpolation reads group choices only), so the conditions of an
experiment, the jobs of a sweep and a `validate` before a `run`, which mostly differ in field
overrides, share the first step: about 0.2 CPU s a composition, and the tests make thousands.

Which override is a group choice is Hydra's own call (`Overrides`: a group that exists, a value
that is not a dict). Anything the memo cannot vouch for (a sweep value, a search path, any error)
is composed whole by Hydra, so a refusal is always Hydra's own. The key is the config tree's
contents (`tree_key`), the primary's name, the group choices and the options registered in
Hydra's ConfigStore: a changed file is composed again.
"""

from __future__ import annotations

import copy
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from omegaconf import DictConfig, OmegaConf, open_dict

from pdbench.config.overrides import Overrides

MAX_BASES = 64  # compositions of group choices kept (a few hundred KB each at most)

_BASES: OrderedDict[tuple[Any, ...], DictConfig] = OrderedDict()


def compose(config_name: str, overrides: Overrides, tree_key: bytes) -> DictConfig:
    """`hydra.compose(config_name, overrides)` inside an initialised config dir, the group
    choices composed once per (tree_key, ConfigStore) state; `overrides` come parsed, as every
    front door reads them (pdbench.config.overrides). The caller owns what it gets."""
    from hydra import compose as hydra_compose

    split = _split(overrides)
    if split is None:
        return hydra_compose(config_name=config_name, overrides=list(overrides))
    group_lines, field_overrides = split
    key = (tree_key, config_name, tuple(group_lines), store_state())
    try:
        base = _BASES.get(key)
        if base is None:
            base = _compose_groups(config_name, group_lines)
            if OmegaConf.select(base, "hydra.searchpath"):
                # Another config folder joins the search path: its files are not in tree_key.
                return hydra_compose(config_name=config_name, overrides=list(overrides))
            _BASES[key] = base
            if len(_BASES) > MAX_BASES:
                _BASES.popitem(last=False)
        else:
            _BASES.move_to_end(key)
        composed = copy.deepcopy(base)
        _apply_field_overrides(field_overrides, composed)
    except Exception:
        return hydra_compose(config_name=config_name, overrides=list(overrides))
    with open_dict(composed):  # as hydra.compose() hands it out: without Hydra's own node
        del composed["hydra"]
    return composed


def _split(overrides: Overrides) -> tuple[list[str], list[Any]] | None:
    """(the group choices' lines, the field overrides' parse) as Hydra tells them apart; None
    when a line is a sweep or sets the search path (Hydra composes those whole)."""
    from hydra.core.global_hydra import GlobalHydra

    repository = GlobalHydra.instance().hydra.config_loader.repository  # type: ignore[union-attr]
    group_lines: list[str] = []
    field_overrides: list[Any] = []
    for line, override in zip(overrides, overrides.parsed, strict=True):
        if override.is_sweep_override() or override.key_or_group.startswith("hydra.searchpath"):
            return None
        if is_group_choice(override, repository):
            group_lines.append(line)
        else:
            field_overrides.append(override)
    return group_lines, field_overrides


def _compose_groups(config_name: str, group_lines: Sequence[str]) -> DictConfig:
    """Hydra's composition of the group choices, its own node kept (field overrides may set
    hydra.* fields, as on a whole command line)."""
    from hydra import compose as hydra_compose

    return hydra_compose(
        config_name=config_name, overrides=list(group_lines), return_hydra_config=True
    )


def _apply_field_overrides(field_overrides: list[Any], composed: DictConfig) -> None:
    from hydra._internal.config_loader_impl import ConfigLoaderImpl

    ConfigLoaderImpl._apply_overrides_to_config(field_overrides, composed)


def is_group_choice(override: Any, repository: Any) -> bool:
    """Hydra's own rule (hydra._internal.defaults_list.Overrides): a group that exists in
    `repository`, unless the value is a dict, which sets the group's fields."""
    return bool(repository.group_exists(override.key_or_group)) and not isinstance(
        override.value(), dict
    )


def store_state() -> tuple[int, ...]:
    """What Hydra's ConfigStore holds, as far as a composition can tell: the number of options in
    each group (pdbench adds the installed games' and agents' options; nothing removes one)."""
    from hydra.core.config_store import ConfigStore

    return _sizes(ConfigStore.instance().repo)


def _sizes(node: dict[str, Any]) -> tuple[int, ...]:
    sizes = [len(node)]
    for value in node.values():
        if isinstance(value, dict):
            sizes.extend(_sizes(value))
    return tuple(sizes)
