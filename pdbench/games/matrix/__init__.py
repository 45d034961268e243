"""The family of the 2x2 matrix games (`pdbench.core.game.Game`: the dilemmas, split or steal) on the
one turn contract (`pdbench.games.base.TurnGame`, issue 43): what every 2x2 game shares, used
by each game's own package (`pdbench.games.pd`, `stag_hunt`, `chicken`, `battle_of_the_sexes`,
`split_or_steal`: its table, its rules class with that table, id and AgentDuel spelling, and its
entry), as the debate family serves the two debates.

- `rules`: `MatrixGame`, a round as a talk phase (when the game has a negotiation) and a
  simultaneous commit, the trembling hand drawn from the runner's noise streams; `state` its
  state; `observation` a seat's round_state and the 2x2 agents' `Observation` rebuilt from it.
- `house`: the classic strategies of `pdbench.strategies` as house players of the turn contract
  (from the round_state alone).
- `seat`: any 2x2 agent (policy, LLM, arena, a test's scripted talker) seated in the turn loop
  (`pdbench.runners.turns`): it is shown the `Observation` the match loop would show it.
- `metrics`: the metric rows every 2x2 game shares (the entries' `metrics`; the catalogue,
  `pdbench.analysis.metrics.catalog`, registers them through the entries).
- `prompts`: what a 2x2 game says to an LLM player and how its answer is read (the entries'
  `llm`, a `pdbench.games.prompt_adapter.TablePrompts`), in the words of `wording` (the
  payoff lines, the history in every format, totals, the conversation, the answer instruction).
- `mock`: how the offline mock plays a 2x2 game (the entries' `mock`, asked after every turn
  game's mock: it reads any prompt as a 2x2 prompt).
- `view`: the viewer's page of a 2x2 run (the entries' `view`: the whole run in its own sidebar
  and tabs, a `pdbench.ui.game_views.RunPage`).
- `outcomes`: the ladder's reader of a run's 2x2 matches (the entries' `outcomes`: every
  round checked against the table, numpy).
- `vectorised`: a condition of two policies without talk, all its matches at once in numpy (the
  entries' `vectorised`; the runner writes its lines, `runners.batch`).
- `fit`: what makes a condition's agent unfit for a 2x2 seat (the entries' `seat_fit`: checked
  on the table the seat is shown).
- `records`: how the runner seats a 2x2 match's agents (`seat`) and what it stores of the match
  (turn lines, its ledger entry, the columns aggregation reads).
- `stored`: a stored 2x2 match read back as rounds, the one projection from its turn lines
  (record version 2) to the round records every 2x2 reader reads (record version 1's lines).
- `matrix_entry` below: a 2x2 game's entry, from its table.

The runner plays a 2x2 match with these rules on the one turn loop, seated and stored as
`records` says (the entries' `records`),
stored as turn lines (`family` "matrix"), or a policy-only condition without talk on the
entries' vectorised path, whose lines `runners.batch` writes the same; the readers know them
by their entries (`aggregates` names the rounds' aggregation: `analysis.metrics.aggregation_choice`). `pdbench.games.tables` gathers the entries'
tables (the 2x2 catalogue: `GAMES`, `get_game`, `DEFAULT_GAME`); the classic strategies and
their checker, which import nothing of pdbench.games, are given a game by their caller.
"""

from __future__ import annotations

from pdbench.core.game import Game
from pdbench.games.entry import TurnGameEntry


def matrix_entry(table: Game, *, rules: str, summary: str) -> TurnGameEntry:
    """The entry of the 2x2 game whose table is `table`: its `rules` class ("module:Class"), its
    id, AgentDuel spelling and what the ladder ranks on from the table, and the family's parts:
    its house players, metric rows, LLM prompts, the ladder's reader, its aggregation, the mock's
    play, the viewer's page and the vectorised path."""
    return TurnGameEntry(
        id=table.id,
        platform_name=table.arena_id,
        rules=rules,
        policies="pdbench.games.matrix.house:CLASSIC_PLAYERS",
        summary=summary,
        ranked_on=table.ranked_on,
        # the rows every 2x2 game shares (registered for the family, `Metric.game` "")
        metrics="pdbench.games.matrix.metrics",
        # the viewer's page of a 2x2 run (a `ui.game_views.RunPage`: the whole run, its tabs)
        view="pdbench.games.matrix.view",
        # what a 2x2 game says to an LLM player and how its answer is read (a `TablePrompts`,
        # filling the agent's own templates)
        llm="pdbench.games.matrix.prompts:PROMPTS",
        # how the ladder reads a run's 2x2 matches (their rounds checked against the table)
        outcomes="pdbench.games.matrix.outcomes:matrix_outcomes",
        # aggregates.parquet of a 2x2 run: the family's rows over every round at once (numpy)
        aggregates="pdbench.analysis.metrics.round_aggregates:aggregate_rounds",
        # how the offline mock plays a 2x2 game (asked after the turn games' mocks)
        mock="pdbench.games.matrix.mock:play",
        # `pdbench train`'s default opponent of a 2x2 file
        training_opponents=("tft",),
        # a match lasts the rounds its condition's horizon draws (`MatrixGame.rounds`)
        horizon_sets_length=True,
        # a condition of two policies without talk, all its matches at once in numpy
        vectorised="pdbench.games.matrix.vectorised",
        # the condition's table changes and noise build its rules, for the horizon's length
        settings=("table", "noise"),
        called=f"the 2x2 game {table.id}",
        # a seat's agent is checked on the table the seat is shown
        seat_fit="pdbench.games.matrix.fit:seat_problem",
        # how the runner seats a 2x2 match's agents and stores what they played
        records="pdbench.games.matrix.records:RECORDS",
        table=table,
    )
