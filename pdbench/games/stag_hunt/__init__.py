"""The stag hunt as one package (issue 43's game contract): its rules (`rules`: the 2x2 family's
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
    id="stag_hunt",
    arena_id="stag-hunt",
    description="Stag hunt: cooperation pays most but only if both hunt the stag (R=4 > T=3 >= P=2 > S=0)",
    payoffs=PayoffMatrix(reward=4, sucker=0, temptation=3, punishment=2),
    cooperate_label="stag",
    defect_label="hare",
    is_prisoners_dilemma=False,
)

GAME = matrix_entry(
    TABLE,
    rules="pdbench.games.stag_hunt.rules:StagHunt",
    summary="the stag hunt, repeated: cooperation pays only if both hunt the stag",
)
