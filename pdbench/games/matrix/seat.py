"""Any 2x2 agent (a classic policy's `PolicyAgent`, an LLM or arena agent, a test's scripted
talker) seated in the turn loop (`pdbench.runners.turns`) of `rules.MatrixGame`: at each turn it
is shown the `core.transcript.Observation` the match loop (`pdbench.runners.match`) would show
it, cut to its own history window and totals setting (`observation.observation_of`), and its
`negotiate` or `act`/`decide` answer becomes the turn's action.

A talk turn's timeout is no action (`TurnDecision.timeout`): the engine plays the rules'
fallback, the negotiation's timeout message, as `runners.negotiation` says it. An agent that
aborts the match raises `MatchAborted` through the engine, as in the match loop.
"""

from __future__ import annotations

from pdbench.agents.base import (
    AgentBase,
    Decision,
    MatchInfo,
    MatchSummary,
    TurnDecision,
    TurnRequest,
)
from pdbench.games.matrix.observation import observation_of


class MatrixSeat(AgentBase):
    """`agent` playing one seat of a 2x2 match through the turn contract."""

    def __init__(self, agent: AgentBase) -> None:
        self.agent = agent
        self.name = agent.name
        self.waits = agent.waits
        self.history_window = agent.history_window
        self.include_totals = agent.include_totals
        self._info: MatchInfo | None = None

    def reset(self, seed: int | None = None) -> None:
        self.agent.reset(seed)

    def start_match(self, info: MatchInfo) -> None:
        # The match's length is the game's to tell (round_state "rounds"): passed on at the
        # first turn, where the agent of the match loop learns it before round 1 too.
        self._info = info

    async def take_turn(self, request: TurnRequest) -> TurnDecision:
        seen = request.round_state
        if self._info is not None:
            self.agent.start_match(MatchInfo(self._info.opponent_name, seen["rounds"]))
            self._info = None
        obs = observation_of(
            seen, history_window=self.agent.history_window, include_totals=self.agent.include_totals
        )
        if seen["phase"] == "talk":
            said = await self.agent.negotiate(obs)
            return TurnDecision(
                action=None if said.timeout else {"type": "message", "text": said.text},
                attempts=said.attempts,
                invalid_outputs=int(said.invalid),
                timeout=said.timeout,
                error=said.error,
            )
        decision = (
            await self.agent.decide(obs) if self.agent.waits else Decision(self.agent.act(obs))
        )
        return TurnDecision(
            action={"type": "commit", "action": decision.action.value},
            attempts=decision.attempts,
            invalid_outputs=decision.invalid_outputs,
            timeout=decision.timeout,
            error=decision.error,
        )

    def end_match(self, summary: MatchSummary) -> None:
        self.agent.end_match(summary)

    def close(self) -> None:
        self.agent.close()

    def stop_now(self) -> None:
        self.agent.stop_now()
