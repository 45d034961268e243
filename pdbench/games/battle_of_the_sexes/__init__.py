"""The battle of the sexes as one package (issue 43's game contract): its rules (`rules`: the 2x2 family's
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
    id="battle_of_the_sexes",
    arena_id="battle-of-the-sexes",
    description="Battle of the sexes (Akata et al. 2025's payoffs): both gain by matching, but "
    "agent a prefers J/J (10/7) and agent b F/F (7/10); a mismatch pays 0/0",
    payoffs=PayoffMatrix.from_outcomes((10, 7), (0, 0), (0, 0), (7, 10)),
    cooperate_label="J",
    defect_label="F",
    # A coordination game: "C" is only the first action, cooperation has no meaning here.
    is_prisoners_dilemma=False,
)

GAME = matrix_entry(
    TABLE,
    rules="pdbench.games.battle_of_the_sexes.rules:BattleOfTheSexes",
    summary="the battle of the sexes, repeated: match, each preferring its own",
)
