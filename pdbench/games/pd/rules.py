"""The rules of the prisoner's dilemma: the 2x2 family's rules with this game's table (payoffs,
labels, a negotiation when a condition gives one), its id and its AgentDuel spelling."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from pdbench.core.game import Game
from pdbench.games.matrix.rules import MatrixGame
from pdbench.games.pd import TABLE


@dataclass(frozen=True)
class PrisonersDilemma(MatrixGame):
    id: ClassVar[str] = TABLE.id
    platform_name: ClassVar[str] = TABLE.arena_id
    game: Game = TABLE
