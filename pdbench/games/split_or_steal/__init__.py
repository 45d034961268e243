"""Split or steal (AgentDuel's split-or-steal, with its talk when a condition gives one) as one package (issue 43's game contract): its rules (`rules`: the 2x2 family's
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
    id="split_or_steal",
    arena_id="split-or-steal",
    description="Split or steal (AgentDuel rules): pot of 100, split 50/50, a lone stealer takes all",
    payoffs=PayoffMatrix(reward=50, sucker=0, temptation=100, punishment=0),
    cooperate_label="split",
    defect_label="steal",
    # P == S: a weak prisoner's dilemma, so the strict inequalities do not hold.
    is_prisoners_dilemma=False,
    pot=100,
    ranked_on="wins",  # an AgentDuel contest: the higher total wins the match, a tie is a draw
)

GAME = matrix_entry(
    TABLE,
    rules="pdbench.games.split_or_steal.rules:SplitOrSteal",
    summary="split or steal (AgentDuel): a pot split, or stolen by a lone stealer",
)
