"""Every game pdbench plays: the built-in turn games (each package's `GAME`), the installed
plugins' (entry point group `pdbench.games`), and (`GAME_FAMILIES`) every game of both families,
the 2x2 matrix games included (each with its package's table, which `pdbench.games.tables`
gathers), so one place answers "which games are there", and each game's entry what is its own.

An entry names its parts as "module:attribute" strings, imported only when a game is played, so
listing the games costs nothing. Adding a game is a package under pdbench/games/ whose
`__init__` holds its `GAME` (docs/add-a-game.md), one line in `BUILT_IN_GAMES` (or an entry
point, for a game of another package), a `conf/game/<id>.yaml`, and its tests
(tests/unit/test_turn_games.py runs every registered game through the contract).
"""

from __future__ import annotations

import difflib
import functools
import importlib
from collections.abc import Callable
from typing import Any, Literal, cast

from pdbench.core.errors import ConfigError, unknown_choice
from pdbench.games import (
    battle_of_the_sexes,
    chicken,
    donor_game,
    liars_dice,
    nil_recruitment,
    normal_form,
    nuclear_war,
    passcode,
    pd,
    public_goods,
    split_or_steal,
    stag_hunt,
)
from pdbench.games.base import RECORDED_ONLY_WHEN_SET, TurnGame, TurnPolicy, player_seats
from pdbench.games.entry import TurnGameEntry
from pdbench.games.prompt_adapter import GameMock, PromptAdapter, TablePrompts
from pdbench.games.roles import ThirdRole

# The built-in turn games, each described by its package's `GAME` (everything that is one game's
# lives in its package, issue 43); installed plugins' games join them below.
BUILT_IN_GAMES: tuple[TurnGameEntry, ...] = (
    liars_dice.GAME,
    passcode.GAME,
    nuclear_war.GAME,
    nil_recruitment.GAME,
    public_goods.GAME,
    donor_game.GAME,
    normal_form.GAME,
)
TURN_GAMES: dict[str, TurnGameEntry] = {entry.id: entry for entry in BUILT_IN_GAMES}
# The 2x2 matrix games, a package each on the family `pdbench.games.matrix`: rules on the turn
# contract, their rounds stored as rounds (family "matrix", below).
BUILT_IN_MATRIX_GAMES: tuple[TurnGameEntry, ...] = (
    pd.GAME,
    stag_hunt.GAME,
    chicken.GAME,
    split_or_steal.GAME,
    battle_of_the_sexes.GAME,
)
MATRIX_GAMES: dict[str, TurnGameEntry] = {entry.id: entry for entry in BUILT_IN_MATRIX_GAMES}


def game_entry(game_id: str) -> TurnGameEntry:
    """The entry of any registered game, a turn game's or a 2x2 game's (an unknown id is a
    ConfigError naming the choices)."""
    found = TURN_GAMES.get(game_id) or MATRIX_GAMES.get(game_id)
    if found is None:
        choices = {**MATRIX_GAMES, **TURN_GAMES}
        raise ConfigError(unknown_choice("game", game_id, choices), field="game.id")
    return found


def _resolve(entry_point: str) -> Any:
    module, _, attribute = entry_point.partition(":")
    return getattr(importlib.import_module(module), attribute)


# `game=pd mechanism=mediation`: the game a condition plays under a mechanism (a config group,
# conf/mechanism/), and the seat agents that play it ("module:function" each).
UNDER_MECHANISM = "pdbench.games.normal_form.compose:under_mechanism"
MECHANISM_SEAT = "pdbench.games.normal_form.compose:counterpart"


def under_mechanism(
    game: dict[str, Any],
    mechanism: dict[str, Any],
    horizon: dict[str, Any],
    none_as_turn_game: bool = False,
    seats: int | None = None,
) -> dict[str, Any] | None:
    """The game node a condition plays under `mechanism` (None: `none`, the game as it is,
    unless `none_as_turn_game`: a sweep crossing none with other mechanisms); a problem raises
    ConfigError naming the field."""
    problem = _resolve("pdbench.games.normal_form.compose:MechanismProblem")
    try:
        return _resolve(UNDER_MECHANISM)(game, mechanism, horizon, none_as_turn_game, seats)
    except problem as error:
        raise ConfigError(error.reason, field=error.field) from None


