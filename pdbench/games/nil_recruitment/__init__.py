"""NIL Recruitment (AgentDuel's nil-recruitment): two universities pitch to a judged athlete, as
one package (issue 43's game contract). The debate itself is the family's
(`pdbench.games.debate.rules`); this package holds the game's rules (`rules`: scenarios, universities)
and its viewer page (`view`). Registered in `pdbench.games.registry`.
"""
