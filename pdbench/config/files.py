"""Reading config files: YAML with errors that name file and line, `key=value` overrides,
agents given as group names or as refs with overrides (nested, cycle-checked)."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml
from omegaconf import DictConfig, ListConfig, OmegaConf

from pdbench.config.tree import group_options
from pdbench.core.errors import ConfigError, did_you_mean, unknown_choice


def display_path(path: Path, project_root: Path) -> str:
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
    shown = display_path(path, project_root)
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


def apply_dotlist(cfg: DictConfig, overrides: Sequence[str], shown: str) -> DictConfig:
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


def resolve_agent(
    value: Any, *, base_dir: Path, project_root: Path, shown: str, where: str, stack: tuple = ()
) -> DictConfig:
    """Turn a group name or `{ref, overrides}` into a full agent config, following nested refs."""
    if isinstance(value, str):
        options = group_options("agent", project_root)
        if value not in options:
            raise ConfigError(unknown_choice("agent", value, options), file=shown, field=where)
        return resolve_ref(
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
            node = apply_dotlist(node, [str(o) for o in overrides], shown)
        else:
            unknown = [str(k) for k in overrides if k not in node]
            if unknown:
                raise ConfigError(
                    f"no such field{did_you_mean(unknown[0], [str(k) for k in node])} in "
                    f"{display_path(path, project_root)}",
                    file=shown,
                    field=f"{where}.overrides.{unknown[0]}",
                )
            node = OmegaConf.merge(node, overrides)
    return node


def with_cli_options(
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
