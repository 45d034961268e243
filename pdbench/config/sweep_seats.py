"""The seats of a Hydra sweep that crosses games of different sizes (a pair game and a group
game, `-m game=<a>,<b> agent_c=... agent_d=...`): the command line binds the seats of its
largest game, and a smaller game's conditions leave the seats it does not have out (`game_seats`,
asked once as each condition is composed) instead of refusing the whole sweep; the Hydra door
says so in one warning line per game (`seats_left_out`), and each condition's stored players
show it."""

from __future__ import annotations

from typing import Any

from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from pdbench.config.overrides import Overrides
from pdbench.config.schema import EXTRA_SEAT_FIELDS
from pdbench.core.errors import ConfigError


def game_seats(game: DictConfig) -> tuple[str, ...] | None:
    """The player seats ("a", "b", ...) of the composed `game`, so a condition keeps the seat
    fields it has (module doc); None for a game that does not build: the condition's
    validation names the problem."""
    from pdbench.config.game_spec import GameSpec

    try:
        spec = GameSpec.model_validate(OmegaConf.to_container(game, resolve=True))
        return spec.seats()
    except (ValueError, ConfigError, OmegaConfBaseException):
        return None


def seats_left_out(overrides: Overrides, loaded: Any, shown: str) -> list[str]:
    """A seat the command line binds that a game of the sweep does not have: left out of that
    game's conditions (`game_seats`), said once per game."""
    (condition,) = loaded.spec.conditions
    keys = overrides.keys()  # the overridden keys (an Overrides iterates its lines)
    bound = {key.split(".")[0] for key in keys} & set(EXTRA_SEAT_FIELDS)
    left_out = sorted(bound - set(condition.players))
    if not left_out:
        return []
    return [
        f"{shown}: {', '.join(left_out)}: {condition.game.id} seats "
        f"{len(condition.players)} players, so its conditions leave "
        f"{'it' if len(left_out) == 1 else 'them'} out (the sweep crosses games)"
    ]
