"""One planned match, whatever its game, played on the turn loop and made ready to store: the one
path of every match the runner loops over (`runners.play`). What is the game's own, how its
agents are seated and what is stored of the match, the game's entry says
(`TurnGameEntry.records`, a `runners.match_records.MatchRecords`); a game naming none has
`TURN_LINES`, each turn stored as a turn line (`runners.turn_records`).
"""

from __future__ import annotations

import asyncio
import functools
import importlib
from collections.abc import Callable, Sequence
from typing import Any

from pdbench.agents.base import AgentBase
from pdbench.core import rng
from pdbench.core.errors import BudgetExhausted, StopRequested
from pdbench.games.registry import game_entry
from pdbench.providers.base import TransportFailure
from pdbench.runners.match_records import MatchRecords, SeatedMatch
from pdbench.runners.plan import PlannedMatch
from pdbench.runners.turn_records import (
    finished_turn_match,
    seat_rules,
    stores_observations,
    turn_outcome_options,
    turn_shared_fields,
)
from pdbench.runners.turns import TurnMatchResult, play_turn_match
from pdbench.storage import manifest as manifests
from pdbench.storage.run_store import FinishedMatch
from pdbench.storage.schema import StorePrompts


class TurnLines:
    """The default `MatchRecords`: each agent plays its role as it is, held to its config's
    on_invalid and re-asks, for at most game.max_turns turns; every turn is stored as a turn
    line, and aggregation reads them back (no columns held)."""

    def seat(self, planned: PlannedMatch, agents: Sequence[AgentBase]) -> SeatedMatch:
        seats = tuple(side.removeprefix("agent_") for side in planned.condition.players)
        roles = (*seats, *planned.rules.third_roles)
        return SeatedMatch(
            agents=dict(zip(roles, agents, strict=True)),
            agent_seeds={
                "a": planned.seed_a,
                "b": planned.seed_b,
                # a group's further seats and the third parties: a stream of their own each
                **{role: third_party_seed(planned, role) for role in roles[2:]},
            },
            rules=seat_rules(planned),
            max_turns=planned.condition.game.max_turns,
        )

    def finished(
        self,
        planned: PlannedMatch,
        seated: SeatedMatch,
        played: TurnMatchResult,
        *,
        run_id: str,
        store_prompts: StorePrompts,
    ) -> FinishedMatch:
        return finished_turn_match(planned, played, run_id=run_id, store_prompts=store_prompts)

    def shared_fields(self, planned: PlannedMatch, run_id: str) -> dict[str, Any]:
        return turn_shared_fields(planned, run_id)

    def outcome_options(self, planned: PlannedMatch) -> dict[str, Any]:
        return turn_outcome_options(planned)


TURN_LINES = TurnLines()


@functools.cache
def _records_named(name: str) -> MatchRecords:
    module, _, attribute = name.partition(":")
    found: MatchRecords = getattr(importlib.import_module(module), attribute)
    return found


def match_records(planned: PlannedMatch) -> MatchRecords:
    """The `MatchRecords` of the game `planned` plays: its entry's, else `TURN_LINES`."""
    named = game_entry(planned.game_id).records
    return _records_named(named) if named else TURN_LINES


async def play_seated(planned: PlannedMatch, seated: SeatedMatch) -> TurnMatchResult:
    """The turns of `planned` played by its seated agents (an abort ends it with its error; a
    provider's failure, a spent budget or a stop is raised)."""
    return await play_turn_match(
        planned.rules,
        seated.agents,
        seed=planned.game_seed,
        agent_seeds=seated.agent_seeds,
        rules=seated.rules,
        max_turns=seated.max_turns,
        start=seated.start,
        record_digests=stores_observations(planned.rules),
    )


async def play_planned(
    planned: PlannedMatch,
    agents: list[AgentBase],
    *,
    run_id: str,
    store_prompts: StorePrompts,
    halt: Callable[[str, str], None],
    stop_requested: Callable[[], bool] = lambda: False,
) -> FinishedMatch | None:
    """Play `planned` between `agents` (its player seats a, b, c, ..., then the game's third
    roles in order); None when it must stay unfinished (a provider failed, the budget is spent,
    a stop came: `halt` is told the run's status and why). Every agent is closed at the end."""
    records = match_records(planned)
    try:  # seated inside, so that the agents are closed whatever happens
        seated = records.seat(planned, agents)
        played = await play_seated(planned, seated)
    except TransportFailure as failure:  # not a result: the match stays unfinished
        halt(manifests.STATUS_INCOMPLETE, str(failure))
        return None
    except BudgetExhausted as spent:
        halt(manifests.STATUS_STOPPED, str(spent))
        return None
    except StopRequested:  # Ctrl-C or SIGTERM: the match stays unfinished
        return None
    except asyncio.CancelledError:  # the run stops: no turn in progress is waited for
        for agent in agents:
            agent.stop_now()
        if stop_requested():  # the grace after a stop ran out: unfinished
            return None
        raise
    finally:
        for agent in agents:
            agent.close()
    return records.finished(planned, seated, played, run_id=run_id, store_prompts=store_prompts)


def third_party_seed(planned: PlannedMatch, role: str) -> int:
    """A third party's own seed for the match: the match's game seed and the role, derived with
    the run's deal (a stream of its own, so binding a third party changes no player's draws)."""
    return planned.deal.derive(planned.game_seed, planned.replicate, rng.agent_stream(role))
