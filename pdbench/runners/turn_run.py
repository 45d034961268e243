"""One planned match of a turn game, played and made ready to store (the experiment runner's
counterpart of its 2x2 match step)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from pdbench.agents.base import AgentBase
from pdbench.core import rng
from pdbench.core.errors import BudgetExhausted, StopRequested
from pdbench.providers.base import TransportFailure
from pdbench.runners.plan import PlannedMatch
from pdbench.runners.turn_records import finished_turn_match, seat_rules, stores_observations
from pdbench.runners.turns import play_turn_match
from pdbench.storage import manifest as manifests
from pdbench.storage.run_store import FinishedMatch
from pdbench.storage.schema import StorePrompts


async def play_planned_turns(
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
    a stop came: `halt` is told the run's status and why)."""
    seats = tuple(side.removeprefix("agent_") for side in planned.condition.players)
    roles = (*seats, *planned.rules.third_roles)
    try:
        result = await play_turn_match(
            planned.rules,
            dict(zip(roles, agents, strict=True)),
            seed=planned.game_seed,
            agent_seeds={
                "a": planned.seed_a,
                "b": planned.seed_b,
                # a group's further seats and the third parties: a stream of their own each
                **{role: third_party_seed(planned, role) for role in roles[2:]},
            },
            rules=seat_rules(planned),
            max_turns=planned.condition.game.max_turns,
            record_digests=stores_observations(planned.rules),
        )
    except TransportFailure as failure:
        halt(manifests.STATUS_INCOMPLETE, str(failure))
        return None
    except BudgetExhausted as spent:
        halt(manifests.STATUS_STOPPED, str(spent))
        return None
    except StopRequested:
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
    return finished_turn_match(planned, result, run_id=run_id, store_prompts=store_prompts)


def third_party_seed(planned: PlannedMatch, role: str) -> int:
    """A third party's own seed for the match: the match's game seed and the role, derived with
    the run's deal (a stream of its own, so binding a third party changes no player's draws)."""
    return planned.deal.derive(planned.game_seed, planned.replicate, rng.agent_stream(role))
