"""Group options that have no file in conf/: the games installed plugins add (entry point group
`pdbench.games`) and their house players. A built-in game has conf/game/<id>.yaml and a file in
conf/agent/ for each house player; a plugin's game has neither (pdbench's conf/ is not the
plugin's to write), so each is an option here instead, made from its registry entry:

- `game=<id>` of a turn game is `{id: <id>, options: {...}}`, the options being the rules' fields
  with their defaults (so `game.options.rounds=3` overrides a field that is there, as in a
  built-in's file); of a 2x2 game (an entry with a table) it is `{id: <id>, payoffs: null,
  labels: null, check_pd: null, noise: 0.0}`, the keys conf/game/pd.yaml lists, each null
  meaning the table's own (so `game.noise=0.05` or `game.labels=[J,F]` override them);
- `agent_a=<house player>` (any seat, and `agent` in an experiment file) is
  `{type: policy, policy: <name>}`.

A file in conf/ wins over an option made here (a project may write its own conf/game/<id>.yaml
for a plugin game, with a comment and its own defaults). The Hydra door finds these options in
Hydra's ConfigStore (`store_installed_options`), which every composition searches as well as
conf/; experiment files and the checks of a command line's choices ask `installed_options`.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pdbench.config.schema import SEAT_FIELDS
from pdbench.games.registry import MATRIX_GAMES, TURN_GAMES, turn_policies

# The groups an agent is chosen from: conf/agent/ in experiment files, a seat on the Hydra door.
AGENT_GROUPS = ("agent", *SEAT_FIELDS)
# A 2x2 game's settings, as a built-in's conf file lists them: null keeps the table's own.
MATRIX_SETTINGS: dict[str, Any] = {"payoffs": None, "labels": None, "check_pd": None, "noise": 0.0}


def installed_options(group: str, conf: Path) -> dict[str, dict[str, Any]]:
    """Option name -> config node, for the options of `group` made from installed games (none
    where conf/<group>/ has a file of that name)."""
    if group == "game":
        made = {
            game_id: {"id": game_id, "options": _default_options(game_id)}
            for game_id in _games_without_file(conf, TURN_GAMES)
        } | {
            game_id: {**MATRIX_SETTINGS, "id": game_id}
            for game_id in _games_without_file(conf, MATRIX_GAMES)
        }
    elif group in AGENT_GROUPS:
        # a 2x2 game's house players are the classic strategies, each a file in conf/agent/
        made = {
            name: {"type": "policy", "policy": name}
            for game_id in _games_without_file(conf, TURN_GAMES)
            for name in turn_policies(game_id)
        }
    else:
        return {}
    folder = conf / ("agent" if group in AGENT_GROUPS else group)
    return {name: node for name, node in made.items() if not (folder / f"{name}.yaml").is_file()}


def _games_without_file(conf: Path, games: Mapping[str, object]) -> list[str]:
    return [game_id for game_id in games if not (conf / "game" / f"{game_id}.yaml").is_file()]


def _default_options(game_id: str) -> dict[str, Any]:
    """The rules class's fields and their defaults, as a game's conf file lists them (a field
    without a plain default is left out: the rules take their own)."""
    import dataclasses

    from pdbench.games.registry import _resolve, turn_game_entry

    rules_class = _resolve(turn_game_entry(game_id).rules)
    plain = (str, int, float, bool, tuple, type(None))
    return {
        field.name: list(field.default) if isinstance(field.default, tuple) else field.default
        for field in dataclasses.fields(rules_class)
        if field.init and isinstance(field.default, plain)
    }


def store_installed_options(conf: Path) -> None:
    """Put every installed option in Hydra's ConfigStore, under the groups the Hydra door
    composes (`game`, and each seat's group): `game=odds_and_evens agent_a=oe_random` then
    composes as a built-in game's choices do. Done once per conf folder and process."""
    _store(conf.resolve())


@functools.cache
def _store(conf: Path) -> None:
    from hydra.core.config_store import ConfigStore

    store = ConfigStore.instance()
    for group in ("game", *SEAT_FIELDS):
        for name, node in installed_options(group, conf).items():
            store.store(group=group, name=name, node=node)
