"""From config files to a validated `ExperimentSpec`, with errors that name the file and field.

Two front doors end in the same spec:

- an experiment file (`conf/experiment.yaml`): run metadata, a game, a horizon and a list of named
  conditions whose agents are group names (`tft`) or `{ref: "agent/x.yaml", overrides: {...}}`;
- Hydra's primary config (`conf/config.yaml`), composed from the groups game/, horizon/,
  agent_a/, agent_b/, persona/ and provider/: one condition per composition.

Everything here is pure config work: no agent is built and nothing is written.
"""

from __future__ import annotations

import functools
import hashlib
import typing
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
import yaml
from omegaconf import DictConfig, ListConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException
from pydantic import BaseModel, ValidationError

from pdbench.core.errors import ConfigError, did_you_mean, unknown_choice
from pdbench.spec import (
    ArenaAgentSpec,
    ExperimentSpec,
    FixedHorizonSpec,
    GameSpec,
    GeometricHorizonSpec,
    LLMAgentSpec,
    MetricsSpec,
    PolicyAgentSpec,
    ProviderSpec,
    RunSpec,
)

# Config groups of the Hydra tree; agent_a and agent_b are links to agent/.
GROUPS = ("game", "horizon", "agent", "persona", "provider")
HYDRA_GROUPS = ("game", "horizon", "agent_a", "agent_b", "persona", "provider")


# Fields that change how a run is executed or where it is stored, never what it produces.
RESULT_NEUTRAL_FIELDS = {
    "run": {"run_id", "output_dir", "max_concurrency", "max_cost_usd", "cache"},
    "source": True,
    "overrides": True,
}


@dataclass(frozen=True)
class LoadedExperiment:
    """A validated spec plus what is needed to reproduce and audit it."""

    spec: ExperimentSpec
    project_root: Path
    config_path: Path
    # sha256 of every file the spec points at (prompts, personas, arena agents), by relative path.
    referenced_files: dict[str, str] = field(default_factory=dict)

    @property
    def config_hash(self) -> str:
        """Hash of everything that determines the results: the spec and the files it reads.

        Settings that cannot change a single round are left out, so that a run can be named,
        moved, resumed with a larger budget or more concurrency and still be the same run.
        """
        snapshot = self.spec.model_dump(mode="json", exclude=RESULT_NEUTRAL_FIELDS)
        payload = {"spec": snapshot, "files": self.referenced_files}
        return hashlib.sha256(orjson.dumps(payload, option=orjson.OPT_SORT_KEYS)).hexdigest()

    @property
    def run_id(self) -> str:
        if self.spec.run.run_id:
            return self.spec.run.run_id
        return f"{self.config_path.stem}-{self.config_hash[:10]}"

    @property
    def run_dir(self) -> Path:
        output_dir = Path(self.spec.run.output_dir)
        if not output_dir.is_absolute():
            output_dir = self.project_root / output_dir
        return output_dir / self.run_id


def find_project_root(start: Path | None = None) -> Path:
    """The folder holding conf/ and prompts/: the working directory or one of its parents, else
    the folder this package was installed from."""
    here = (start or Path.cwd()).resolve()
    for candidate in (here, *here.parents):
        if (candidate / "conf").is_dir() and (candidate / "prompts").is_dir():
            return candidate
    return Path(__file__).resolve().parent.parent


def conf_dir(project_root: Path) -> Path:
    return project_root / "conf"


def group_options(group: str, project_root: Path) -> list[str]:
    """Options of a config group, e.g. group_options("agent") -> ["allc", "alld", ...]."""
    folder = conf_dir(project_root) / group
    return sorted(p.stem for p in folder.glob("*.yaml")) if folder.is_dir() else []


def describe_option(group: str, option: str, project_root: Path) -> str:
    """The first comment line of a group option's file: its one-line description."""
    path = conf_dir(project_root) / group / f"{option}.yaml"
    for line in path.read_text().splitlines():
        text = line.lstrip("# ").strip()
        if line.startswith("#") and text and not text.startswith("@package"):
            return text
    return ""


