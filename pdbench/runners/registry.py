"""Build agents from their validated specs.

`make_agent` is the one place that knows which class serves which `type:`; LLM and arena agents are
imported only when a condition uses them, so policy-only runs never import provider code.
"""

from __future__ import annotations

from pdbench.agents.base import Agent, AgentContext
from pdbench.agents.policy import make_policy
from pdbench.core.game import Game
from pdbench.core.horizon import FixedHorizon, GeometricHorizon
from pdbench.spec import AgentSpec, ArenaAgentSpec, LLMAgentSpec, PolicyAgentSpec


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
