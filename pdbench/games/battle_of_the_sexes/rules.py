"""The rules of the battle of the sexes: the 2x2 family's rules with this game's table (payoffs,
labels, a negotiation when a condition gives one), its id and its AgentDuel spelling."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from pdbench.core.game import Game
from pdbench.games.battle_of_the_sexes import TABLE
from pdbench.games.matrix.rules import MatrixGame


@dataclass(frozen=True)
class BattleOfTheSexes(MatrixGame):
    id: ClassVar[str] = TABLE.id
    platform_name: ClassVar[str] = TABLE.arena_id
    game: Game = TABLE
