"""Who `pdbench train` seats against a user's file, and how long the match is: asked of the
game (its entry in pdbench/games/registry.py names its training opponents, its seats, the
option setting its rounds and whether its horizon sets them), never guessed from its name or
family."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pdbench.config.schema import ConditionSpec
    from pdbench.games.entry import TurnGameEntry


@dataclass(frozen=True)
class TrainingTable:
    """Who sits where and what the command line changes: the house agent of each seat after
    seat a (the user's file), and the overrides setting the rounds and the number of seats."""

    opponents: dict[str, str]  # seat field (agent_b, agent_c, ...) -> house agent
    overrides: tuple[str, ...]


def training_table(
    game_id: str, against: str | None, rounds: int | None, seats: int | None
) -> TrainingTable:
    """The seats and overrides of training a file of `game_id`, asked of the game's entry (its
    opponents, its seats, whether it sets its rounds); a flag the game cannot take is a
    ValueError naming it."""
    from pdbench.games.base import SEAT_LETTERS, player_seats
    from pdbench.games.registry import game_entry

    overrides: list[str] = []
    # a judged game's third party (the Keeper, the judge) is its house default, in the header
    entry = game_entry(game_id)
    house, seating = entry.training_opponents, entry.seats
    if rounds is not None:
        overrides.append(_rounds_override(entry, rounds))
    count = seating.default
    if seats is not None:
        if seating.minimum == seating.maximum:
            raise ValueError(f"--seats: {game_id} seats {seating.default} players, always")
        # train binds the seats one by one (agent_a .. agent_j), so at most ten of them
        most = min(seating.maximum, len(SEAT_LETTERS))
        if not seating.minimum <= seats <= most:
            raise ValueError(
                f"--seats: {game_id} seats {seating.minimum} to {most} players, not {seats}"
            )
        count = seats
        overrides.append(f"game.options.{seating.option}={seats}")
    others = player_seats(count)[1:]
    chosen = (against,) if against is not None else house
    if not chosen:  # a game entry that names none: ask for one rather than fail on an index
        raise ValueError(f"--against: {game_id} names no training opponent; name a house agent")
    opponents = {f"agent_{seat}": chosen[i % len(chosen)] for i, seat in enumerate(others)}
    return TrainingTable(opponents=opponents, overrides=tuple(overrides))


def _rounds_override(entry: TurnGameEntry, rounds: int) -> str:
    """The override `--rounds` makes: the horizon's rounds when the horizon sets a match's
    length, else the game's rounds option; a ValueError for a game whose rules end a match."""
    if entry.horizon_sets_length:
        return f"horizon.rounds={rounds}"
    if not entry.rounds_option:
        raise ValueError(
            f"--rounds: {entry.id} has no set number of rounds (its rules end a match)"
        )
    return f"game.options.{entry.rounds_option}={rounds}"


def match_length(condition: ConditionSpec) -> str:
    """How long the match is, as the game says: the horizon's rounds when the horizon sets a
    match's length, its rounds option, or until its rules end it."""
    from pdbench.games.registry import game_entry

    entry = game_entry(condition.game.id)
    if entry.horizon_sets_length:
        horizon = condition.horizon
        return f"{horizon.rounds if horizon.type == 'fixed' else '?'} rounds"
    option = entry.rounds_option
    if not option:
        return "until its rules end the match"
    from pdbench.games.registry import build_turn_game

    return f"{getattr(build_turn_game(condition.game.id, **condition.game.options), option)} rounds"