def mechanism_seat(agent: dict[str, Any], game: dict[str, Any]) -> dict[str, Any] | None:
    """A seat's agent under a mechanism (a 2x2 house policy's counterpart in the game node
    `game` played), None: unchanged."""
    return _resolve(MECHANISM_SEAT)(agent, game)


def prompt_adapter(entry: TurnGameEntry) -> PromptAdapter | None:
    """The game's prompt adapter, or None when it has none (`TurnGameEntry.llm`)."""
    return _resolve(entry.llm) if entry.llm else None


def table_prompts(game_id: str) -> TablePrompts:
    """The prompt adapter of the 2x2 game `game_id` (its entry's `llm`: a `TablePrompts`, the
    family's for an entry `matrix_entry` made); a ConfigError for a game without one."""
    entry = game_entry(game_id)
    if entry.table is None or not entry.llm:
        raise ConfigError(f"{game_id} has no 2x2 prompts for an LLM player", field="game")
    adapter: TablePrompts = _resolve(entry.llm)
    return adapter


@functools.cache
def game_mocks() -> tuple[GameMock, ...]:
    """How the offline mock plays each game that says (`TurnGameEntry.mock`), in the order it
    asks them: the turn games', each reading only its own prompts, then the 2x2 games' (one
    module for the family), which reads any prompt; imported once, when the mock first answers."""
    entries = [*TURN_GAMES.values(), *MATRIX_GAMES.values()]
    return tuple(_resolve(mock) for mock in dict.fromkeys(e.mock for e in entries if e.mock))


def role_mocks() -> tuple[Callable[[str], str | None], ...]:
    """How the offline mock plays each third role that says (`ThirdRole.mock`): each reads a
    prompt and answers it as that role, or says None (not its prompt)."""
    return tuple(_resolve(role.mock) for role in declared_roles().values() if role.mock)


def turn_game_entry(game_id: str) -> TurnGameEntry:
    if game_id not in TURN_GAMES:
        raise ConfigError(unknown_choice("game", game_id, TURN_GAMES), field="game.id")
    return TURN_GAMES[game_id]


def build_turn_game(game_id: str, **options: Any) -> TurnGame[Any]:
    """The rules of `game_id` (a turn game's, or a 2x2 game's on the turn contract) for the
    variant `options` name (the rules class's fields)."""
    return rules_class_of(game_id)(**options)


def rules_class_of(game_id: str) -> Callable[..., TurnGame[Any]]:
    """The class of `game_id`'s rules (its entry's `rules`), built with a variant's options."""
    return cast(Callable[..., TurnGame[Any]], _resolve(game_entry(game_id).rules))


def options_recorded_only_when_set(game_id: str) -> dict[str, Any]:
    """A turn game's options marked `base.RECORDED_ONLY_WHEN_SET`, with their defaults ({} for
    a game that has none, or is not a turn game)."""
    import dataclasses

    if game_id not in TURN_GAMES:
        return {}
    rules_class = _resolve(TURN_GAMES[game_id].rules)
    if not dataclasses.is_dataclass(rules_class):
        return {}
    return {
        f.name: f.default
        for f in dataclasses.fields(rules_class)
        if f.init and f.metadata.get(RECORDED_ONLY_WHEN_SET)
    }


def seats_played(game_id: str, rules: TurnGame[Any]) -> tuple[str, ...]:
    """The player seats a condition of `game_id` plays with these rules (its options): the
    rules' own `seats` when the number varies, else the game's fixed number."""
    seats = game_entry(game_id).seats
    if seats.maximum == seats.minimum:
        return player_seats(seats.default)
    count = len(getattr(rules, "seats", ()))
    if not seats.minimum <= count <= seats.maximum:
        raise ValueError(
            f"game.options.{seats.option}: {game_id} seats {seats.minimum} to {seats.maximum} "
            f"players in all, these options seat {count}"
        )
    return player_seats(count)


