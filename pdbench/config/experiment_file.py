"""Front door 1: an experiment file (conf/experiment.yaml) with named conditions."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, ListConfig, OmegaConf

from pdbench.config.files import load_group_option, merge_agent, resolve_agent
from pdbench.config.mechanism import mechanism_type, under_its_mechanism
from pdbench.config.overrides import NO_OVERRIDES, Overrides, apply_cli_options, apply_overrides
from pdbench.config.population import read_population
from pdbench.config.schema import (
    SEAT_FIELDS,
    FixedHorizonSpec,
    GameSpec,
    MetricsSpec,
    ProviderSpec,
    RunSpec,
)
from pdbench.config.tournament import DEFAULTS as TOURNAMENT_DEFAULTS
from pdbench.config.tournament import tournament_conditions
from pdbench.config.tree import ROLES, LoadedConfig, conf_dir, group_folder
from pdbench.config.validation import (
    assemble,
    condition_dict,
    unknown_key_path,
)
from pdbench.config.yaml_reader import display_path, read_yaml
from pdbench.core.errors import ConfigError, did_you_mean

TOP_LEVEL_KEYS = (
    "run",
    "game",
    "mechanism",  # conf/mechanism/ by name, or a mapping (docs/mechanisms.md)
    "horizon",
    "provider",
    "persona",
    "conditions",
    *ROLES,  # the games' third roles, bound for every condition
    "tournament",
    "metrics",
)
CONDITION_KEYS = (
    "name",
    "factors",
    *SEAT_FIELDS,
    "population",  # or every seat at once (pdbench.config.population)
    # the third roles the registered games declare, by name (`tree.ROLES`)
    *ROLES,
    "game",
    "mechanism",
    "horizon",
    "overrides",
)
# Groups whose option a command line may pick by name, as in Hydra (`game=stag_hunt`).
FILE_GROUPS = ("game", "mechanism", "horizon", "provider", "persona")


def load_experiment_file(
    path: Path,
    overrides: Overrides = NO_OVERRIDES,
    *,
    project_root: Path,
    replicates: int | None = None,
    run_id: str | None = None,
) -> LoadedConfig:
    shown = display_path(path, project_root)
    from_file = read_yaml(path, project_root)
    _check_keys(from_file, TOP_LEVEL_KEYS, shown, where=None)
    cfg = OmegaConf.merge(_defaults(from_file), from_file)
    assert isinstance(cfg, DictConfig)
    if overrides:
        apply_overrides(
            cfg,
            overrides,
            shown,
            load_group=lambda group, option: load_group_option(group, option, project_root, shown),
            groups=FILE_GROUPS,
        )
        _check_keys(cfg, TOP_LEVEL_KEYS, shown, where=None)
        _new_game_loads_its_own_payoffs(cfg, overrides.keys())
    apply_cli_options(cfg, replicates, run_id)
    base_dir = conf_dir(project_root)
    if not base_dir.is_dir():
        base_dir = path.parent
    conditions_cfg = cfg.get("conditions")
    if "tournament" in cfg:  # a round robin over a list of agents (pdbench.config.tournament)
        if conditions_cfg is not None:
            raise ConfigError(
                "give conditions or a tournament, not both", file=shown, field="tournament"
            )
        conditions_cfg = tournament_conditions(
            cfg.tournament, base_dir=base_dir, project_root=project_root, shown=shown
        )
    if not isinstance(conditions_cfg, ListConfig) or len(conditions_cfg) == 0:
        raise ConfigError("at least one condition is needed", file=shown, field="conditions")

    mechanisms = [_mechanism(raw, cfg, project_root, shown) for raw in conditions_cfg]
    crossed = any(mechanism_type(m) != "none" for m in mechanisms if m is not None)
    conditions = [
        _condition(raw, index, cfg, base_dir, project_root, shown, mechanism, crossed)
        for index, (raw, mechanism) in enumerate(zip(conditions_cfg, mechanisms, strict=True))
    ]
    return assemble(
        cfg,
        conditions,
        shown=shown,
        overrides=overrides,
        project_root=project_root,
        config_path=path,
    )


def _defaults(cfg: DictConfig) -> dict[str, Any]:
    """Every documented field at its default, so any of them can be overridden even if unset."""
    defaults: dict[str, Any] = {
        "run": RunSpec().model_dump(),
        "metrics": MetricsSpec().model_dump(),
        "game": GameSpec().model_dump(),
    }
    if "provider" in cfg:
        defaults["provider"] = ProviderSpec().model_dump()
    if "tournament" in cfg:
        defaults["tournament"] = {k: v for k, v in TOURNAMENT_DEFAULTS.items() if k != "agents"}
    horizon_type = OmegaConf.select(cfg, "horizon.type", default="fixed")
    if horizon_type == "geometric":
        # No default stop_prob: a geometric horizon must say it (validation names it if not).
        defaults["horizon"] = {"type": "geometric", "max_rounds": None}
    elif horizon_type == "fixed":
        defaults["horizon"] = FixedHorizonSpec().model_dump()
    return defaults


def _check_keys(node: DictConfig, known: Sequence[str], shown: str, where: str | None) -> None:
    for key in map(str, node):
        if key not in known:
            path = unknown_key_path(node, key)
            field = f"{where}.{path}" if where else path
            raise ConfigError(
                f"unknown {'field' if where else 'top-level key'}{did_you_mean(key, known)}",
                file=shown,
                field=field,
            )


def _new_game_loads_its_own_payoffs(cfg: DictConfig, keys: Sequence[str]) -> None:
    """`game.id=<another 2x2 game>` plays that game's payoffs and labels, not the file's
    game's, unless the same command line also gives payoffs or labels."""
    if "game.id" not in keys:
        return
    for part in ("payoffs", "labels"):
        if not any(key == f"game.{part}" or key.startswith(f"game.{part}.") for key in keys):
            cfg.game[part] = None


