"""Nuclear War (AgentDuel's nuclear-war): two advisers argue for and against a strike before a
judged president, as one package (issue 43's game contract). The debate itself is the family's
(`pdbench.games.debate.rules`); this package holds the game's rules (`rules`: scenarios, sides,
choices) and its viewer page (`view`). `GAME` below names each of these parts; `pdbench.games.registry` lists it with the other
built-in games.
"""

from __future__ import annotations

from pdbench.games.debate import JUDGE
from pdbench.games.entry import TurnGameEntry

GAME = TurnGameEntry(
    id="nuclear_war",
    llm="pdbench.games.judged_prompts:PROMPTS",
    view="pdbench.games.nuclear_war.view",
    platform_name="nuclear-war",
    rules="pdbench.games.nuclear_war.rules:NuclearWar",
    policies="pdbench.games.debate.policies:DEBATE_POLICIES",
    summary="argue for or against a nuclear strike; a President decides",
    metrics="pdbench.games.debate.aggregates",
    third_roles=(JUDGE,),
    training_opponents=("debate_fixed",),
)
