"""The reference loop of a 2x2 match: two agents, a game and a number of rounds in, round
results out. It was the runner's match loop before every match was played on the one turn loop
(the runner seats a 2x2 game's agents and stores its match through `pdbench.games.matrix.records`);
it stays here as the reference the equivalence tests hold the turn loop to
(tests/integration/test_matrix_equivalence.py, test_matrix_talk_equivalence.py), and as a
convenient way for tests to play two agents against each other.

The rounds are played by the one match loop (`pdbench.strategies.play.play_rounds`); this module
adds agents that wait on providers, the negotiation phase (`reference_talk`), the trembling hand,
the hooks and the round results (stored as record version 1 by `reference_records`).

The loop is async so that LLM agents can wait on providers while other matches play; policy agents
answer synchronously and never yield.

With noise (a trembling hand), each side's intended action is flipped with probability `noise`,
drawn from that side's own stream, one draw per round; the flipped action is the one played,
scored and shown to both agents afterwards. The numpy path (`games.matrix.vectorised`) draws the
same numbers.

In a game with a negotiation phase (`game.negotiation`), each round opens with the agents' messages
(`reference_talk`); both then commit seeing the whole conversation, and the round keeps it.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

from reference_talk import negotiate_round, with_conversation

from pdbench.agents.base import Agent, Decision, MatchInfo, MatchSummary, TableAgent
from pdbench.agents.policy import PolicyAgent
from pdbench.core.actions import Action
from pdbench.core.errors import MatchAborted
from pdbench.core.game import Game
from pdbench.core.rng import make_rng
from pdbench.core.transcript import Observation, PlayedRound, Transcript
from pdbench.storage.schema import Attempt, ConversationMessage
from pdbench.strategies.play import play_rounds


@dataclass(frozen=True, slots=True)
class RoundResult:
    """One round as played, with each side's decision record."""

    played: PlayedRound
    cum_payoff_a: float
    cum_payoff_b: float
    decision_a: Decision
    decision_b: Decision
    finished_at: float  # time.time() when the round was decided
    # With noise only: the actions the agents meant to play (`played` holds what was played).
    intended_a: Action | None = None
    intended_b: Action | None = None
    # With a negotiation phase only: what was said before the commit.
    conversation: tuple[ConversationMessage, ...] | None = None


@dataclass(frozen=True, slots=True)
class MatchResult:
    rounds: list[RoundResult]
    planned_rounds: int
    error: str | None = None  # set when an agent aborted the match
    # The attempts of the round that could not be completed (an aborting LLM agent's answers),
    # so that what was asked and answered is kept even when no action came of it.
    aborted_attempts: tuple[Attempt, ...] = ()

    @property
    def completed(self) -> bool:
        return self.error is None and len(self.rounds) == self.planned_rounds


def as_agent(agent: Agent) -> TableAgent:
    """Anything with the `Agent` protocol (a bare strategy, a test's scripted player) as a
    `TableAgent`, so the loop below calls every hook without asking which exist."""
    return agent if isinstance(agent, TableAgent) else PolicyAgent(agent)  # type: ignore[arg-type]


_Talk = tuple[ConversationMessage, ...] | None

YIELD_EVERY_S = 0.02  # a match that never waits gives the event loop back at least this often


def _observe(agent: TableAgent, played: Transcript, side: str, talk: _Talk = None) -> Observation:
    obs = played.observe(
        side=side, history_window=agent.history_window, include_totals=agent.include_totals
    )
    return obs if talk is None else with_conversation(obs, talk, side)


async def _decide(agent: TableAgent, played: Transcript, side: str, talk: _Talk) -> Decision:
    return await agent.decide(_observe(agent, played, side, talk))


def _act(agent: TableAgent, played: Transcript, side: str, talk: _Talk) -> Decision:
    return Decision(action=agent.act(_observe(agent, played, side, talk)))


class TremblingHand:
    """Flips one side's intended actions with probability `noise`, one draw per round."""

    def __init__(self, noise: float, seed: int) -> None:
        self.noise = noise
        self.rng = make_rng(seed)

    def __call__(self, intended: Action) -> Action:
        return intended.flipped if self.rng.random() < self.noise else intended


