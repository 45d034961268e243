"""Who `pdbench train` seats against a user's file, and how long the match is: asked of the
game (its entry in pdbench/games/registry.py names its training opponents, its seats and the
option setting its rounds), never guessed from its name or family."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pdbench.config.schema import ConditionSpec


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
    from pdbench.games.registry import GAME_FAMILIES, game_entry

    overrides: list[str] = []
    # a judged game's third party (the Keeper, the judge) is its house default, in the header
    entry = game_entry(game_id)
    house, seating = entry.training_opponents, entry.seats
    if GAME_FAMILIES[game_id] == "turn":
        rounds_option = entry.rounds_option
        if rounds is not None:
            if not rounds_option:
                raise ValueError(
                    f"--rounds: {game_id} has no set number of rounds (its rules end a match)"
                )
            overrides.append(f"game.options.{rounds_option}={rounds}")
    elif rounds is not None:  # a 2x2 game's length is the horizon's
        overrides.append(f"horizon.rounds={rounds}")
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


def match_length(condition: ConditionSpec) -> str:
    """How long the match is, as the game says: its rounds option, the horizon's rounds of a 2x2
    game, or until its rules end it."""
    from pdbench.games.registry import GAME_FAMILIES, TURN_GAMES

    if GAME_FAMILIES[condition.game.id] == "matrix":
        horizon = condition.horizon
        return f"{horizon.rounds if horizon.type == 'fixed' else '?'} rounds"
    option = TURN_GAMES[condition.game.id].rounds_option
    if not option:
        return "until its rules end the match"
    from pdbench.games.registry import build_turn_game

    return f"{getattr(build_turn_game(condition.game.id, **condition.game.options), option)} rounds"