# --- reading files -----------------------------------------------------------------------------


def _display(path: Path, project_root: Path) -> str:
    try:
        return str(path.resolve().relative_to(project_root))
    except ValueError:
        return str(path)


# libyaml's C loader when PyYAML was built with it: the same results, several times faster.
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@functools.lru_cache(maxsize=256)
def _parse_yaml(path: Path, mtime_ns: int, size: int) -> Any:
    """Parse a file once per version: a grid names the same group files many times."""
    return yaml.load(path.read_bytes(), Loader=_YAML_LOADER)


def read_yaml(path: Path, project_root: Path) -> DictConfig:
    """Load a YAML mapping; malformed YAML names the file and line."""
    shown = _display(path, project_root)
    if not path.is_file():
        raise ConfigError("file not found", file=shown)
    stat = path.stat()
    try:
        data = _parse_yaml(path, stat.st_mtime_ns, stat.st_size)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "somewhere"
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise ConfigError(f"malformed YAML at {where}: {problem}", file=shown) from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError("the top level must be a mapping of keys to values", file=shown)
    return OmegaConf.create(data)  # a fresh copy: callers merge into it


def _apply_dotlist(cfg: DictConfig, overrides: Sequence[str], shown: str) -> DictConfig:
    """Apply `key=value` overrides; an unknown key is an error with a suggestion."""
    for override in overrides:
        key, sep, value = override.partition("=")
        key = key.lstrip("+")
        if not sep or not key:
            raise ConfigError(f'an override must look like key=value, got "{override}"', file=shown)
        parent_key, _, leaf = key.rpartition(".")
        parent = OmegaConf.select(cfg, parent_key) if parent_key else cfg
        if not isinstance(parent, DictConfig) or leaf not in parent:
            siblings = list(parent.keys()) if isinstance(parent, DictConfig) else []
            raise ConfigError(
                f"no such field{did_you_mean(leaf, [str(s) for s in siblings])}",
                file=shown,
                field=key,
            )
        OmegaConf.update(cfg, key, yaml.safe_load(value) if value else None, merge=False)
    return cfg


# --- agents: group names and refs with overrides ----------------------------------------------


