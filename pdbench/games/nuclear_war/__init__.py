"""Nuclear War (AgentDuel's nuclear-war): two advisers argue for and against a strike before a
judged president, as one package (issue 43's game contract). The debate itself is the family's
(`pdbench.games.debate.rules`); this package holds the game's rules (`rules`: scenarios, sides,
choices) and its viewer page (`view`). Registered in `pdbench.games.registry`.
"""
