"""Split or steal (AgentDuel's split-or-steal, with its talk when a condition gives one) as one package (issue 43's game contract): its rules (`rules`: the 2x2 family's
`pdbench.games.matrix.rules.MatrixGame` with this game's table, `pdbench.core.game`'s) and its
entry. Everything else is the family's (`pdbench.games.matrix`: house players, the seat of a 2x2
agent, the round_state). `GAME` below is listed by `pdbench.games.registry`.
"""

from __future__ import annotations

from pdbench.games.matrix import matrix_entry

GAME = matrix_entry(
    "split_or_steal",
    rules="pdbench.games.split_or_steal.rules:SplitOrSteal",
    summary="split or steal (AgentDuel): a pot split, or stolen by a lone stealer",
)