def _resolve_agent(
    value: Any, *, base_dir: Path, project_root: Path, shown: str, where: str, stack: tuple = ()
) -> DictConfig:
    """Turn a group name or `{ref, overrides}` into a full agent config, following nested refs."""
    if isinstance(value, str):
        options = group_options("agent", project_root)
        if value not in options:
            raise ConfigError(unknown_choice("agent", value, options), file=shown, field=where)
        return _resolve_ref(
            f"agent/{value}.yaml",
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
        return _resolve_ref(
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


def _resolve_ref(
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
            f'ref "{ref}" not found under {_display(base_dir, project_root)}/'
            + did_you_mean(ref, known),
            file=shown,
            field=f"{where}.ref",
        )
    if path in stack:
        cycle = " -> ".join(_display(p, project_root) for p in (*stack, path))
        raise ConfigError(f"ref cycle: {cycle}", file=shown, field=f"{where}.ref")
    node = read_yaml(path, project_root)
    if "ref" in node:  # a ref file may itself be a ref with overrides
        node = _resolve_agent(
            node,
            base_dir=base_dir,
            project_root=project_root,
            shown=_display(path, project_root),
            where=where,
            stack=(*stack, path),
        )
    if overrides:
        if isinstance(overrides, ListConfig | list):
            node = _apply_dotlist(node, [str(o) for o in overrides], shown)
        else:
            unknown = [str(k) for k in overrides if k not in node]
            if unknown:
                raise ConfigError(
                    f"no such field{did_you_mean(unknown[0], [str(k) for k in node])} in "
                    f"{_display(path, project_root)}",
                    file=shown,
                    field=f"{where}.overrides.{unknown[0]}",
                )
            node = OmegaConf.merge(node, overrides)
    return node


# --- validation --------------------------------------------------------------------------------


def _format_location(loc: tuple, conditions: list[str]) -> str:
    parts: list[str] = []
    for i, item in enumerate(loc):
        if isinstance(item, int):
            label = f"[{item}]"
            if parts == ["conditions"] and item < len(conditions):
                label = f"[{item}]({conditions[item]})"
            parts[-1] = parts[-1] + label if parts else label
        elif (
            i > 0
            and loc[i - 1] in ("agent_a", "agent_b", "horizon")
            and item in ("policy", "llm", "arena", "fixed", "geometric")
        ):
            continue  # the discriminator tag pydantic inserts into the location
        else:
            parts.append(str(item))
    return ".".join(parts)


# pydantic puts the discriminator's value into an error's location ("agent_a", "llm", ...).
_TAGGED_MODELS: dict[str, type[BaseModel]] = {
    "policy": PolicyAgentSpec,
    "llm": LLMAgentSpec,
    "arena": ArenaAgentSpec,
    "fixed": FixedHorizonSpec,
    "geometric": GeometricHorizonSpec,
}


def _model_fields_at(loc: tuple) -> list[str]:
    """Field names of the model that owns the last element of `loc`, for "did you mean"."""
    model: type[BaseModel] = ExperimentSpec
    for item in loc[:-1]:
        if isinstance(item, int):
            continue
        if item in _TAGGED_MODELS and item not in model.model_fields:
            model = _TAGGED_MODELS[item]
            continue
        field = model.model_fields.get(item)
        if field is None:
            return []
        nested = [
            candidate
            for candidate in (typing.get_args(field.annotation) or (field.annotation,))
            if isinstance(candidate, type) and issubclass(candidate, BaseModel)
        ]
        if nested:
            model = nested[0]
    return list(model.model_fields)


def validate_spec(data: dict, *, shown: str) -> ExperimentSpec:
    """Validate with pydantic and turn its first complaint into one clear line."""
    try:
        return ExperimentSpec.model_validate(data)
    except ValidationError as error:
        problem = error.errors()[0]
        names = [c.get("name", "?") for c in data.get("conditions", []) if isinstance(c, dict)]
        where = _format_location(problem["loc"], names)
        if problem["type"] == "extra_forbidden":
            leaf = str(problem["loc"][-1])
            options = _model_fields_at(problem["loc"])
            message = f"unknown field{did_you_mean(leaf, options)}"
        elif problem["type"] == "union_tag_not_found":
            tags = (
                "fixed or geometric" if problem["loc"][-1] == "horizon" else "policy, llm or arena"
            )
            message = f"needs a type: {tags}"
        else:
            message = problem["msg"].removeprefix("Value error, ")
            if problem["type"] not in ("missing",) and "input" in problem:
                shown_input = problem["input"]
                if not isinstance(shown_input, dict | list):
                    message += f" (got {shown_input!r})"
        raise ConfigError(message, file=shown, field=where) from None


def _to_plain(cfg: Any, shown: str) -> Any:
    if not isinstance(cfg, DictConfig | ListConfig):
        return cfg
    try:
        return OmegaConf.to_container(cfg, resolve=True)
    except OmegaConfBaseException as error:
        key = getattr(error, "full_key", None) or ""
        raise ConfigError(
            f"cannot resolve: {error.msg if hasattr(error, 'msg') else error}",
            file=shown,
            field=key or None,
        ) from None


def _condition_dict(node: DictConfig, shared: DictConfig, shown: str) -> dict:
    """Resolve a condition's interpolations (${provider}, ${persona}) against the shared keys;
    a file without a shared provider gets the default (mock) one, and no persona."""
    provider = shared.get("provider")
    if provider is None:
        provider = ProviderSpec().model_dump()
    root = OmegaConf.create(
        {"provider": provider, "persona": shared.get("persona"), "condition": node}
    )
    return _to_plain(root, shown)["condition"]


# --- front door 1: the experiment file ---------------------------------------------------------


def load_experiment_file(
    path: Path,
    overrides: Sequence[str] = (),
    *,
    project_root: Path,
    replicates: int | None = None,
    run_id: str | None = None,
) -> LoadedExperiment:
    shown = _display(path, project_root)
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
    cfg = _apply_dotlist(cfg, _with_cli_options(overrides, replicates, run_id), shown)
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
            node[side] = _resolve_agent(
                raw[side],
                base_dir=base_dir,
                project_root=project_root,
                shown=shown,
                where=f"{where}.{side}",
            )
        condition_overrides = raw.get("overrides")
        if condition_overrides:
            if isinstance(condition_overrides, ListConfig):
                node = _apply_dotlist(node, [str(o) for o in condition_overrides], shown)
            else:
                node = _merge_condition(node, condition_overrides)
        conditions.append(_condition_dict(node, cfg, shown))

    data = {
        "run": _to_plain(cfg.get("run", {}), shown),
        "metrics": _to_plain(cfg.get("metrics", {}), shown),
        "conditions": conditions,
        "source": shown,
        "overrides": list(overrides),
    }
    spec = validate_spec(data, shown=shown)
    return _finish(spec, project_root=project_root, config_path=path, shown=shown)


def _merge_condition(node: DictConfig, overrides: DictConfig) -> DictConfig:
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


def _with_cli_options(
    overrides: Sequence[str], replicates: int | None, run_id: str | None
) -> list[str]:
    """The command line's --replicates and --run-id as ordinary overrides."""
    extra = list(overrides)
    if replicates is not None:
        if replicates <= 0:
            raise ConfigError(f"must be a positive number, got {replicates}", field="--replicates")
        extra.append(f"run.replicates={replicates}")
    if run_id is not None:
        extra.append(f"run.run_id={run_id}")
    return extra


# --- front door 2: Hydra composition -----------------------------------------------------------


def check_group_overrides(
    overrides: Sequence[str], project_root: Path, shown: str = "conf/config.yaml"
) -> None:
    """Check `group=option[,option...]` overrides before Hydra sees them: unknown options get a
    "did you mean" instead of Hydra's stack trace."""
    for override in overrides:
        key, sep, value = override.partition("=")
        key = key.lstrip("+~")
        group = key.split("@")[0]
        if not sep or (group not in HYDRA_GROUPS and group not in GROUPS):
            continue
        folder = "agent" if group in ("agent_a", "agent_b") else group
        options = group_options(folder, project_root)
        for option in _sweep_values(value):
            if option not in options:
                raise ConfigError(
                    unknown_choice(folder, option, options), file=shown, field=key.split("@")[-1]
                )


def _sweep_values(value: str) -> list[str]:
    """The options of a simple sweep (`a,b,c`, `choice(a,b)`), or the one value."""
    value = value.strip()
    if value.startswith("choice(") and value.endswith(")"):
        value = value[len("choice(") : -1]
    return [v.strip() for v in value.split(",") if v.strip()]


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
) -> LoadedExperiment:
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
    condition = _condition_dict(node, cfg, shown)
    data = {
        "run": _to_plain(cfg.get("run", {}), shown),
        "metrics": _to_plain(cfg.get("metrics", {}), shown),
        "conditions": [condition],
        "source": shown,
        "overrides": list(overrides),
    }
    spec = validate_spec(data, shown=shown)
    return _finish(
        spec,
        project_root=project_root,
        config_path=project_root / "conf" / "config.yaml",
        shown=shown,
    )


def compose_primary(path: Path, overrides: Sequence[str], *, project_root: Path) -> DictConfig:
    """Hydra's compose API on the primary config (one composition, no sweep)."""
    from hydra import compose, initialize_config_dir
    from hydra.errors import HydraException

    shown = _display(path, project_root)
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


def is_sweep_value(value: str) -> bool:
    """True for Hydra sweep syntax (a,b / choice(...) / range(...) / glob(...))."""
    value = value.strip()
    if value.startswith(("choice(", "range(", "glob(", "interval(")):
        return True
    depth = 0
    for char in value:
        depth += char in "[({"
        depth -= char in "])}"
        if char == "," and depth == 0:
            return True
    return False


def preflight_hydra_overrides(overrides: Sequence[str], project_root: Path) -> None:
    """Check command-line overrides for `python -m pdbench` before Hydra launches anything:
    group options (all sweep values) and fields (by composing the non-sweep overrides once)."""
    primary = conf_dir(project_root) / "config.yaml"
    check_group_overrides(overrides, project_root, _display(primary, project_root))
    fixed = [
        o
        for o in overrides
        if "=" in o
        and not o.lstrip("+~").startswith("hydra")
        and not is_sweep_value(o.partition("=")[2])
    ]
    compose_primary(primary, fixed, project_root=project_root)


def load_primary_file(
    path: Path,
    overrides: Sequence[str] = (),
    *,
    project_root: Path,
    replicates: int | None = None,
    run_id: str | None = None,
) -> LoadedExperiment:
    extra = _with_cli_options(overrides, replicates, run_id)
    cfg = compose_primary(path, extra, project_root=project_root)
    name = condition_name_from_overrides(list(overrides), cfg)
    return spec_from_composed(
        cfg,
        condition_name=name,
        project_root=project_root,
        source=_display(path, project_root),
        overrides=extra,
    )


# --- either door ------------------------------------------------------------------------------


def load(
    path: str | Path,
    overrides: Sequence[str] = (),
    *,
    replicates: int | None = None,
    run_id: str | None = None,
    project_root: Path | None = None,
) -> LoadedExperiment:
    """Load an experiment file or a Hydra primary config, whichever `path` is."""
    path = Path(path)
    root = project_root or find_project_root(path.parent if path.is_absolute() else None)
    if not path.is_absolute():
        path = (Path.cwd() / path).resolve()
    cfg = read_yaml(path, root)
    if "conditions" in cfg:
        return load_experiment_file(
            path, overrides, project_root=root, replicates=replicates, run_id=run_id
        )
    if "defaults" in cfg:
        return load_primary_file(
            path, overrides, project_root=root, replicates=replicates, run_id=run_id
        )
    raise ConfigError(
        "neither an experiment (no conditions:) nor a Hydra primary config (no defaults:)",
        file=_display(path, root),
    )


def _finish(
    spec: ExperimentSpec, *, project_root: Path, config_path: Path, shown: str
) -> LoadedExperiment:
    """Check every file the spec points at and record their hashes."""
    files: dict[str, str] = {}
    for index, condition in enumerate(spec.conditions):
        game = condition.game.build()
        for side in ("agent_a", "agent_b"):
            agent = getattr(condition, side)
            for relative in referenced_files(
                agent,
                game,
                condition.horizon.build(),
                project_root,
                shown,
                f"conditions[{index}]({condition.name}).{side}",
            ):
                full = project_root / relative
                files[relative] = hashlib.sha256(full.read_bytes()).hexdigest()
    return LoadedExperiment(
        spec=spec,
        project_root=project_root,
        config_path=config_path,
        referenced_files=dict(sorted(files.items())),
    )


def referenced_files(
    agent: Any, game: Any, horizon: Any, project_root: Path, shown: str, where: str
) -> list[str]:
    """Check the files an agent reads and return their paths relative to the project.

    Errors name the config file that asks for the file, with the missing or wrong file in the
    message.
    """
    try:
        if isinstance(agent, LLMAgentSpec):
            from pdbench.agents.prompting import check_prompt_files

            check_prompt_files(agent, project_root, horizon)
            paths = [agent.system_prompt, agent.round_prompt]
            if agent.persona:
                paths.append(f"prompts/personas/{agent.persona}.md")
            return paths
        if isinstance(agent, ArenaAgentSpec):
            from pdbench.agents.arena import check_arena_file

            check_arena_file(agent, game, project_root)
            return [agent.path]
    except ConfigError as error:
        reason = f"{error.file}: {error.reason}" if error.file else error.reason
        field = f"{where}.{error.field}" if error.field else where
        raise ConfigError(reason, file=shown, field=field) from None
    return []