def seat_problem(game_id: str, agent: Any, rules: TurnGame[Any], seat: str) -> str | None:
    """What makes `agent` (an agent spec) unfit for `seat` of `game_id` played with `rules`, as
    "field: reason" within the agent, or None: the game's own check when its entry names one
    (`TurnGameEntry.seat_fit`), else the agent's `problem_in_turn_game`."""
    fit = game_entry(game_id).seat_fit
    if fit:
        problem: str | None = _resolve(fit)(agent, rules, seat)
        return problem
    return agent.problem_in_turn_game(game_id)


def turn_policies(game_id: str) -> dict[str, Callable[..., TurnPolicy]]:
    """The house policies of `game_id` (a turn game's, or a 2x2 game's), by name."""
    return _resolve(game_entry(game_id).policies)


def _add_plugin_games() -> None:
    """The games of installed plugins (entry point group `pdbench.games`, each a
    `TurnGameEntry` named by its id) joined to the built-ins. A plugin game whose entry is not
    an entry, is named otherwise, or takes a built-in game's id or name is left out and said in
    one line, as a plugin that fails to import is (`pdbench.core.plugins`)."""
    import sys

    from pdbench.core.plugins import FAILED, load_group

    built_in = {**MATRIX_GAMES, **TURN_GAMES}
    taken = {*built_in} | {e.platform_name for e in built_in.values()}
    for name, entry in load_group("pdbench.games").items():
        if built_in.get(name) is entry:
            continue  # a built-in declared as an entry point as well
        names = {getattr(entry, "id", None), getattr(entry, "platform_name", None)}
        if isinstance(entry, TurnGameEntry) and entry.id == name and not names & taken:
            # an entry with a 2x2 table (`games.matrix.matrix_entry`) is a 2x2 game
            (TURN_GAMES if entry.table is None else MATRIX_GAMES)[name] = entry
            taken |= {entry.id, entry.platform_name}
            continue
        line = (
            f"warning: plugin game {name} (pdbench.games) was not loaded: its entry point must "
            "be a pdbench.games.entry.TurnGameEntry whose id is the entry point's name and "
            "whose id and platform name no other game has"
        )
        FAILED.append(line)
        print(line, file=sys.stderr)


_add_plugin_games()

Family = Literal["matrix", "turn"]

# Every game id a config may name, with its family, from the entries. Both families play on the
# turn loop (`pdbench.runners.turns`), and nothing outside pdbench/games asks which a game is
# (tests/unit/test_layering.py): each question (how its matches are stored and read, whether the
# horizon sets their length, ...) is one its entry answers. The family is the `family` field of
# a stored line, and the 2x2 games' package (`games.matrix`) holds what they share.
GAME_FAMILIES: dict[str, Family] = {
    **{game_id: "matrix" for game_id in MATRIX_GAMES},
    **{game_id: "turn" for game_id in TURN_GAMES},
}


def game_ids() -> list[str]:
    """Every registered game's id, sorted (the 2x2 games', the turn games', the plugins'): the
    games a config may name and a file may train in, each by its entry."""
    return sorted(GAME_FAMILIES)


def game_id(name: str) -> str:
    """pdbench's id of a game a user names either way: its id (`liars_dice`, `pd`) or the
    platform's spelling an agent file's GAME uses (`liars-dice`, `prisoners-dilemma`), in any
    case. The one function that reads a game's name; a name that is neither is a ConfigError
    suggesting the id."""
    found = known_game_id(name)
    if found is not None:
        return found
    spellings = _spellings()
    close = difflib.get_close_matches(name.casefold(), list(spellings), n=1, cutoff=0.6)
    hint = f' (did you mean "{spellings[close[0]]}"?)' if close else ""
    raise ConfigError(
        f'unknown game "{name}"{hint}; choose one of: ' + ", ".join(game_ids()),
        field="game.id",
    )


def known_game_id(name: str) -> str | None:
    """`game_id`, or None for a name that is no game's."""
    return _spellings().get(name.casefold())


@functools.cache
def _spellings() -> dict[str, str]:
    """Every name of every game, casefolded -> its id."""
    names = {game: game for game in GAME_FAMILIES}
    names |= {entry.platform_name: game for game, entry in {**MATRIX_GAMES, **TURN_GAMES}.items()}
    return {name.casefold(): game for name, game in names.items()}


