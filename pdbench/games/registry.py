"""Every turn-based game pdbench plays: one row each, naming where its parts live.

The modules are imported only when a game is played (entry points, as for agent kinds and
providers), so listing the games costs nothing. Adding a game is its rules module (a
`pdbench.games.base.TurnGame`), its house policies, one row here, a `conf/game/<id>.yaml`, and its
tests (tests/unit/test_turn_games.py runs every registered game through the contract).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pdbench.core.errors import ConfigError, unknown_choice
from pdbench.games.base import TurnGame, TurnPolicy


@dataclass(frozen=True)
class TurnGameEntry:
    id: str  # pdbench's id: conf/game/<id>.yaml, `game.id`
    platform_name: str  # AgentDuel's spelling: an agent file's GAME, round_state["game"]
    rules: str  # "module:Class": the TurnGame, built with the condition's game options
    policies: str  # "module:NAME": a dict, policy name -> factory taking the policy's parameters
    summary: str  # one line for listings and errors
    # "module:NAME": a dict, third role -> {house third party's name: factory}; "" when the game
    # has no third role. The first name of each role is its default.
    third_parties: str = ""


TURN_GAMES: dict[str, TurnGameEntry] = {
    entry.id: entry
    for entry in (
        TurnGameEntry(
            id="liars_dice",
            platform_name="liars-dice",
            rules="pdbench.games.liars_dice:LiarsDice",
            policies="pdbench.games.liars_dice_policies:LIARS_DICE_POLICIES",
            summary="bid on all dice or challenge; the loser of a challenge loses a die",
        ),
        TurnGameEntry(
            id="passcode",
            platform_name="passcode",
            rules="pdbench.games.passcode:Passcode",
            policies="pdbench.games.passcode_policies:PASSCODE_POLICIES",
            summary="ask a Secret Keeper questions, then guess its word before the other player",
            third_parties="pdbench.games.passcode_policies:PASSCODE_THIRD_PARTIES",
        ),
        TurnGameEntry(
            id="nuclear_war",
            platform_name="nuclear-war",
            rules="pdbench.games.nuclear_war:NuclearWar",
            policies="pdbench.games.debate_policies:DEBATE_POLICIES",
            summary="argue for or against a nuclear strike; a President decides",
            third_parties="pdbench.games.debate_policies:DEBATE_THIRD_PARTIES",
        ),
        TurnGameEntry(
            id="nil_recruitment",
            platform_name="nil-recruitment",
            rules="pdbench.games.nil_recruitment:NilRecruitment",
            policies="pdbench.games.debate_policies:DEBATE_POLICIES",
            summary="pitch a university to a football recruit, who commits to one",
            third_parties="pdbench.games.debate_policies:DEBATE_THIRD_PARTIES",
        ),
    )
}


def _resolve(entry_point: str) -> Any:
    module, _, attribute = entry_point.partition(":")
    return getattr(importlib.import_module(module), attribute)


def turn_game_entry(game_id: str) -> TurnGameEntry:
    if game_id not in TURN_GAMES:
        raise ConfigError(unknown_choice("game", game_id, TURN_GAMES), field="game.id")
    return TURN_GAMES[game_id]


def build_turn_game(game_id: str, **options: Any) -> TurnGame[Any]:
    """The rules of `game_id` for the variant `options` name (the rules class's fields)."""
    rules_class = _resolve(turn_game_entry(game_id).rules)
    return rules_class(**options)


def turn_policies(game_id: str) -> dict[str, Callable[..., TurnPolicy]]:
    """The house policies of `game_id`, by name."""
    return _resolve(turn_game_entry(game_id).policies)


def house_third_parties(game_id: str) -> dict[str, dict[str, Callable[..., TurnPolicy]]]:
    """The house third parties of `game_id`: role -> {name: factory} (empty: no third role)."""
    entry = turn_game_entry(game_id)
    return _resolve(entry.third_parties) if entry.third_parties else {}
