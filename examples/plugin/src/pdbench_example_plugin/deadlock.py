"""Deadlock, a 2x2 game added by a plugin (issue 43): a table and its rules, the whole of what a
matrix game needs (`pdbench.games.matrix.matrix_entry` gives it the family's house players, the
classic strategies, its seat for LLM and agent-file players, and its round_state).

In deadlock mutual defection pays each player more than mutual cooperation (D,D > C,C), so
defecting is dominant and, unlike the prisoner's dilemma, nothing is lost by it: there is no
dilemma. The numbers are the example matrix of Wikipedia's "Deadlock (game theory)" article:
(C,C) = 1,1; (C,D) = 0,3; (D,C) = 3,0; (D,D) = 2,2. Its id is `deadlock` (`game=deadlock`), its
AgentDuel spelling `deadlock`; the entry is declared in this package's pyproject.toml.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from pdbench.core.game import Game
from pdbench.core.payoff import PayoffMatrix
from pdbench.games.matrix import matrix_entry
from pdbench.games.matrix.rules import MatrixGame

TABLE = Game(
    id="deadlock",
    arena_id="deadlock",
    description="Deadlock: T=3 > P=2 > R=1 > S=0 (defecting is dominant and pays both)",
    payoffs=PayoffMatrix(reward=1, sucker=0, temptation=3, punishment=2),
    is_prisoners_dilemma=False,  # P > R: not a dilemma, so pdbench's check would refuse it
)


@dataclass(frozen=True)
class Deadlock(MatrixGame):
    id: ClassVar[str] = TABLE.id
    platform_name: ClassVar[str] = TABLE.arena_id
    game: Game = TABLE


GAME = matrix_entry(
    TABLE,
    rules="pdbench_example_plugin.deadlock:Deadlock",
    summary="deadlock: a 2x2 game where defecting pays both (a plugin's example)",
)
