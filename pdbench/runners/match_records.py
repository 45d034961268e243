"""What a game decides of its matches in the runner, the one place it does (issue 43: one runner,
the game says what is its own): how its agents are seated in the turn loop and what is stored of
a match they played. Every match is played by the one path (`runners.turn_run.play_planned`);
a game's entry names its own `MatchRecords` (`TurnGameEntry.records`: the 2x2 games' seat each
agent in a `MatrixSeat` and add its own answers to the commit lines), and a game naming none
has the default, every turn stored as a turn line (`runners.turn_run.TURN_LINES`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from pdbench.agents.base import AgentBase
    from pdbench.runners.plan import PlannedMatch
    from pdbench.runners.turns import SeatRule, TurnMatchResult
    from pdbench.storage.run_store import FinishedMatch
    from pdbench.storage.schema import StorePrompts


@dataclass(frozen=True)
class SeatedMatch:
    """A planned match's agents as the turn loop plays them: by role, each as the game seats
    it (wrapped, or as it is), reset with its seed and held to its rule; the turn cap; and the
    state the match starts from when the runner deals it (None: the rules' initial state)."""

    agents: Mapping[str, AgentBase]
    agent_seeds: Mapping[str, int | None]
    rules: Mapping[str, SeatRule]
    max_turns: int
    start: Any = None


class MatchRecords(Protocol):
    """A game's part in running its matches (module docstring)."""

    def seat(self, planned: PlannedMatch, agents: Sequence[AgentBase]) -> SeatedMatch:
        """`agents` (the player seats a, b, c, ..., then the game's third roles, in order)
        seated for the turn loop."""
        ...

    def finished(
        self,
        planned: PlannedMatch,
        seated: SeatedMatch,
        played: TurnMatchResult,
        *,
        run_id: str,
        store_prompts: StorePrompts,
    ) -> FinishedMatch:
        """What the store writes of the match the seated agents played: its lines, its ledger
        entry and the columns aggregation reads (None: aggregation reads the lines)."""
        ...

    def shared_fields(self, planned: PlannedMatch, run_id: str) -> dict[str, Any]:
        """The fields every line of the match holds, in line order (a vectorised path that
        writes the lines itself starts each with them)."""
        ...

    def outcome_options(self, planned: PlannedMatch) -> dict[str, Any]:
        """The rules' options as the match's outcome stores them (what a replay needs)."""
        ...
