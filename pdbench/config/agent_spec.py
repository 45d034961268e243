"""Who plays: the `AgentSpec` union a config's agents (and the third roles, keeper and judge,
in `pdbench.config.schema`) are validated against, built from the `@agent_kind` registry.

An agent kind is one spec class registered with `@agent_kind(...)` (`agent_spec_base`), in its
own module (`policy_agent_spec`, `llm_agent_spec`, `arena_agent_spec`: imported here so that the
union holds them), plus the module that implements it (named by the registration's entry point,
imported only when the kind is used). The spec answers every question the rest of pdbench asks
about an agent (`AgentSpecBase`), so nothing outside `pdbench/agents` and the spec modules
branches on the kind."""

from __future__ import annotations

import functools
import operator
from typing import TYPE_CHECKING, Annotated

from pydantic import Field

from pdbench.config.agent_spec_base import AGENT_SPECS, AgentSpecBase, agent_kind
from pdbench.config.arena_agent_spec import ArenaAgentSpec
from pdbench.config.llm_agent_spec import DEFAULT_MAX_TOKENS, LLMAgentSpec
from pdbench.config.policy_agent_spec import PolicyAgentSpec

__all__ = [
    "AGENT_SPECS",
    "DEFAULT_MAX_TOKENS",
    "AgentSpec",
    "AgentSpecBase",
    "ArenaAgentSpec",
    "LLMAgentSpec",
    "PolicyAgentSpec",
    "agent_kind",
]


if TYPE_CHECKING:
    # For mypy, an agent spec is what every kind answers; code that needs a kind's own fields
    # lives with that kind.
    AgentSpec = AgentSpecBase
else:
    # For pydantic, the union of every registered kind, told apart by `type`.
    AgentSpec = Annotated[
        functools.reduce(operator.or_, AGENT_SPECS.values()), Field(discriminator="type")
    ]
