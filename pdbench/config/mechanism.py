"""A condition's game under a mechanism (`mechanism=mediation` on the Hydra command line, or
`mechanism:` in an experiment file, at the top for every condition or in one condition): the
registry's game under a mechanism replaces the condition's game, and its seats' 2x2 house
players their counterparts (`pdbench.games.registry.under_mechanism`, docs/mechanisms.md).

`none` leaves a condition as it is, except in a sweep or file that crosses `none` with another
mechanism (`none_as_turn_game`): a run plays one family of games, so its `none` conditions play
the game under mechanism none (the base game each round)."""

from __future__ import annotations

from typing import Any

from omegaconf import DictConfig, OmegaConf, open_dict

from pdbench.config.schema import SEAT_FIELDS
from pdbench.core.errors import ConfigError
from pdbench.games.registry import mechanism_seat, under_mechanism


def plain(node: Any) -> dict[str, Any]:
    if not isinstance(node, DictConfig):
        return dict(node or {})
    return dict(OmegaConf.to_container(node, resolve=True) or {})  # type: ignore[arg-type]


def mechanism_type(mechanism: Any) -> str:
    return str(plain(mechanism).get("type", "none"))


def bound_seats(node: DictConfig) -> int:
    """The seats `node` binds: a population's total, else its agent_a, agent_b, ... given (a
    mechanism that re-matches a population sizes its groups by it)."""
    population = node.get("population")
    if population is None:
        return sum(node.get(side) is not None for side in SEAT_FIELDS)
    entries = plain(population).values() if isinstance(population, DictConfig) else population
    total = 0
    for entry in entries:
        count = entry.get("count") if hasattr(entry, "get") else entry
        if isinstance(count, bool) or not isinstance(count, int):
            return 0  # a malformed population: read_population names the field
        total += count
    return total


def under_its_mechanism(
    node: DictConfig,
    mechanism: Any,
    *,
    shown: str,
    where: str = "",
    none_as_turn_game: bool = False,
) -> DictConfig:
    """`node` (a condition, or a whole composition: game, horizon, seats) with its game played
    under `mechanism`; unchanged for none (module docstring). A problem is a ConfigError naming
    `shown` and the field (prefixed by `where`, a condition's place in a file)."""
    try:
        game = under_mechanism(
            plain(node.game),
            plain(mechanism),
            plain(node.get("horizon")),
            none_as_turn_game,
            bound_seats(node),
        )
    except ConfigError as error:
        field = f"{where}.{error.field}" if where else error.field
        raise ConfigError(error.reason, file=shown, field=field) from None
    if game is None:
        return node
    node = node.copy()
    with open_dict(node):
        node.game = game
        for side in SEAT_FIELDS:
            agent = node.get(side)
            seated = mechanism_seat(plain(agent), game) if isinstance(agent, DictConfig) else None
            if seated is not None:
                node[side] = seated
    return node
