"""A classic strategy from `pdbench.strategies` as an agent of the match runner."""

from __future__ import annotations

from typing import Any

from pdbench.agents.base import AgentBase, Utterance
from pdbench.config.schema import PolicyAgentSpec
from pdbench.core.actions import Action
from pdbench.core.game import Game
from pdbench.core.transcript import Observation
from pdbench.strategies import Policy, make_policy


class PolicyAgent(AgentBase):
    """Plays a `Policy`: every call goes straight to it, so it behaves exactly as the policy."""

    def __init__(
        self, policy: Policy, name: str | None = None, messages: tuple[str, ...] = ()
    ) -> None:
        self.policy = policy
        self.name = name or policy.name
        self.history_window = policy.history_window
        self.include_totals = policy.include_totals
        # Canned messages for a negotiation phase, said in order on this agent's turns of every
        # round, then silence: baselines whose words do (or do not) match their play.
        self.messages = messages

    def reset(self, seed: int | None = None) -> None:
        self.policy.reset(seed)

    def act(self, obs: Observation) -> Action:
        return self.policy.act(obs)

    async def negotiate(self, obs: Observation) -> Utterance:
        said_before = sum(message.mine for message in obs.messages)
        if said_before < len(self.messages):
            return Utterance(text=self.messages[said_before])
        return Utterance(text="")


def make_policy_agent(
    spec: PolicyAgentSpec, *, game: Game, horizon: Any = None, context: Any = None
) -> PolicyAgent:
    return PolicyAgent(
        make_policy(spec.policy, game, spec.params),
        name=spec.display_name,
        messages=spec.messages,
    )