def default_ranked_on(game_id: str) -> Literal["wins", "payoff"]:
    """What the ladder ranks a game's agents on unless told otherwise (its entry's
    `ranked_on`)."""
    return game_entry(game_id).ranked_on


def game_encounters(game_id: str) -> Callable[..., Any] | None:
    """How `game_id`'s stored match splits into pairwise encounters (`TurnGameEntry.encounters`),
    None for a game whose players do not meet in pairs."""
    found = turn_game_entry(game_id).encounters
    return _resolve(found) if found else None


def turn_policy_games() -> dict[str, str]:
    """Every turn game's house policy and house third party, by name, with a game it plays
    (imports the policies; the debates share theirs, so one of them is named)."""
    return {name: game_id for game_id in TURN_GAMES for name in house_factories(game_id)}


def policy_houses(policy: str) -> tuple[str, ...]:
    """The games whose house players include `policy` (a policy agent's name): a turn game's
    own (the debates share theirs), or every 2x2 game's (the classic strategies, their entries'
    `policies`); the turn games first, in the registry's order. () for no house player."""
    # Each house read once (the 2x2 entries share one), its parts asked rather than merged as
    # `house_factories` does: a policy agent asks this each time a match's agent is made.
    houses: dict[str, Any] = {}
    found = []
    for game_id, entry in {**TURN_GAMES, **MATRIX_GAMES}.items():
        if entry.policies not in houses:
            houses[entry.policies] = _resolve(entry.policies)
        in_roles = any(policy in parties for parties in house_third_parties(game_id).values())
        if policy in houses[entry.policies] or in_roles:
            found.append(game_id)
    return tuple(found)


def house_factories(game_id: str) -> dict[str, Callable[..., TurnPolicy]]:
    """Every house player and house third party of `game_id`, by name (a policy agent's
    `policy` names one of them)."""
    factories = dict(turn_policies(game_id))
    for role_parties in house_third_parties(game_id).values():
        factories.update(role_parties)
    return factories


def default_third_parties(game_id: str) -> dict[str, str]:
    """Third role -> the house third party that plays it when a condition binds none."""
    return {role: next(iter(parties)) for role, parties in house_third_parties(game_id).items()}


def house_third_parties(game_id: str) -> dict[str, dict[str, Callable[..., TurnPolicy]]]:
    """The house third parties of `game_id`: role -> {name: factory} (empty: no third role)."""
    return {role.name: _resolve(role.house) for role in game_roles(game_id) if role.house}


def game_roles(game_id: str) -> tuple[ThirdRole, ...]:
    """Every third role `game_id` declares, played or audits, in the order they are bound;
    () for a game without one (a 2x2 game too)."""
    entry = TURN_GAMES.get(game_id)
    return entry.third_roles if entry is not None else ()


def third_roles(game_id: str) -> tuple[str, ...]:
    """The roles of `game_id` that play a seat besides the players (the Keeper, the judge)."""
    return tuple(role.name for role in game_roles(game_id) if role.played)


def role_measures(role: ThirdRole) -> Callable[[Any], dict[str, list[str]]]:
    """The function printing `role`'s own measures of a stored run (`ThirdRole.measures`)."""
    return _resolve(role.measures)


def declared_roles() -> dict[str, ThirdRole]:
    """Every third role some registered game declares, by name, in the order the games declare
    them: the fields a condition may bind. A role several games declare (the debates' judge) is
    declared the same way by each (`check_roles_agree`)."""
    roles: dict[str, ThirdRole] = {}
    for entry in TURN_GAMES.values():
        for role in entry.third_roles:
            roles.setdefault(role.name, role)
    return roles


def check_roles_agree() -> None:
    """Two games declaring a role by the same name declare it alike: the config has one field,
    one Hydra group and one way of storing it for the name."""
    roles = declared_roles()
    for entry in TURN_GAMES.values():
        for role in entry.third_roles:
            if role != roles[role.name]:
                raise ValueError(f"{entry.id} declares {role.name} otherwise than another game")
            if role.audits and role.audits not in third_roles(entry.id):
                raise ValueError(f"{entry.id}: {role.name} audits {role.audits}, not its role")


check_roles_agree()
