"""The prisoner's dilemma as one package (issue 43's game contract): its rules (`rules`: the 2x2 family's
`pdbench.games.matrix.rules.MatrixGame` with this game's table), its table (`TABLE`) and its
entry. Everything else is the family's (`pdbench.games.matrix`: house players, the seat of a 2x2
agent, the round_state). `GAME` below is listed by `pdbench.games.registry`.
"""

from __future__ import annotations

from pdbench.core.game import Game
from pdbench.core.payoff import PayoffMatrix
from pdbench.games.matrix import matrix_entry

# The game's table: payoffs, the words its players see, what the ladder ranks on
TABLE = Game(
    id="pd",
    arena_id="prisoners-dilemma",
    description="Prisoner's dilemma: T=5 > R=3 > P=1 > S=0",
    payoffs=PayoffMatrix(reward=3, sucker=0, temptation=5, punishment=1),
)

GAME = matrix_entry(
    TABLE,
    rules="pdbench.games.pd.rules:PrisonersDilemma",
    summary="the prisoner's dilemma, repeated",
)
