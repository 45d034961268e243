"""Build agents from their validated specs.

`make_agent` is the one place that knows which class serves which `type:`; LLM and arena agents are
imported only when a condition uses them, so policy-only runs never import provider code.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pdbench.agents.base import Agent
from pdbench.agents.policy import make_policy
from pdbench.core.game import Game
from pdbench.core.horizon import FixedHorizon, GeometricHorizon
from pdbench.spec import AgentSpec, ArenaAgentSpec, LLMAgentSpec, PolicyAgentSpec

if TYPE_CHECKING:
    from pdbench.providers.gateway import ProviderGateway


@dataclass(frozen=True)
class AgentContext:
    """Where an agent plays: which match of which run, and the run's shared services."""

    run_seed: int
    condition: str
    replicate: int
    side: str  # "a" or "b"
    project_root: Path  # relative paths in specs (prompts, arena files) resolve against this
    run_dir: Path | None = None  # arena agents write their print() log here
    store_prompts: bool | str = True
    gateway: ProviderGateway | None = None  # provider calls: cache, concurrency, budget, stats
    extra: dict[str, Any] | None = None


def make_agent(
    spec: AgentSpec,
    *,
    game: Game,
    horizon: FixedHorizon | GeometricHorizon,
    context: AgentContext,
) -> Agent:
    if isinstance(spec, PolicyAgentSpec):
        agent = make_policy(spec.policy, game, spec.params)
        agent.name = spec.display_name
        return agent
    if isinstance(spec, LLMAgentSpec):
        from pdbench.agents.llm import LLMAgent

        return LLMAgent(spec, game=game, horizon=horizon, context=context)
    if isinstance(spec, ArenaAgentSpec):
        from pdbench.agents.arena import ArenaAgent

        return ArenaAgent(spec, game=game, horizon=horizon, context=context)
    raise TypeError(f"no agent class for {type(spec).__name__}")
