"""The rules of each built-in 2x2 game: `MatrixGame` with the game's own table as its default
`game` and its id and AgentDuel spelling, so that `registry.build_turn_game(id)` gives a preset's
rules and `pdbench check-game pd` checks them. The tables themselves are `pdbench.core.game`'s,
the one definition the classic strategies (which import nothing of pdbench.games) read too."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from pdbench.core.game import GAMES, Game
from pdbench.games.matrix.rules import MatrixGame


@dataclass(frozen=True)
class PrisonersDilemma(MatrixGame):
    id: ClassVar[str] = "pd"
    platform_name: ClassVar[str] = "prisoners-dilemma"
    game: Game = GAMES["pd"]


@dataclass(frozen=True)
class StagHunt(MatrixGame):
    id: ClassVar[str] = "stag_hunt"
    platform_name: ClassVar[str] = "stag-hunt"
    game: Game = GAMES["stag_hunt"]


@dataclass(frozen=True)
class Chicken(MatrixGame):
    id: ClassVar[str] = "chicken"
    platform_name: ClassVar[str] = "chicken"
    game: Game = GAMES["chicken"]


@dataclass(frozen=True)
class BattleOfTheSexes(MatrixGame):
    id: ClassVar[str] = "battle_of_the_sexes"
    platform_name: ClassVar[str] = "battle-of-the-sexes"
    game: Game = GAMES["battle_of_the_sexes"]


@dataclass(frozen=True)
class SplitOrSteal(MatrixGame):
    id: ClassVar[str] = "split_or_steal"
    platform_name: ClassVar[str] = "split-or-steal"
    game: Game = GAMES["split_or_steal"]


PRESETS: tuple[type[MatrixGame], ...] = (
    PrisonersDilemma,
    StagHunt,
    Chicken,
    BattleOfTheSexes,
    SplitOrSteal,
)
