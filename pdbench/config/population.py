"""A condition's population: agents with counts that fill a game's player seats in order, for
more seats than `agent_a` .. `agent_j` bind one by one (issues 44 and 45).

Written two ways, on the Hydra command line and in experiment files alike:

    population: {llm_default: 4, tft: 2, alld: 2}        # conf/agent/ names -> counts
    population:                                           # or entries, each any agent binding
      - {agent: tft, count: 14}
      - {agent: {ref: agent/llm_default.yaml, overrides: {persona: exploitative}}, count: 2}

The first entry's agents take seats "a", "b", ..., the next entry's the seats after them
(`pdbench.games.base.player_seats`), so `{tft: 2, alld: 2}` is agent_a = agent_b = tft and
agent_c = agent_d = alld: four players, two of them tft. A population binds every seat, so a
condition gives it or agent_a/agent_b/..., never both. Its total must be the game's number of
seats; when the game's seat option (`Seats.option`, e.g. a group size) is not given, the
total sets it. The stored condition holds the population (its entries with resolved agents) in
place of agent_a and agent_b.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from omegaconf import DictConfig, ListConfig
from pydantic import BaseModel, Field

from pdbench.config.agent_spec import AgentSpec
from pdbench.config.frozen import Frozen
from pdbench.core.errors import ConfigError
from pdbench.games.base import MAX_SEATS, SEAT_LETTERS, player_seats

# the fields a population replaces (agent_a .. agent_j)
_SEAT_FIELDS = tuple(f"agent_{letter}" for letter in SEAT_LETTERS)


class PopulationEntry(Frozen):
    """`count` seats played by `agent` (each seat its own instance of it)."""

    agent: AgentSpec
    count: int = Field(ge=1, description="how many seats this agent plays")
    # the conf/agent/ name it was given by, for messages (`population.tft`); not stored
    name: str = Field("", exclude=True)


def read_population(
    raw: Any, resolve: Callable[[Any, str], DictConfig], *, shown: str, where: str
) -> list[dict[str, Any]]:
    """The population as written (a mapping name -> count, or a list of {agent, count}) as
    entries {agent, count, name}, each agent resolved by `resolve(value, field)`; a count that
    is not a whole number >= 1, an unknown agent or a malformed entry is a ConfigError naming
    its field (`population.tft`, `population[1].count`)."""
    if isinstance(raw, DictConfig):
        if len(raw) == 0:
            raise ConfigError(
                "names no agent: give {agent name: count, ...}", file=shown, field=where
            )
        names = [(str(name), count) for name, count in raw.items()]
        return [
            _entry(name, count, resolve, shown=shown, field=f"{where}.{name}", name=name)
            for name, count in names
        ]
    if isinstance(raw, ListConfig) and len(raw) > 0:
        entries = []
        for index, item in enumerate(raw):
            field = f"{where}[{index}]"
            if not isinstance(item, DictConfig) or set(map(str, item.keys())) != {"agent", "count"}:
                raise ConfigError(
                    "an entry is {agent: <conf/agent name or agent>, count: <n>}",
                    file=shown,
                    field=field,
                )
            name = item.agent if isinstance(item.agent, str) else ""
            entries.append(
                _entry(item.agent, item.count, resolve, shown=shown, field=field, name=name)
            )
        return entries
    raise ConfigError(
        "is a mapping {agent name: count} or a list of {agent, count} entries",
        file=shown,
        field=where,
    )


def _entry(
    agent: Any,
    count: Any,
    resolve: Callable[[Any, str], DictConfig],
    *,
    shown: str,
    field: str,
    name: str,
) -> dict[str, Any]:
    count_field = field if name and not field.endswith("]") else f"{field}.count"
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise ConfigError(
            f"a count is a whole number of seats, at least 1 (got {count!r})",
            file=shown,
            field=count_field,
        )
    agent_field = field if name and not field.endswith("]") else f"{field}.agent"
    return {"agent": resolve(agent, agent_field), "count": count, "name": name}


def _entries(data: Mapping[str, Any]) -> list[tuple[Any, int]]:
    """(agent, count) of each entry of a condition's raw `population` (dicts or entries)."""
    found = []
    for entry in data["population"]:
        if isinstance(entry, BaseModel):
            entry = entry.model_dump()
        if not isinstance(entry, Mapping):
            raise ValueError("population: an entry is {agent, count}")
        count = entry.get("count")
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise ValueError(f"population: a count is a whole number, at least 1 (got {count!r})")
        found.append((entry.get("agent"), count))
    return found


