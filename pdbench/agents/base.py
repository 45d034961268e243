"""What the runner plays with: `AgentBase` (the contract every game's seat is played through),
`TableAgent` (the hooks a 2x2 agent answers, which the 2x2 seat adapts), what an agent hands back
(`TurnDecision`, `Decision`, `Utterance`), and what it is told (`TurnRequest`, `MatchInfo`,
`MatchSummary`, `AgentContext`).

The runner (`pdbench.runners.turns`) calls, per match of any game: `reset(seed)`,
`start_match(info)`, then `await take_turn(request)` once per turn the agent's seat moves, then
`end_match(summary)` and `close()` (`stop_now()` when the run stops mid-turn). Every game's agent
is told the match's start and end (an arena agent's `on_match_start` and `on_match_end`, in a
turn game too); nothing else is asked of it.

A 2x2 game's agent is a `TableAgent`: it is seated in a `pdbench.games.matrix.seat.MatrixSeat`,
which answers the runner's turns by calling, each round, `act(obs)` (an agent with
`waits = False`) or `await decide(obs)` (one that waits on a provider or a process) with the
`Observation` of the round cut to the agent's `history_window` and `include_totals`; in a game
with a negotiation phase, first `await negotiate(obs)` on the agent's talk turns (`obs.messages`
holds what was said so far), the commit's observation then carrying the whole conversation. An
agent that plays both kinds (an LLM, an arena file) is a `TableAgent` with a `take_turn`. `Agent`
is the smallest 2x2 protocol, what a bare strategy from `pdbench.strategies` already satisfies.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from pdbench.core.actions import Action
from pdbench.core.rng import Deal
from pdbench.core.transcript import Observation
from pdbench.storage.schema import Attempt

if TYPE_CHECKING:
    from pdbench.providers.gateway import ProviderGateway


class AgentBase:
    """The base of every agent the runner plays, in any game: every hook but `take_turn` does
    nothing until a subclass says otherwise, so the runner calls them all without asking which
    exist."""

    name: str = "agent"
    # True when a turn waits on something outside the process (a provider, a child process):
    # such agents' turns are awaited together, the others are asked one after the other and
    # never yield to the event loop (`runners.turns`).
    waits: bool = False

    def reset(self, seed: int | None = None) -> None:
        """Forget the previous match; `seed` feeds the agent's own random stream."""

    def start_match(self, info: MatchInfo) -> None:
        """Told once before the first turn."""

    async def take_turn(self, request: TurnRequest) -> TurnDecision:
        """One turn of the agent's seat: an action for `request.round_state` in the platform's
        shape. An agent re-asks itself as its kind retries (an LLM is shown `request.check`'s
        reason); with no legal action in the end it returns `action=None` and the engine plays
        the game's fallback or aborts the match."""
        raise NotImplementedError(f"{type(self).__name__} does not play turn-based games")

    def end_match(self, summary: MatchSummary) -> None:
        """Told once after the last turn (also after an aborted match)."""

    def close(self) -> None:
        """Release processes or connections; called once the match is stored."""

    def stop_now(self) -> None:
        """The run is stopping (Ctrl-C, a failed write): end whatever is running at once,
        without waiting for a turn in progress. `close` follows."""


class TableAgent(AgentBase):
    """An agent of the 2x2 games, asked once a round from the table's `Observation`; the 2x2
    seat (`pdbench.games.matrix.seat.MatrixSeat`) adapts it to the runner's turns. Its
    `take_turn` is `AgentBase`'s unless it also plays turn games."""

    history_window: int | None = None  # past rounds shown (None: all of them)
    include_totals: bool = False  # whether the observation carries both running totals
    # waits (AgentBase): True when `decide` waits, so the seat awaits it; False: the seat calls
    # `act` directly.

    def act(self, obs: Observation) -> Action:
        raise NotImplementedError(f"{type(self).__name__} implements neither act nor decide")

    async def decide(self, obs: Observation) -> Decision:
        """The action and how it was reached; by default `act` with nothing to record."""
        return Decision(action=self.act(obs))

    async def negotiate(self, obs: Observation) -> Utterance:
        """One message in a negotiation phase (`obs.turn`, `obs.messages`); by default silence."""
        return Utterance(text="")


