"""The agent kinds, as the config registers them (`pdbench.config.agent_spec_base.agent_kind`): for
each `type:` a config may name, how to build the agent and which files it reads (checked before
anything runs).

The module that implements a kind is imported only when that kind is used (an entry point, as in
Gymnasium's registry), so a policy-only run never imports provider or arena code. Adding a kind is
its spec class with one `@agent_kind(...)` registration in its own module (as
`pdbench.config.policy_agent_spec`) plus the module that implements it; this module needs no change.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pdbench.agents.base import AgentBase, AgentContext
from pdbench.config.agent_spec_base import AgentSpecBase
from pdbench.core.game import Game
from pdbench.core.horizon import Horizon

# (spec, game, horizon, context) -> agent
AgentFactory = Callable[..., AgentBase]
# (spec, game, horizon, project_root) -> the files the agent reads, relative to the project root;
# raises ConfigError (naming the field within the agent) when one is missing or malformed.
FilesChecker = Callable[[Any, Game, Horizon, Path], list[str]]


def _resolve(entry_point: str) -> Any:
    module, _, attribute = entry_point.partition(":")
    return getattr(importlib.import_module(module), attribute)


def files_read(spec: AgentSpecBase, game: Game, horizon: Horizon, project_root: Path) -> list[str]:
    """The files an agent reads, relative to the project root (checked by its kind)."""
    if spec.kind_files_entry_point is None:
        return []
    checker: FilesChecker = _resolve(spec.kind_files_entry_point)
    return checker(spec, game, horizon, project_root)


def make_agent(
    spec: AgentSpecBase, *, game: Game, horizon: Horizon, context: AgentContext
) -> AgentBase:
    """Build the agent a validated spec describes, for one match."""
    factory: AgentFactory = _resolve(spec.kind_entry_point)
    return factory(spec, game=game, horizon=horizon, context=context)


def is_batchable(*agents: AgentSpecBase) -> bool:
    """Every agent (a pair's two, a group's N) is of a batchable kind and has a numpy batch form
    (a user's policy without one plays through the match loop)."""
    return all(agent.kind_batchable and agent.has_batch_form for agent in agents)
