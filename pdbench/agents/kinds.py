"""The registry of agent kinds: for each `type:` a config may name, its spec model, how to build
the agent, which files it reads (checked before anything runs), and whether policy-style batch
play applies.

The module that implements a kind is imported only when that kind is used (an entry point, as in
Gymnasium's registry), so a policy-only run never imports provider or arena code. Adding a kind is
one module that implements it plus one `register_kind` call below (and its spec model in
`pdbench.config.schema`, which is what a config may say).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from pdbench.agents.base import AgentBase, AgentContext
from pdbench.config.schema import ArenaAgentSpec, LLMAgentSpec, PolicyAgentSpec
from pdbench.core.errors import ConfigError, unknown_choice
from pdbench.core.game import Game
from pdbench.core.horizon import Horizon

# (spec, game, horizon, context) -> agent
AgentFactory = Callable[..., AgentBase]
# (spec, game, horizon, project_root) -> the files the agent reads, relative to the project root;
# raises ConfigError (naming the field within the agent) when one is missing or malformed.
FilesChecker = Callable[[Any, Game, Horizon, Path], list[str]]


@dataclass(frozen=True)
class AgentKind:
    name: str  # the `type:` a config gives
    spec_model: type[BaseModel]
    entry_point: str  # "module:attribute" of the factory, imported on first use
    files_entry_point: str | None = None  # "module:attribute" of the FilesChecker, if any
    batchable: bool = False  # two agents of batchable kinds play a condition as numpy arrays

    def factory(self) -> AgentFactory:
        return _resolve(self.entry_point)

    def files_read(self, spec: Any, game: Game, horizon: Horizon, project_root: Path) -> list[str]:
        if self.files_entry_point is None:
            return []
        checker: FilesChecker = _resolve(self.files_entry_point)
        return checker(spec, game, horizon, project_root)


AGENT_KINDS: dict[str, AgentKind] = {}


def register_kind(kind: AgentKind) -> AgentKind:
    AGENT_KINDS[kind.name] = kind
    return kind


def _resolve(entry_point: str) -> Any:
    module, _, attribute = entry_point.partition(":")
    return getattr(importlib.import_module(module), attribute)


def agent_kind(type_: str) -> AgentKind:
    try:
        return AGENT_KINDS[type_]
    except KeyError:
        raise ConfigError(unknown_choice("agent type", type_, AGENT_KINDS), field="type") from None


def kind_of(spec: BaseModel) -> AgentKind:
    return agent_kind(str(getattr(spec, "type", "")))


def make_agent(
    spec: BaseModel, *, game: Game, horizon: Horizon, context: AgentContext
) -> AgentBase:
    """Build the agent a validated spec describes, for one match."""
    return kind_of(spec).factory()(spec, game=game, horizon=horizon, context=context)


def is_batchable(agent_a: BaseModel, agent_b: BaseModel) -> bool:
    """Both agents are of a batchable kind and, for policies, have a numpy batch form (a user's
    policy without one plays through the match loop)."""
    return all(
        kind_of(agent).batchable and getattr(agent, "has_batch_form", True)
        for agent in (agent_a, agent_b)
    )


register_kind(
    AgentKind(
        name="policy",
        spec_model=PolicyAgentSpec,
        entry_point="pdbench.agents.policy:make_policy_agent",
        batchable=True,
    )
)
register_kind(
    AgentKind(
        name="llm",
        spec_model=LLMAgentSpec,
        entry_point="pdbench.agents.llm.agent:LLMAgent",
        files_entry_point="pdbench.agents.llm.prompts:files_read",
    )
)
register_kind(
    AgentKind(
        name="arena",
        spec_model=ArenaAgentSpec,
        entry_point="pdbench.agents.arena.agent:ArenaAgent",
        files_entry_point="pdbench.agents.arena:files_read",
    )
)
