"""The Agent protocol and what an agent hands back to the match runner.

Every agent implements `reset(seed=None)` and `act(obs) -> Action`. Agents that need more say so by
implementing the optional hooks, which the runner calls when present:

- `async decide(obs) -> Decision`: an action plus what happened on the way (LLM attempts, invalid
  outputs, fallbacks, timeouts). LLM and arena agents implement this; policies do not need to.
- `start_match(info: MatchInfo)` and `end_match(summary: MatchSummary)`: lifecycle notifications.
- `close()`: release processes or connections when the match is over.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from pdbench.core.transcript import Observation
from pdbench.core.types import Action

if TYPE_CHECKING:
    from pdbench.providers.gateway import ProviderGateway


@runtime_checkable
class Agent(Protocol):
    name: str
    # How many past rounds the agent sees (None: all of them) and whether it is told the totals.
    history_window: int | None
    include_totals: bool

    def reset(self, seed: int | None = None) -> None: ...

    def act(self, obs: Observation) -> Action: ...


@dataclass(frozen=True, slots=True)
class Decision:
    """An agent's action for one round and the record of how it was reached.

    `attempts` holds one JSON-able dict per provider attempt (prompt or its hash, raw response,
    valid or not); it is empty for agents that make no calls.
    """

    action: Action
    attempts: tuple[dict[str, Any], ...] = ()
    invalid_outputs: int = 0
    fallback: bool = False
    timeout: bool = False
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
    run_dir: Path | None = None  # arena agents write their print() log here
    store_prompts: bool | str = True
    gateway: ProviderGateway | None = None  # provider calls: cache, concurrency, budget, stats
    extra: dict[str, Any] | None = None
