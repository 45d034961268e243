"""The stag hunt as one package (issue 43's game contract): its rules (`rules`: the 2x2 family's
`pdbench.games.matrix.rules.MatrixGame` with this game's table, `pdbench.core.game`'s) and its
entry. Everything else is the family's (`pdbench.games.matrix`: house players, the seat of a 2x2
agent, the round_state). `GAME` below is listed by `pdbench.games.registry`.
"""

from __future__ import annotations

from pdbench.games.matrix import matrix_entry

GAME = matrix_entry(
    "stag_hunt",
    rules="pdbench.games.stag_hunt.rules:StagHunt",
    summary="the stag hunt, repeated: cooperation pays only if both hunt the stag",
)
