"""From a composed config to a frozen `ExperimentSpec`, turning pydantic's complaints into one
line that names the file and the field."""

from __future__ import annotations

import typing
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, ListConfig, OmegaConf
from omegaconf.errors import MissingMandatoryValue, OmegaConfBaseException
from pydantic import BaseModel, ValidationError

from pdbench.config.agent_spec import agent_kinds
from pdbench.config.role_fields import role_names
from pdbench.config.schema import (
    SEAT_FIELDS,
    ExperimentSpec,
    FixedHorizonSpec,
    GeometricHorizonSpec,
    ProviderSpec,
)
from pdbench.config.tree import LoadedConfig
from pdbench.core.errors import ConfigError, did_you_mean
from pdbench.core.numbers import BOOLEAN_NOT_A_NUMBER


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
            and loc[i - 1] in (*SEAT_FIELDS, *role_names(), "horizon")
            and item in _tagged_models()
        ):
            continue  # the discriminator tag pydantic inserts into the location
        else:
            parts.append(str(item))
    return ".".join(parts)


# pydantic puts the discriminator's value into an error's location ("agent_a", "llm", ...); the
# agent kinds are those registered when the config is validated.
_TAGGED_HORIZONS: dict[str, type[BaseModel]] = {
    "fixed": FixedHorizonSpec,
    "geometric": GeometricHorizonSpec,
}


def _tagged_models() -> dict[str, type[BaseModel]]:
    return {**agent_kinds(), **_TAGGED_HORIZONS}


def _one_of(names: list[str]) -> str:
    """["policy", "llm", "arena"] -> "policy, llm or arena"."""
    return " or ".join([", ".join(names[:-1]), names[-1]]) if len(names) > 1 else names[0]


def _model_fields_at(loc: tuple) -> list[str]:
    """Field names of the model that owns the last element of `loc`, for "did you mean"."""
    model: type[BaseModel] = ExperimentSpec
    tagged = _tagged_models()
    for item in loc[:-1]:
        if isinstance(item, int):
            continue
        if item in tagged and item not in model.model_fields:
            model = tagged[item]
            continue
        field = model.model_fields.get(item)
        # a provider kind's options (`provider.mock.`): a spec the kind registers, no field
        kinds_options = getattr(model, "options_models", None)
        if field is None and kinds_options is not None and item in kinds_options():
            model = kinds_options()[item]
            continue
        if field is None:
            return []
        nested = [
            candidate
            for candidate in (typing.get_args(field.annotation) or (field.annotation,))
            if isinstance(candidate, type) and issubclass(candidate, BaseModel)
        ]
        if nested:
            model = nested[0]
    kinds_options = getattr(model, "options_models", None)
    return [*model.model_fields, *(kinds_options() if kinds_options is not None else ())]


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
        elif problem["type"] == BOOLEAN_NOT_A_NUMBER:
            field = str(problem.get("ctx", {}).get("field", ""))
            where = f"{where}.{field}" if where else field
            message = problem["msg"].removeprefix(f"{field}: ")
        elif problem["type"] == "union_tag_not_found":
            tags = (
                "fixed or geometric"
                if problem["loc"][-1] == "horizon"
                else _one_of(list(agent_kinds()))
            )
            message = f"needs a type: {tags}"
        else:
            message = problem["msg"].removeprefix("Value error, ")
            if problem["type"] not in ("missing",) and "input" in problem:
                shown_input = problem["input"]
                if not isinstance(shown_input, dict | list):
                    message += f" (got {shown_input!r})"
        raise ConfigError(message, file=shown, field=where) from None


def unknown_key_path(node: Any, key: str) -> str:
    """`key`, followed down to its first leaf (`+unknown.key=1` is reported as unknown.key)."""
    path = [key]
    value = node.get(key) if isinstance(node, DictConfig) else None
    while isinstance(value, DictConfig) and len(value) == 1:
        (child,) = value.keys()
        path.append(str(child))
        value = value.get(child)
    return ".".join(path)


def to_plain(cfg: Any, shown: str) -> Any:
    if not isinstance(cfg, DictConfig | ListConfig):
        return cfg
    try:
        return OmegaConf.to_container(cfg, resolve=True, throw_on_missing=True)
    except MissingMandatoryValue as error:
        key = str(getattr(error, "full_key", "") or "").removeprefix("condition.")
        raise ConfigError(
            f"is required (??? in the config): set it, e.g. {key}=...",
            file=shown,
            field=key or None,
        ) from None
    except OmegaConfBaseException as error:
        key = getattr(error, "full_key", None) or ""
        raise ConfigError(
            f"cannot resolve: {error.msg if hasattr(error, 'msg') else error}",
            file=shown,
            field=key or None,
        ) from None


def condition_dict(node: DictConfig, shared: DictConfig, shown: str) -> dict:
    """Resolve a condition's interpolations (${provider}, ${persona}) against the shared keys;
    a file without a shared provider gets the default (mock) one, and no persona.

    An LLM agent's provider is the shared provider with the agent's own fields merged onto it,
    field by field: a field the agent leaves out or sets to null keeps the shared value, so
    `{provider: {model: x}}` changes the model and keeps the shared name and api_base."""
    provider = shared.get("provider")
    if provider is None:
        provider = ProviderSpec().model_dump()
    root = OmegaConf.create(
        {"provider": provider, "persona": shared.get("persona"), "condition": node}
    )
    plain = to_plain(root, shown)
    condition = plain["condition"]
    population = [entry.get("agent") for entry in condition.get("population") or []]
    for side in (*SEAT_FIELDS, *role_names(), "population"):
        bound = population if side == "population" else condition.get(side)
        for agent in bound if isinstance(bound, list) else [bound]:  # a panel: each member
            kind = agent_kinds().get(str(agent.get("type"))) if isinstance(agent, dict) else None
            if kind is not None and kind.uses_provider:  # it takes the shared provider
                own = agent.get("provider")
                if own is None or isinstance(own, dict):
                    agent["provider"] = merge_non_null(plain["provider"] or {}, own or {})
    return condition


def merge_non_null(base: dict, changes: dict) -> dict:
    """`base` with every non-null value of `changes` put in, nested mappings merged the same way."""
    merged = dict(base)
    for key, value in changes.items():
        if value is None:
            continue
        if isinstance(value, dict):
            inner = merged.get(key)
            merged[key] = merge_non_null(inner if isinstance(inner, dict) else {}, value)
        else:
            merged[key] = value
    return merged


def assemble(
    cfg: DictConfig,
    conditions: list[dict[str, Any]],
    *,
    shown: str,
    overrides: Sequence[str],
    project_root: Path,
    config_path: Path,
    run_id: str | None = None,
) -> LoadedConfig:
    """The validated spec of every front door: the composed config's shared `run` and `metrics`
    blocks with the conditions built from it. `run_id` names a run whose config names none (a
    Hydra grid takes its sweep's id)."""
    run = to_plain(cfg.get("run", {}), shown)
    if run_id is not None and isinstance(run, dict) and not run.get("run_id"):
        run["run_id"] = run_id
    data = {
        "run": run,
        "metrics": to_plain(cfg.get("metrics", {}), shown),
        "conditions": conditions,
        "source": shown,
        "overrides": list(overrides),
    }
    spec = validate_spec(data, shown=shown)
    return LoadedConfig(spec=spec, project_root=project_root, config_path=config_path)
