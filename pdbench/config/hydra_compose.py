"""Front door 2: Hydra's primary config (conf/config.yaml), one condition per composition."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from pdbench.config.files import display_path, with_cli_options
from pdbench.config.tree import GROUPS, HYDRA_GROUPS, LoadedConfig, conf_dir, group_options
from pdbench.config.validation import condition_dict, finish, to_plain, validate_spec
from pdbench.core.errors import ConfigError, did_you_mean, unknown_choice


def _parse(overrides: Sequence[str], shown: str) -> list:
    """Hydra's own reading of command-line overrides (sweeps, choice(), lists, +/~ prefixes)."""
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import OverrideParseException

    try:
        return OverridesParser.create().parse_overrides(list(overrides))
    except OverrideParseException as error:
        raise ConfigError(str(error).splitlines()[0], file=shown) from None


def check_group_overrides(
    overrides: Sequence[str], project_root: Path, shown: str = "conf/config.yaml"
) -> None:
    """Check `group=option[,option...]` overrides before Hydra sees them: unknown options get a
    "did you mean" instead of Hydra's stack trace."""
    for override in _parse(overrides, shown):
        group = override.key_or_group
        if group not in HYDRA_GROUPS and group not in GROUPS:
            continue
        if override.is_sweep_override():
            if not override.is_choice_sweep():
                continue  # range() or glob() of a group: left to Hydra
            values = list(override.sweep_string_iterator())
        elif override.value() is None:
            continue  # ~group deletes the choice
        else:
            values = [str(override.value())]
        folder = "agent" if group in ("agent_a", "agent_b") else group
        options = group_options(folder, project_root)
        for option in values:
            if option not in options:
                raise ConfigError(
                    unknown_choice(folder, option, options),
                    file=shown,
                    field=override.package or group,
                )


def condition_name_from_overrides(task_overrides: Sequence[str], cfg: DictConfig) -> str:
    """A readable, unique name for one composition: its overrides, or "a_vs_b"."""
    meaningful = [o for o in task_overrides if not o.startswith(("run.", "hydra", "metrics."))]
    if meaningful:
        return ",".join(sorted(meaningful))
    return f"{_agent_label(cfg.agent_a)}_vs_{_agent_label(cfg.agent_b)}"


def _agent_label(agent: DictConfig) -> str:
    return str(agent.get("policy") or agent.get("name") or agent.get("type"))


def spec_from_composed(
    cfg: DictConfig,
    *,
    condition_name: str,
    project_root: Path,
    source: str,
    overrides: Sequence[str] = (),
) -> LoadedConfig:
    """One condition from a Hydra composition (by `compose()` or inside `@hydra.main`)."""
    shown = source
    node = OmegaConf.create(
        {
            "name": condition_name,
            "game": cfg.game,
            "horizon": cfg.horizon,
            "agent_a": cfg.agent_a,
            "agent_b": cfg.agent_b,
        }
    )
    condition = condition_dict(node, cfg, shown)
    data = {
        "run": to_plain(cfg.get("run", {}), shown),
        "metrics": to_plain(cfg.get("metrics", {}), shown),
        "conditions": [condition],
        "source": shown,
        "overrides": list(overrides),
    }
    spec = validate_spec(data, shown=shown)
    return finish(
        spec, project_root=project_root, config_path=project_root / "conf" / "config.yaml"
    )


def compose_primary(path: Path, overrides: Sequence[str], *, project_root: Path) -> DictConfig:
    """Hydra's compose API on the primary config (one composition, no sweep)."""
    from hydra import compose, initialize_config_dir
    from hydra.errors import HydraException

    shown = display_path(path, project_root)
    check_group_overrides(overrides, project_root, shown)
    with initialize_config_dir(config_dir=str(path.parent.resolve()), version_base="1.3"):
        try:
            return compose(config_name=path.stem, overrides=list(overrides))
        except HydraException as error:
            first = str(error).splitlines()[0]
            key = first.split("'")[1] if first.count("'") >= 2 else None
            if not (key and "Could not override" in first):
                raise ConfigError(first, file=shown) from None
            # Compose without the bad key to learn its siblings for a "did you mean".
            rest = [o for o in overrides if o.lstrip("+~").partition("=")[0] != key]
            try:
                cfg = compose(config_name=path.stem, overrides=rest)
            except (HydraException, OmegaConfBaseException):
                cfg = None
            parent_key, _, leaf = key.rpartition(".")
            parent = OmegaConf.select(cfg, parent_key) if cfg is not None and parent_key else cfg
            siblings = [str(k) for k in parent] if isinstance(parent, DictConfig) else []
            raise ConfigError(
                f"no such field{did_you_mean(leaf, siblings)}", file=shown, field=key
            ) from None
        except OmegaConfBaseException as error:
            raise ConfigError(str(error).splitlines()[0], file=shown) from None


def preflight_hydra_overrides(overrides: Sequence[str], project_root: Path) -> None:
    """Check command-line overrides for `python -m pdbench` before Hydra launches anything:
    group options (all sweep values) and fields (by composing the non-sweep overrides once)."""
    primary = conf_dir(project_root) / "config.yaml"
    shown = display_path(primary, project_root)
    check_group_overrides(overrides, project_root, shown)
    fixed = [
        o.input_line
        for o in _parse(overrides, shown)
        if not o.is_sweep_override() and not o.key_or_group.startswith("hydra")
    ]
    compose_primary(primary, fixed, project_root=project_root)


def load_primary_file(
    path: Path,
    overrides: Sequence[str] = (),
    *,
    project_root: Path,
    replicates: int | None = None,
    run_id: str | None = None,
) -> LoadedConfig:
    extra = with_cli_options(overrides, replicates, run_id)
    cfg = compose_primary(path, extra, project_root=project_root)
    name = condition_name_from_overrides(list(overrides), cfg)
    return spec_from_composed(
        cfg,
        condition_name=name,
        project_root=project_root,
        source=display_path(path, project_root),
        overrides=extra,
    )
