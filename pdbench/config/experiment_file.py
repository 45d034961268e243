"""Front door 1: an experiment file (conf/experiment.yaml) with named conditions."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, ListConfig, OmegaConf

from pdbench.config.files import (
    apply_dotlist,
    display_path,
    read_yaml,
    resolve_agent,
    with_cli_options,
)
from pdbench.config.schema import (
    FixedHorizonSpec,
    GameSpec,
    GeometricHorizonSpec,
    MetricsSpec,
    ProviderSpec,
    RunSpec,
)
from pdbench.config.tree import LoadedConfig, conf_dir
from pdbench.config.validation import condition_dict, finish, to_plain, validate_spec
from pdbench.core.errors import ConfigError, did_you_mean


def load_experiment_file(
    path: Path,
    overrides: Sequence[str] = (),
    *,
    project_root: Path,
    replicates: int | None = None,
    run_id: str | None = None,
) -> LoadedConfig:
    shown = display_path(path, project_root)
    cfg = read_yaml(path, project_root)
    known = {"run", "game", "horizon", "provider", "persona", "conditions", "metrics"}
    for key in cfg:
        if key not in known:
            raise ConfigError(
                f"unknown top-level key{did_you_mean(str(key), known)}", file=shown, field=str(key)
            )
    # Start from the defaults so that any documented field can be overridden, even if unset.
    defaults: dict[str, Any] = {
        "run": RunSpec().model_dump(),
        "metrics": MetricsSpec().model_dump(),
        "game": GameSpec().model_dump(),
    }
    if "provider" in cfg:
        defaults["provider"] = ProviderSpec().model_dump()
    horizon_type = OmegaConf.select(cfg, "horizon.type", default="fixed")
    horizon_model = GeometricHorizonSpec if horizon_type == "geometric" else FixedHorizonSpec
    if horizon_type in ("fixed", "geometric"):
        defaults["horizon"] = horizon_model.model_construct().model_dump() | {"type": horizon_type}
    cfg = OmegaConf.merge(defaults, cfg)
    cfg = apply_dotlist(cfg, with_cli_options(overrides, replicates, run_id), shown)
    base_dir = conf_dir(project_root)
    if not base_dir.is_dir():
        base_dir = path.parent
    conditions_cfg = cfg.get("conditions")
    if not isinstance(conditions_cfg, ListConfig) or len(conditions_cfg) == 0:
        raise ConfigError("at least one condition is needed", file=shown, field="conditions")

    conditions = []
    for index, raw in enumerate(conditions_cfg):
        name = str(raw.get("name", f"condition_{index}")) if isinstance(raw, DictConfig) else "?"
        where = f"conditions[{index}]({name})"
        if not isinstance(raw, DictConfig):
            raise ConfigError(
                "a condition is a mapping with name, agent_a, agent_b", file=shown, field=where
            )
        allowed = {"name", "agent_a", "agent_b", "game", "horizon", "overrides"}
        for key in raw:
            if key not in allowed:
                raise ConfigError(
                    f"unknown field{did_you_mean(str(key), allowed)}",
                    file=shown,
                    field=f"{where}.{key}",
                )
        node = OmegaConf.create(
            {
                "name": name,
                "game": raw.get("game", cfg.get("game", {})),
                # No horizon anywhere: the default fixed horizon (20 rounds).
                "horizon": raw.get("horizon", cfg.get("horizon")) or {"type": "fixed"},
            }
        )
        for side in ("agent_a", "agent_b"):
            if side not in raw:
                raise ConfigError("missing", file=shown, field=f"{where}.{side}")
            node[side] = resolve_agent(
                raw[side],
                base_dir=base_dir,
                project_root=project_root,
                shown=shown,
                where=f"{where}.{side}",
            )
        condition_overrides = raw.get("overrides")
        if condition_overrides:
            if isinstance(condition_overrides, ListConfig):
                node = apply_dotlist(node, [str(o) for o in condition_overrides], shown)
            else:
                node = merge_condition(node, condition_overrides)
        conditions.append(condition_dict(node, cfg, shown))

    data = {
        "run": to_plain(cfg.get("run", {}), shown),
        "metrics": to_plain(cfg.get("metrics", {}), shown),
        "conditions": conditions,
        "source": shown,
        "overrides": list(overrides),
    }
    spec = validate_spec(data, shown=shown)
    return finish(spec, project_root=project_root, config_path=path)


def merge_condition(node: DictConfig, overrides: DictConfig) -> DictConfig:
    """Merge a condition's overrides; a horizon or agent whose `type` changes is replaced whole,
    since the fields of a fixed horizon mean nothing to a geometric one."""
    for key in ("horizon", "agent_a", "agent_b"):
        replacement = overrides.get(key)
        if (
            isinstance(replacement, DictConfig)
            and "type" in replacement
            and replacement.type != node[key].get("type")
        ):
            node[key] = replacement
            overrides = OmegaConf.masked_copy(overrides, [k for k in overrides if k != key])
    return OmegaConf.merge(node, overrides)
