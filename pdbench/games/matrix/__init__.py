"""The 2x2 matrix games (`pdbench.core.game`: the dilemmas, split or steal) on the one turn
contract (`pdbench.games.base.TurnGame`, issue 43), the same rounds the match loop
(`pdbench.runners.match`) and its numpy fast path (`pdbench.runners.batch`) play.

- `rules`: `MatrixGame`, a round as a talk phase (when the game has a negotiation) and a
  simultaneous commit, the trembling hand drawn from the runner's noise streams; `state` its
  state; `observation` a seat's round_state and the 2x2 agents' `Observation` rebuilt from it;
  `presets` the rules of each built-in game (its table, id and AgentDuel spelling).
- `house`: the classic strategies of `pdbench.strategies` as house players of the turn contract
  (from the round_state alone).
- `seat`: any 2x2 agent (policy, LLM, arena, a test's scripted talker) seated in the turn loop
  (`pdbench.runners.turns`): it is shown the `Observation` the match loop would show it.

One family package, one `GAME` entry per built-in 2x2 game (`GAMES` below), rather than a
package per game: everything of a 2x2 game but its table (payoffs, labels, AgentDuel name,
what the ladder ranks on: `core.game.Game`, shared with the classic strategies, which may not
import pdbench.games) is the same code for all five, so a new 2x2 game is a table and one line
here. A game gets a package of its own when it gains parts of its own.

The runner plays a 2x2 match with these rules on the one turn loop (`runners.matrix_run`),
stored as the 2x2 match loop stored it (today's rounds.jsonl lines), or a policy-only condition
without talk on the numpy batch path (`runners.batch`); `registry.GAME_FAMILIES` says "matrix"
for the record shape and the analyses that read it. What the entries do not name yet, and why:
the LLM players' prompts (`agents.llm.prompts` builds a 2x2 prompt from the `Observation`,
which `seat` rebuilds, not through a `PromptAdapter`), the mock's play (the mock provider
plays the 2x2 games with its own code), the metric rows (registered by `pdbench.analysis` for
every 2x2 run) and the viewer's page (`ui.tabs.match`): each moves here with the one record
shape.
"""

from __future__ import annotations

from pdbench.core.game import GAMES as TABLES
from pdbench.games.entry import TurnGameEntry

_SUMMARIES = {
    "pd": "the prisoner's dilemma, repeated",
    "stag_hunt": "the stag hunt, repeated: cooperation pays only if both hunt the stag",
    "chicken": "chicken (hawk-dove), repeated: mutual defection is the worst outcome",
    "battle_of_the_sexes": "the battle of the sexes, repeated: match, each preferring its own",
    "split_or_steal": "split or steal (AgentDuel): a pot split, or stolen by a lone stealer",
}
_RULES = {
    "pd": "PrisonersDilemma",
    "stag_hunt": "StagHunt",
    "chicken": "Chicken",
    "battle_of_the_sexes": "BattleOfTheSexes",
    "split_or_steal": "SplitOrSteal",
}


def _entry(game_id: str) -> TurnGameEntry:
    table = TABLES[game_id]
    return TurnGameEntry(
        id=game_id,
        platform_name=table.arena_id,
        rules=f"pdbench.games.matrix.presets:{_RULES[game_id]}",
        policies="pdbench.games.matrix.house:CLASSIC_PLAYERS",
        summary=_SUMMARIES[game_id],
        ranked_on=table.ranked_on,
        # `pdbench train`'s default opponent of a 2x2 file
        training_opponents=("tft",),
    )


GAMES: tuple[TurnGameEntry, ...] = tuple(_entry(game_id) for game_id in TABLES)
