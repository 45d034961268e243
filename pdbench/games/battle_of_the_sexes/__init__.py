"""The battle of the sexes as one package (issue 43's game contract): its rules (`rules`: the 2x2 family's
`pdbench.games.matrix.rules.MatrixGame` with this game's table, `pdbench.core.game`'s) and its
entry. Everything else is the family's (`pdbench.games.matrix`: house players, the seat of a 2x2
agent, the round_state). `GAME` below is listed by `pdbench.games.registry`.
"""

from __future__ import annotations

from pdbench.games.matrix import matrix_entry

GAME = matrix_entry(
    "battle_of_the_sexes",
    rules="pdbench.games.battle_of_the_sexes.rules:BattleOfTheSexes",
    summary="the battle of the sexes, repeated: match, each preferring its own",
)
