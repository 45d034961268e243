"""Liar's Dice for two players (AgentDuel's liars-dice), as one package: everything that is this
game's (issue 43's game contract).

- `rules`: the rules as pure functions of (state, action) with seeded dice; `game` the
  `LiarsDice` turn game built on them (what each seat observes, when a match ends).
- `policies`: the house players (`LIARS_DICE_POLICIES`); `odds` the bid probabilities they and
  the measures use.
- `metrics`: the per-player measures, from the stored turns; `audit` the tallies that check a
  match's showdowns from its stored dice.
- `transcript` and `view`: the viewer's page of a match (as the players saw it, turn by turn).
- `prompts` and `mock`: its LLM players' prompt adapter (the placeholders of
  prompts/liars_dice/turn.md, the strict answer, the legal answers for a grammar) and the offline
  mock's play.

`GAME` below names each of these parts; `pdbench.games.registry` lists it with the other
built-in games.
"""

from __future__ import annotations

from pdbench.games.entry import TurnGameEntry

GAME = TurnGameEntry(
    id="liars_dice",
    view="pdbench.games.liars_dice.view",
    platform_name="liars-dice",
    rules="pdbench.games.liars_dice.game:LiarsDice",
    policies="pdbench.games.liars_dice.policies:LIARS_DICE_POLICIES",
    summary="bid on all dice or challenge; the loser of a challenge loses a die",
    metrics="pdbench.games.liars_dice.metrics",
    default_persona="cooperative",
    llm="pdbench.games.liars_dice.prompts:PROMPTS",
    mock="pdbench.games.liars_dice.mock:play",
    training_opponents=("liars_probability",),
)