async def play_match(
    game: Game,
    n_rounds: int,
    agent_a: Agent,
    agent_b: Agent,
    *,
    seed_a: int | None,
    seed_b: int | None,
    disclose_rounds: bool,
    noise: float = 0.0,
    noise_seeds: tuple[int, int] = (0, 0),
) -> MatchResult:
    """Play `n_rounds` rounds. An agent raising `MatchAborted` ends the match with its error.
    With `noise` > 0 each side's intended action is flipped with that probability (the streams
    seeded by `noise_seeds`, side a's first)."""
    agent_a, agent_b = as_agent(agent_a), as_agent(agent_b)
    trembles = (
        (TremblingHand(noise, noise_seeds[0]), TremblingHand(noise, noise_seeds[1]))
        if noise > 0
        else None
    )
    agent_a.reset(seed_a)
    agent_b.reset(seed_b)
    total_rounds = n_rounds if disclose_rounds else None
    for agent, opponent in ((agent_a, agent_b), (agent_b, agent_a)):
        agent.start_match(MatchInfo(opponent_name=opponent.name, total_rounds=total_rounds))

    # Agents that wait on something outside (LLM, arena) are awaited; the rest are called directly.
    a_waits, b_waits = agent_a.waits, agent_b.waits
    played = Transcript()
    results: list[RoundResult] = []
    cum_a = cum_b = 0.0
    error = None
    aborted_attempts: tuple[Attempt, ...] = ()
    talk: _Talk = None
    decision_a = decision_b = Decision(action=Action.C)  # each round's, set by choose
    yielded = time.monotonic()

    async def choose(played: Transcript, round_index: int) -> tuple[Action, Action]:
        """The agents' actions for one round (after its negotiation phase), as played."""
        nonlocal yielded, talk, decision_a, decision_b
        if (a_waits or b_waits) and time.monotonic() - yielded >= YIELD_EVERY_S:
            # An agent whose provider answers at once (the mock, the cache) never yields: let
            # the other matches, the progress and the storing of finished ones have their turn.
            await asyncio.sleep(0)
            yielded = time.monotonic()
        talk = None
        if game.negotiation is not None:
            talk = await negotiate_round(
                game.negotiation,
                round_index,
                {"a": agent_a, "b": agent_b},
                {"a": _observe(agent_a, played, "a"), "b": _observe(agent_b, played, "b")},
            )
        if a_waits and b_waits:  # both may wait on providers: let them wait together
            # Both finish before either's failure is raised, so no call is left running.
            outcomes = await asyncio.gather(
                _decide(agent_a, played, "a", talk),
                _decide(agent_b, played, "b", talk),
                return_exceptions=True,
            )
            first, second = outcomes
            if isinstance(first, BaseException):
                raise first
            if isinstance(second, BaseException):
                raise second
            decision_a, decision_b = first, second
        else:
            decision_a = (
                await _decide(agent_a, played, "a", talk)
                if a_waits
                else _act(agent_a, played, "a", talk)
            )
            decision_b = (
                await _decide(agent_b, played, "b", talk)
                if b_waits
                else _act(agent_b, played, "b", talk)
            )
        action_a, action_b = decision_a.action, decision_b.action
        if trembles is not None:
            action_a, action_b = trembles[0](action_a), trembles[1](action_b)
        return action_a, action_b

    def record(round_: PlayedRound) -> None:
        nonlocal cum_a, cum_b
        cum_a += round_.payoff_a
        cum_b += round_.payoff_b
        results.append(
            RoundResult(
                round_,
                cum_a,
                cum_b,
                decision_a,
                decision_b,
                time.time(),
                intended_a=decision_a.action if trembles else None,
                intended_b=decision_b.action if trembles else None,
                conversation=talk,
            )
        )

    try:
        await play_rounds(game, n_rounds, choose, played, on_round=record)
    except MatchAborted as aborted:
        error = str(aborted)
        # The aborted round's messages were paid for too: their calls stay on the record.
        said = tuple(attempt for message in talk or () for attempt in message.attempts)
        aborted_attempts = said + tuple(aborted.attempts)
    finally:
        for agent, own, other in ((agent_a, cum_a, cum_b), (agent_b, cum_b, cum_a)):
            agent.end_match(
                MatchSummary(your_total=own, opponent_total=other, rounds=len(played.rounds))
            )
    return MatchResult(
        rounds=results, planned_rounds=n_rounds, error=error, aborted_attempts=aborted_attempts
    )


def play_match_sync(
    game: Game, n_rounds: int, agent_a: Agent, agent_b: Agent, **kwargs
) -> MatchResult:
    """`play_match` for scripts and tests that have no event loop of their own."""
    return asyncio.run(play_match(game, n_rounds, agent_a, agent_b, **kwargs))