def fill_seats(data: Any) -> Any:
    """A condition's raw fields before validation, with a population's first two agents in
    agent_a and agent_b (the fields every condition has) and, when the game's seat option is
    not given, the option that seats the population's total; a population given alongside a
    seat's field is refused naming both."""
    if not isinstance(data, dict) or data.get("population") is None:
        return data
    bound = [side for side in _SEAT_FIELDS if data.get(side) is not None]
    if bound:
        raise ValueError(
            f"population: binds every seat, and {bound[0]} is given too: give the population "
            "or the seats' agent_a, agent_b, ..., not both"
        )
    entries = _entries(data)
    agents = [agent for agent, count in entries for _ in range(count)]
    if not 2 <= len(agents) <= MAX_SEATS:
        raise ValueError(f"population: {len(agents)} players in all; a game seats 2 to {MAX_SEATS}")
    return {
        **data,
        "game": _seat_option_set(data.get("game"), len(agents)),
        "agent_a": agents[0],
        "agent_b": agents[1],
    }


def _seat_option_set(game: Any, total: int) -> Any:
    """`game` (raw) with its seat option set so that it seats `total` players, when the game's
    number of seats varies and its options do not give the option; else `game` as it was."""
    from pdbench.games.registry import TURN_GAMES, build_turn_game, seats_played

    plain = game.model_dump() if isinstance(game, BaseModel) else game
    if not isinstance(plain, dict) or plain.get("id") not in TURN_GAMES:
        return game
    seats = TURN_GAMES[plain["id"]].seats
    options = dict(plain.get("options") or {})
    if not seats.option or seats.option in options:
        return game
    for value in range(1, total + 1):
        try:
            rules = build_turn_game(plain["id"], **{**options, seats.option: value})
            played = seats_played(plain["id"], rules)
        except (ValueError, TypeError, ConfigError):
            continue
        if len(played) == total:
            return {**plain, "options": {**options, seats.option: value}}
    return game


def check_population(
    entries: Sequence[PopulationEntry],
    game_id: str,
    seats: Sequence[str],
    option: str,
    positions: int = 1,
) -> None:
    """Refuse a population whose total is not the number of seats the game plays (`seats`), or,
    in a game whose seats keep their position as they are re-matched (`positions` > 1: seat i
    always plays position i mod `positions`, as the rules' `seat_positions` say), an entry whose
    seats do not cover every position equally: CoopEval's population is one agent per model and
    position (`agent_registry.py@8559e85:23-34`), so each entry's count must be a multiple of
    `positions` (the entries fill the seats in order, so each then starts at position 1)."""
    total = sum(entry.count for entry in entries)
    if total != len(seats):
        how = f", set by game.options.{option}" if option else ""
        raise ValueError(
            f"population: {total} players in all, but {game_id} plays {len(seats)} seats here{how}"
        )
    for index, entry in enumerate(entries):
        if entry.count % positions:
            named = f"population.{entry.name}" if entry.name else f"population[{index}].count"
            raise ValueError(
                f"{named}: {entry.count} seats do not split evenly over the {positions} "
                f"positions the population is re-matched within (seat a, c, ... Player 1; b, "
                f"d, ... Player 2, ...): as CoopEval's one agent per model and position, give "
                f"each agent a multiple of {positions} seats, or bind agent_a, agent_b, ... "
                "one by one"
            )


def seat_entry_field(entries: Sequence[PopulationEntry], side: str) -> str:
    """How a message names the entry filling seat field `side` (agent_c): `population.tft`,
    or `population[2]`."""
    position = list(population_players(entries)).index(side)
    for index, entry in enumerate(entries):
        if position < entry.count:
            return f"population.{entry.name}" if entry.name else f"population[{index}]"
        position -= entry.count
    raise ValueError(f"{side} is no seat of the population")


def population_players(entries: Sequence[PopulationEntry]) -> dict[str, AgentSpec]:
    """The agent of each seat the population fills, by field: agent_a, agent_b, ..."""
    agents = [entry.agent for entry in entries for _ in range(entry.count)]
    seats = player_seats(len(agents))
    return {f"agent_{seat}": agent for seat, agent in zip(seats, agents, strict=True)}
