"""Any 2x2 agent (an `agents.base.TableAgent`: a classic policy's `PolicyAgent`, an LLM or
arena agent, a test's scripted talker) seated in the turn loop (`pdbench.runners.turns`) of
`rules.MatrixGame`: the seat is what the runner plays (an `AgentBase`, asked `take_turn`), and
the agent's once-a-round hooks are called here alone. At each turn the agent is shown the
`core.transcript.Observation` the reference match loop (tests/reference_loop.py) would show it,
cut to its own history window and totals setting (`observation.observation_of`; each past round
read once over the match, `observation.PastRounds`), and its `negotiate` or `act`/`decide`
answer becomes the turn's action.

A talk turn's timeout is no action (`TurnDecision.timeout`): the engine plays the rules'
fallback, the negotiation's timeout message, as the reference loop's talk says it. An agent that
aborts the match raises `MatchAborted` through the engine, as in the match loop.

The seat keeps each answer as its agent gave it (`decisions`, `utterances`, in the order of its
turns): a 2x2 round's record holds what the turn contract has no field for (a fallback the
agent played itself, the order an LLM was shown the options in), and the family's storing
(`records`) adds it to the commit lines and the columns aggregation reads, as the reference
loop stored them.
"""

from __future__ import annotations

from pdbench.agents.base import (
    AgentBase,
    Decision,
    MatchInfo,
    MatchSummary,
    TableAgent,
    TurnDecision,
    TurnRequest,
    Utterance,
)
from pdbench.games.matrix.observation import PastRounds, observation_of
from pdbench.games.matrix.state import LETTER


class MatrixSeat(AgentBase):
    """`agent` playing one seat of a 2x2 match through the turn contract; `total_rounds` is
    what it is told of the match's length before round 1 (None: not told, a geometric
    horizon), as the match loop tells it."""

    def __init__(self, agent: TableAgent, total_rounds: int | None) -> None:
        self.agent = agent
        self.total_rounds = total_rounds
        self.name = agent.name
        self.waits = agent.waits
        self.decisions: list[Decision] = []
        self.utterances: list[Utterance] = []
        self.past = PastRounds()  # what it was shown of the finished rounds, read once each

    def reset(self, seed: int | None = None) -> None:
        self.decisions, self.utterances = [], []
        self.past = PastRounds()
        self.agent.reset(seed)

    def start_match(self, info: MatchInfo) -> None:
        self.agent.start_match(MatchInfo(info.opponent_name, self.total_rounds))

    async def take_turn(self, request: TurnRequest) -> TurnDecision:
        seen = request.round_state
        agent = self.agent
        obs = observation_of(
            seen,
            history_window=agent.history_window,
            include_totals=agent.include_totals,
            past=self.past,
        )
        if seen["phase"] == "talk":
            said = await agent.negotiate(obs)
            self.utterances.append(said)
            return TurnDecision(
                action=None if said.timeout else {"type": "message", "text": said.text},
                attempts=said.attempts,
                invalid_outputs=int(said.invalid),
                timeout=said.timeout,
                error=said.error,
            )
        decision = await agent.decide(obs) if agent.waits else Decision(agent.act(obs))
        self.decisions.append(decision)
        return TurnDecision(  # positional: a round makes two, and keywords cost a little each
            {"type": "commit", "action": LETTER[decision.action]},
            decision.attempts,
            decision.invalid_outputs,
            decision.timeout,
            decision.error,
        )

    def end_match(self, summary: MatchSummary) -> None:
        self.agent.end_match(summary)

    def close(self) -> None:
        self.agent.close()

    def stop_now(self) -> None:
        self.agent.stop_now()
