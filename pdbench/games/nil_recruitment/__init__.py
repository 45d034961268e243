"""NIL Recruitment (AgentDuel's nil-recruitment): two universities pitch to a judged athlete, as
one package (issue 43's game contract). The debate itself is the family's
(`pdbench.games.debate.rules`); this package holds the game's rules (`rules`: scenarios, universities)
and its viewer page (`view`). `GAME` below names each of these parts; `pdbench.games.registry` lists it with the other
built-in games.
"""

from __future__ import annotations

from pdbench.games.debate import JUDGE
from pdbench.games.entry import TurnGameEntry

GAME = TurnGameEntry(
    id="nil_recruitment",
    llm="pdbench.games.judged_prompts:PROMPTS",
    view="pdbench.games.nil_recruitment.view",
    platform_name="nil-recruitment",
    rules="pdbench.games.nil_recruitment.rules:NilRecruitment",
    policies="pdbench.games.debate.policies:DEBATE_POLICIES",
    summary="pitch a university to a football recruit, who commits to one",
    metrics="pdbench.games.debate.aggregates",
    third_roles=(JUDGE,),
    training_opponents=("debate_fixed",),
)