@runtime_checkable
class Agent(Protocol):
    """The smallest 2x2 agent: what a bare strategy from `pdbench.strategies` satisfies."""

    name: str
    # How many past rounds the agent sees (None: all of them) and whether it is told the totals.
    history_window: int | None
    include_totals: bool

    def reset(self, seed: int | None = None) -> None: ...

    def act(self, obs: Observation) -> Action: ...


@dataclass(frozen=True, slots=True)
class Decision:
    """An agent's action for one round and the record of how it was reached.

    `attempts` holds one record per try (a provider call of an LLM agent, an arena agent's
    on_turn); it is empty for agents that make no calls.
    """

    action: Action
    attempts: tuple[Attempt, ...] = ()
    invalid_outputs: int = 0
    fallback: bool = False
    timeout: bool = False
    error: str | None = None
    # The order the two options were named in the prompt ("CD" or "DC"), when it is shuffled.
    option_order: str | None = None


@dataclass(frozen=True, slots=True)
class TurnRequest:
    """What a turn-based game asks one seat (see `pdbench.games.base`)."""

    game: (
        str  # the platform's name of the game (its entry's platform_name), as an agent file's GAME
    )
    seat: str  # "a", "b", or a third role's seat ("<role>:a", "<role>")
    round_state: dict[str, Any]  # the seat's observation: exactly what it may see
    # The rules' verdict on an action: None when legal, else why not (a sentence fit to show an
    # LLM that is re-asked). Agents call it on each answer before returning it.
    check: Callable[[dict[str, Any]], str | None]


@dataclass(frozen=True, slots=True)
class TurnDecision:
    """A seat's answer to one turn and how it was reached (as `Decision` for a 2x2 round).

    `action` is None when no legal action came after the agent's retries (or it timed out):
    the engine then plays the game's fallback, or aborts the match, and records which."""

    action: dict[str, Any] | None
    attempts: tuple[Attempt, ...] = ()
    invalid_outputs: int = 0  # answers refused (unparseable or illegal) before the final one
    timeout: bool = False
    error: str | None = None


@dataclass(frozen=True, slots=True)
class Utterance:
    """What an agent said at one negotiate turn and how (the runner cuts it to the limit).

    A timeout or an answer that is not a message says `text` "" (or the condition's timeout
    message) and is marked; `attempts` are the calls that produced it."""

    text: str
    attempts: tuple[Attempt, ...] = ()
    timeout: bool = False
    invalid: bool = False
    error: str | None = None


@dataclass(frozen=True, slots=True)
class MatchInfo:
    """Told to an agent before round 1."""

    opponent_name: str
    total_rounds: int | None  # None when the horizon is geometric (not known in advance)


@dataclass(frozen=True, slots=True)
class MatchSummary:
    """Told to an agent after the last round, from its own side."""

    your_total: float
    opponent_total: float
    rounds: int
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def winner(self) -> str:
        if self.your_total > self.opponent_total:
            return "you"
        if self.your_total < self.opponent_total:
            return "opponent"
        return "draw"


@dataclass(frozen=True)
class AgentContext:
    """Where an agent plays: which match of which run, and the run's shared services."""

    run_seed: int
    condition: str
    replicate: int
    side: str  # "a" or "b"
    project_root: Path  # relative paths in specs (prompts, arena files) resolve against this
    # The run's deal (pdbench.core.rng): the streams an agent derives while it plays (an LLM
    # agent's option order, the mock model's draws) are keyed by it like the plan's seeds.
    deal: Deal
    # The deal key files (the run's copy, the workspace's, a sweep's): no arena sandbox shows them.
    secret_files: tuple[Path, ...] = ()
    run_dir: Path | None = None  # arena agents write their print() log here
    store_prompts: bool | str = True
    gateway: ProviderGateway | None = None  # provider calls: cache, concurrency, budget, stats
    cache_namespace: str | None = None  # run.cache.namespace: part of every cache key
    extra: dict[str, Any] | None = None
