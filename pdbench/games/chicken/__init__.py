"""Chicken (hawk-dove) as one package (issue 43's game contract): its rules (`rules`: the 2x2 family's
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
    id="chicken",
    arena_id="chicken",
    description="Chicken (hawk-dove): mutual defection is the worst outcome (T=5 > R=3 > S=1 > P=0)",
    payoffs=PayoffMatrix(reward=3, sucker=1, temptation=5, punishment=0),
    cooperate_label="swerve",
    defect_label="straight",
    is_prisoners_dilemma=False,
)

GAME = matrix_entry(
    TABLE,
    rules="pdbench.games.chicken.rules:Chicken",
    summary="chicken (hawk-dove), repeated: mutual defection is the worst outcome",
)
