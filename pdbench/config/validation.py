"""From a composed config to a frozen `ExperimentSpec`, turning pydantic's complaints into one
line that names the file and the field, and checking every file the spec points at."""

from __future__ import annotations

import hashlib
import typing
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, ListConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException
from pydantic import BaseModel, ValidationError

from pdbench.config.tree import LoadedExperiment
from pdbench.core.errors import ConfigError, did_you_mean
from pdbench.spec import (
    ArenaAgentSpec,
    ExperimentSpec,
    FixedHorizonSpec,
    GeometricHorizonSpec,
    LLMAgentSpec,
    PolicyAgentSpec,
    ProviderSpec,
)


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


def to_plain(cfg: Any, shown: str) -> Any:
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


def condition_dict(node: DictConfig, shared: DictConfig, shown: str) -> dict:
    """Resolve a condition's interpolations (${provider}, ${persona}) against the shared keys;
    a file without a shared provider gets the default (mock) one, and no persona."""
    provider = shared.get("provider")
    if provider is None:
        provider = ProviderSpec().model_dump()
    root = OmegaConf.create(
        {"provider": provider, "persona": shared.get("persona"), "condition": node}
    )
    return to_plain(root, shown)["condition"]


def finish(
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