def _mechanism(raw: Any, cfg: DictConfig, project_root: Path, shown: str) -> Any:
    """A condition's mechanism (its own, else the file's): conf/mechanism/<name>.yaml when
    named, a mapping as given; None when neither says one."""
    value = raw.get("mechanism") if isinstance(raw, DictConfig) else None
    if value is None:
        value = cfg.get("mechanism")
    if isinstance(value, str):
        return load_group_option("mechanism", value, project_root, shown)
    return value


def _condition(
    raw: Any,
    index: int,
    cfg: DictConfig,
    base_dir: Path,
    project_root: Path,
    shown: str,
    mechanism: Any = None,
    crossed: bool = False,
) -> dict:
    """One condition; `mechanism` plays its game under one (`pdbench.config.mechanism`),
    `crossed`: the file crosses none with other mechanisms."""
    name = raw.get("name", f"condition_{index}") if isinstance(raw, DictConfig) else "?"
    name = None if name is None else str(name)  # `name:` left empty is missing, not "None"
    where = f"conditions[{index}]({name})"
    if not isinstance(raw, DictConfig):
        raise ConfigError(
            "a condition is a mapping with name, agent_a, agent_b", file=shown, field=where
        )
    _check_keys(raw, CONDITION_KEYS, shown, where=where)
    node = OmegaConf.create(
        {
            "name": name,
            "factors": raw.get("factors", {}),
            "game": raw.get("game", cfg.get("game", {})),
            # No horizon anywhere: the default fixed horizon (20 rounds).
            "horizon": raw.get("horizon", cfg.get("horizon")) or {"type": "fixed"},
        }
    )
    if raw.get("population") is not None:
        node["population"] = read_population(
            raw.population,
            lambda value, field: resolve_agent(
                value, base_dir=base_dir, project_root=project_root, shown=shown, where=field
            ),
            shown=shown,
            where=f"{where}.population",
        )
    for side in SEAT_FIELDS:
        if side not in raw:
            # further seats: the game says how many; a population binds them all
            if side in ("agent_a", "agent_b") and "population" not in node:
                raise ConfigError("missing", file=shown, field=f"{where}.{side}")
            continue
        node[side] = resolve_agent(
            raw[side],
            base_dir=base_dir,
            project_root=project_root,
            shown=shown,
            where=f"{where}.{side}",
        )
    for role in ROLES:  # bound per condition, or at the top for every condition
        bound = raw.get(role, cfg.get(role))
        if bound is None:
            continue
        panel = isinstance(bound, ListConfig)  # several agents: a panel
        resolved = [
            resolve_agent(
                member,
                base_dir=base_dir,
                project_root=project_root,
                shown=shown,
                where=f"{where}.{role}" + (f"[{i}]" if panel else ""),
                group=group_folder(role),
            )
            for i, member in enumerate(bound if panel else [bound])
        ]
        node[role] = resolved if panel else resolved[0]
    condition_overrides = raw.get("overrides")
    if condition_overrides and _changes_the_population(condition_overrides):
        raise ConfigError(
            "a population is given in the condition itself (its `population:`), not changed "
            "by its overrides",
            file=shown,
            field=f"{where}.overrides.population",
        )
    if condition_overrides:
        if isinstance(condition_overrides, ListConfig):
            node = apply_overrides(node, [str(o) for o in condition_overrides], shown)
        else:
            node = merge_condition(node, condition_overrides)
    # no mechanism named is `none`, as the Hydra door's default: it leaves a game as it is, but
    # a game played only under the mechanisms' family becomes that family's game
    here = where if isinstance(raw, DictConfig) and raw.get("mechanism") is not None else ""
    node = under_its_mechanism(
        node,
        mechanism if mechanism is not None else {"type": "none"},
        shown=shown,
        where=here,
        none_as_turn_game=crossed,
    )
    return condition_dict(node, cfg, shown)


def _changes_the_population(overrides: Any) -> bool:
    if isinstance(overrides, ListConfig):
        return any(str(line).lstrip("+~").startswith("population") for line in overrides)
    return isinstance(overrides, DictConfig) and "population" in overrides


def merge_condition(node: DictConfig, overrides: DictConfig) -> DictConfig:
    """Merge a condition's overrides; a horizon or agent whose `type` changes is replaced whole,
    since the fields of a fixed horizon mean nothing to a geometric one. Agents are merged as
    refs are (`merge_agent`): provider fields merge onto the shared provider."""
    for key in ("horizon", *SEAT_FIELDS, *ROLES):
        replacement = overrides.get(key)
        if (
            isinstance(replacement, DictConfig)
            and "type" in replacement
            and replacement.type != (node.get(key) or {}).get("type")
        ):
            node[key] = replacement
            overrides = OmegaConf.masked_copy(overrides, [str(k) for k in overrides if k != key])
    for side in (*SEAT_FIELDS, *ROLES):
        if isinstance(overrides.get(side), DictConfig) and isinstance(node.get(side), DictConfig):
            node[side] = merge_agent(node[side], overrides[side])
            overrides = OmegaConf.masked_copy(overrides, [str(k) for k in overrides if k != side])
    merged = OmegaConf.merge(node, overrides)
    assert isinstance(merged, DictConfig)
    return merged
