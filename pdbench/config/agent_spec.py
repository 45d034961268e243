"""Who plays: the `AgentSpec` union a config's agents (and the games' third roles,
in `pdbench.config.schema`) are validated against, built from the `@agent_kind` registry each
time a config is validated (so a kind registered after this module was imported counts).

An agent kind is one spec class registered with `@agent_kind(...)` (`agent_spec_base`), in its
own module (`policy_agent_spec`, `llm_agent_spec`, `arena_agent_spec`: imported here so that the
union holds them), plus the module that implements it (named by the registration's entry point,
imported only when the kind is used). The spec answers every question the rest of pdbench asks
about an agent (`AgentSpecBase`), so nothing outside `pdbench/agents` and the spec modules
branches on the kind."""

from __future__ import annotations

import functools
import operator
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import (
    Field,
    SerializeAsAny,
    TypeAdapter,
    ValidatorFunctionWrapHandler,
    WrapValidator,
)

from pdbench.config.agent_spec_base import AGENT_SPECS, AgentSpecBase, agent_kind, agent_kinds
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
    "agent_kinds",
    "registered_kinds",
]


def registered_kinds() -> TypeAdapter[AgentSpecBase]:
    """The union of the agent kinds registered now, told apart by `type` (rebuilt when a kind
    has been registered since the last call)."""
    return _union_of(tuple(agent_kinds().values()))


@functools.cache
def _union_of(kinds: tuple[type[AgentSpecBase], ...]) -> TypeAdapter[AgentSpecBase]:
    if len(kinds) == 1:
        return TypeAdapter(kinds[0])
    union = functools.reduce(operator.or_, kinds)
    return TypeAdapter(Annotated[union, Field(discriminator="type")])  # type: ignore[arg-type]


def _validate_as_registered(value: Any, handler: ValidatorFunctionWrapHandler) -> AgentSpecBase:
    # Its errors keep their locations ("agent_a.llm.temperature"): pydantic nests them.
    return registered_kinds().validate_python(value)


if TYPE_CHECKING:
    # For mypy, an agent spec is what every kind answers; code that needs a kind's own fields
    # lives with that kind.
    AgentSpec = AgentSpecBase
else:
    # For pydantic, the union of the kinds registered when a config is validated (not when this
    # module was imported: a kind registered later, by a plugin or a notebook, validates too),
    # stored and dumped as the kind it is.
    AgentSpec = Annotated[SerializeAsAny[AgentSpecBase], WrapValidator(_validate_as_registered)]
