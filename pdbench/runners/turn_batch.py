"""The fast path for conditions of house players only: a game that can play many matches at
once (its entry's `vectorised` module, numpy over the matches) plays them here, and each match is
stored exactly as the turn loop stores it (`turn_records`), byte for byte apart from timestamps;
tests/integration/test_turn_batch_equivalence.py holds it to that. A module that plays arrays
(`play_arrays`: the 2x2 games') is played by `runners.batch`, which writes their lines.

The runner asks first whether a condition can take it (`vectorised_players`), the same question
for every game: every seat's agent has a player there (its spec's `batch_player`), no third
role, and the game's own `problem` says nothing against the variant. Anything else plays the
turn loop.
"""

from __future__ import annotations

import importlib
import time
from types import ModuleType
from typing import Any

from pdbench.agents.kinds import is_batchable
from pdbench.games.registry import game_entry
from pdbench.runners.plan import PlannedMatch
from pdbench.runners.turn_records import finished_turn_match
from pdbench.runners.turn_run import third_party_seed
from pdbench.runners.turns import PlayedTurn, SeatTurn, TurnMatchResult
from pdbench.storage.run_store import FinishedMatch
from pdbench.storage.schema import StorePrompts

# Matches played together: enough for numpy to pay off, few enough that their turns (held
# until the chunk ends) stay small in memory.
CHUNK = 1000


def vectorised_module(planned: PlannedMatch) -> ModuleType | None:
    """The game's vectorised module (its entry's `vectorised`), None when it has none."""
    entry = game_entry(planned.game_id)
    return importlib.import_module(entry.vectorised) if entry.vectorised else None


def plays_arrays(module: ModuleType) -> bool:
    """Whether a vectorised module plays arrays over rounds (`play_arrays`, written by
    `runners.batch`) rather than turns (`play`): `games.entry.TurnGameEntry.vectorised`."""
    return callable(getattr(module, "play_arrays", None))


def vectorised_players(planned: PlannedMatch) -> dict[str, Any] | None:
    """Each seat's house player when the condition of `planned` can be played vectorised (see
    the module docstring), else None."""
    condition = planned.condition
    if planned.rules.third_roles:
        return None
    module = vectorised_module(planned)
    if module is None or not is_batchable(*condition.players.values()):
        return None
    players = {
        seat: spec.batch_player(planned.rules, seat)
        for seat, spec in (
            (side.removeprefix("agent_"), spec) for side, spec in condition.players.items()
        )
    }
    if any(player is None for player in players.values()):
        return None
    if module.problem(planned.rules, players, condition.game.max_turns) is not None:
        return None
    return players


def _agent_seeds(planned: PlannedMatch, seats: list[str]) -> dict[str, int | None]:
    """The seeds `turn_run.TURN_LINES` resets each seat's agent with."""
    return {
        seat: planned.seed_a
        if seat == "a"
        else planned.seed_b
        if seat == "b"
        else third_party_seed(planned, seat)
        for seat in seats
    }


def play_turn_batch(
    matches: list[PlannedMatch],
    players: dict[str, Any],
    *,
    run_id: str,
    store_prompts: StorePrompts,
) -> list[FinishedMatch] | None:
    """Play `matches` (one condition's) together; None when the game finds it cannot after
    all (then the turn loop plays them)."""
    module = vectorised_module(matches[0])
    assert module is not None
    seats = list(players)
    try:
        played = module.play(
            matches[0].rules,
            players,
            [m.game_seed for m in matches],
            [_agent_seeds(m, seats) for m in matches],
        )
    except module.Unplayable:
        return None
    finished_at = time.time()
    done = []
    for planned, match in zip(matches, played, strict=True):
        turns = [
            PlayedTurn(
                round=turn.round,
                turn=number,
                phase=turn.phase,
                digests=turn.digests,
                seats={seat: SeatTurn(action, 1, 0) for seat, action in turn.actions.items()},
                revealed=turn.revealed,
                finished_at=finished_at,
            )
            for number, turn in enumerate(match.turns, start=1)
        ]
        result = TurnMatchResult(turns, match.scores, final_state=None)
        done.append(
            finished_turn_match(planned, result, run_id=run_id, store_prompts=store_prompts)
        )
    return done
