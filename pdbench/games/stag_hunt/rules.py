"""The rules of the stag hunt: the 2x2 family's rules with this game's table (payoffs,
labels, a negotiation when a condition gives one), its id and its AgentDuel spelling."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from pdbench.core.game import Game
from pdbench.games.matrix.rules import MatrixGame
from pdbench.games.stag_hunt import TABLE


@dataclass(frozen=True)
class StagHunt(MatrixGame):
    id: ClassVar[str] = TABLE.id
    platform_name: ClassVar[str] = TABLE.arena_id
    game: Game = TABLE
