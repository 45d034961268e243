"""A classic strategy from `pdbench.strategies` as an agent of the match runner."""

from __future__ import annotations

from typing import Any

import numpy as np

from pdbench.agents.base import AgentBase, TableAgent, TurnDecision, TurnRequest, Utterance
from pdbench.config.schema import PolicyAgentSpec
from pdbench.core.actions import Action
from pdbench.core.game import Game
from pdbench.core.transcript import Observation
from pdbench.strategies import Policy


class PolicyAgent(TableAgent):
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


class TurnPolicyAgent(AgentBase):
    """A turn game's house player (`pdbench.games.base.TurnPolicy`): it answers from the
    round_state alone, drawing from its own stream, seeded per match by `reset`."""

    def __init__(self, policy: Any, name: str) -> None:
        self.policy = policy
        self.name = name
        self.rng = np.random.default_rng(0)

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    async def take_turn(self, request: TurnRequest) -> TurnDecision:
        return TurnDecision(action=self.policy.act(request.round_state, self.rng))


def make_policy_agent(
    spec: PolicyAgentSpec, *, game: Game, horizon: Any = None, context: Any = None
) -> PolicyAgent | TurnPolicyAgent:
    # a house player that plays the table its seat is shown (a classic strategy) is the match
    # loop's 2x2 agent; any other answers the round_state
    house_player = spec.house_player
    on_table = getattr(house_player, "on_table", None)
    if on_table is None:
        return TurnPolicyAgent(house_player(**spec.params), name=spec.display_name)
    return PolicyAgent(on_table(game, spec.params), name=spec.display_name, messages=spec.messages)
