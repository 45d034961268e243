"""What a game is, as data: `TurnGameEntry`, the one registration shape of a turn game (its
parts named lazily as "module:attribute" strings, so listing games imports nothing heavy), and
`Seats`. A game outside pdbench (a plugin) builds its entry from this module and declares it in
its package's entry points (group `pdbench.games`, docs/extending.md); pdbench's own games are
the rows of `pdbench.games.registry`. This module imports no game, so a plugin's module can
import it while the registry loads plugins.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pdbench.core.game import Game
from pdbench.games.base import MAX_SEATS
from pdbench.games.roles import ThirdRole


@dataclass(frozen=True)
class Seats:
    """How many player seats ("a", "b", "c", ...; `base.player_seats`) a game may have, at most
    `base.MAX_SEATS`; a condition binds each seat it plays to an agent (`agent_a` .. `agent_j`
    one by one, or all of them by a `population`). A game whose number varies
    says it through its rules' `seats` (public goods: `players` x `groups`, its options), and
    `option` names the option a user sets it with, for messages."""

    default: int = 2
    minimum: int = 2
    maximum: int = 2
    option: str = ""  # the game option setting the number ("": always `default`)

    def __post_init__(self) -> None:
        if not 1 <= self.minimum <= self.default <= self.maximum <= MAX_SEATS:
            raise ValueError(
                f"seats must hold 1 <= minimum <= default <= maximum <= {MAX_SEATS}: {self}"
            )
        if self.maximum > self.minimum and not self.option:
            raise ValueError("a game whose number of seats varies names the option setting it")


@dataclass(frozen=True)
class TurnGameEntry:
    id: str  # pdbench's id: conf/game/<id>.yaml, `game.id`
    platform_name: str  # AgentDuel's spelling: an agent file's GAME, round_state["game"]
    rules: str  # "module:Class": the TurnGame, built with the condition's game options
    policies: str  # "module:NAME": a dict, policy name -> factory taking the policy's parameters
    summary: str  # one line for listings and errors
    # "module" declaring the game's metrics, rows of the one metric registry registered when it
    # is imported (`pdbench.games.metric_rows`): each stored per player seat ("": none). The 2x2
    # games' entries name one module for the family (`pdbench.games.matrix.metrics`), whose rows
    # are registered for every 2x2 game at once (`Metric.game` ""), per side of the pair, and
    # measure the matches' rounds together (the catalogue, `analysis.metrics.catalog`).
    metrics: str = ""
    # "module:function" splitting a stored match into pairwise encounters (turn lines, options)
    # -> [`pdbench.games.encounters.Encounter`], for a population run's tournament analysis;
    # "": the game's players do not meet in pairs
    encounters: str = ""
    # The game's roles besides its players (`pdbench.games.roles`), in the order their seats
    # are bound; () when it has none.
    third_roles: tuple[ThirdRole, ...] = ()
    # The persona an LLM player gets when the command line names none (a file in
    # prompts/<id>/personas/); None: the game has no personas (the judged games' prompts
    # describe the player's side themselves).
    default_persona: str | None = None
    # What `pdbench ladder` ranks this game's agents on by default: the AgentDuel contests are
    # won or lost (a match pays the winner), so "wins"; "payoff" ranks on the score earned.
    ranked_on: Literal["wins", "payoff"] = "wins"
    seats: Seats = Seats()
    # "module:function" reading the ladder's outcomes of a run's matches of this game, checked
    # (`pdbench.ladder.readers`: `function(run_dir, condition names)` -> `ladder.outcomes.Outcomes`);
    # "": the default, its stored turn lines replayed through the rules
    # (`pdbench.ladder.replay_reader`), which reads any game on the turn contract. The 2x2 games
    # name their family's reader (`pdbench.games.matrix.outcomes`: every round's payoffs checked
    # against the table at once per match, numpy).
    outcomes: str = ""
    # "module:function" computing aggregates.parquet of a run of this game
    # (`pdbench.analysis.metrics.aggregation_choice.aggregation_of`: `function(run_dir, manifest,
    # ledger, matches held in memory or None)` -> the table); "": the default, the game's metric
    # rows measuring each stored match replayed through its rules
    # (`pdbench.analysis.metrics.turn_aggregates.aggregate_turns`). The 2x2 games name the
    # rounds' aggregation (`aggregation_choice.ROUNDS_AGGREGATION`: their rows over every round
    # at once, numpy), which also says their stored lines are read as rounds, by every reader
    # (`aggregation_choice.reads_rounds_of`); any other game's are read as turn lines.
    aggregates: str = ""
    # "module" of the game's page in the viewer (a `pdbench.ui.game_views.GameView`: its
    # measures and a match's transcript), imported only when a run of the game is opened; ""
    # when the game has no page yet (the viewer says so and shows the other tabs). A module
    # with `render_run(run)` (a `ui.game_views.RunPage`) shows the whole run in its own sidebar
    # and tabs instead: the 2x2 games' page (`pdbench.games.matrix.view`).
    view: str = ""
    # The house agents (conf/agent/ names) `pdbench train` seats against a user's file when
    # --against names none: seat b gets the first, seat c the second, ..., cycling through them
    # for the seats the game has. A judged game's third party is its house default, not here.
    training_opponents: tuple[str, ...] = ()
    # The game option setting how many rounds a match has ("": the rules end a match, as a die
    # count or a verdict does), so `train --rounds` and a header's length ask the game.
    rounds_option: str = ""
    # Whether the condition's horizon (fixed or geometric) sets how many rounds a match has:
    # the plan draws each match's length and builds its rules with it (the 2x2 games'
    # `MatrixGame.rounds`, whose `fixed_length()` says it), so the length is known before play
    # (`train --rounds` sets `horizon.rounds`, the price estimate counts the prompts), the
    # rules are built for each length drawn (given `rounds` and `rounds_shown`), and
    # game.max_turns does not cap it. False: the rules end a match (at most game.max_turns
    # turns); the horizon does not apply.
    horizon_sets_length: bool = False
    # The module playing a condition of house players only for many matches at once, numpy over
    # the matches ("" : none, the turn loop plays every match). Each seat's player is its
    # agent spec's `batch_player(rules, seat)` (a condition with any seat without one, or with a
    # third role, plays the turn loop). `problem(rules, players, max_turns)` says why the
    # module cannot play the condition (None: it can); then either
    # - `play(rules, players, game_seeds, agent_seeds)` plays one rules object's matches into
    #   their turns (a list per match of turns with `round`, `phase`, `actions`, `digests`,
    #   `revealed`; and `scores`), raising its `Unplayable` when it finds it cannot after all,
    #   and the runner stores them as the turn loop would (`runners.turn_batch`); or
    # - `play_arrays(matches, players)` plays matches that each have their own rules (the 2x2
    #   games', `pdbench.games.matrix.vectorised`: a drawn length and noise streams per match)
    #   into arrays over their rounds, from which the runner writes the turn lines
    #   (`runners.batch`: a simultaneous commit per round, no talk).
    vectorised: str = ""
    # "module:NAME" of what the game decides of its matches in the runner (a
    # `pdbench.runners.match_records.MatchRecords`): how its agents are seated in the turn loop
    # and what is stored of a played match (lines, ledger entry, columns). "": the default,
    # each agent playing its role as it is and every turn stored as a turn line
    # (`runners.turn_run.TURN_LINES`). The 2x2 games name their family's
    # (`pdbench.games.matrix.records:RECORDS`: each agent in a `MatrixSeat`, the match dealt its
    # trembling hands, the agents' own fallbacks and option orders added to the commit lines).
    records: str = ""
    # "module:NAME" of the game's prompt adapter (`pdbench.games.prompt_adapter.PromptAdapter`):
    # its LLM players' prompt files, placeholders, answer parser, legal answers and answer
    # limits. "": the game has no LLM players through an adapter. A 2x2 game's entry names a
    # `prompt_adapter.TablePrompts` instead (`matrix_entry`: the family's,
    # `pdbench.games.matrix.prompts:PROMPTS`): the values of the agent's own templates'
    # placeholders (labels, payoffs, history, totals, talk, answer format), the answer's parser
    # and legal answers, which `agents.llm.prompts` asks for through `registry.table_prompts`.
    llm: str = ""
    # "module:function" of how the offline mock plays the game (`prompt_adapter.GameMock`: the
    # prompt, and of the request its cache key, constrained answers and `asked`, its seed,
    # format and labels); "": the mock has no player of the game. The mock asks the turn games'
    # mocks first, then the 2x2 games' (`pdbench.games.matrix.mock`, which reads any prompt).
    mock: str = ""
    # The settings of a condition's game (`pdbench.config.game_spec.GameSpec`) its rules are
    # built with besides the match's length: "options" (its variant: the rules class's own
    # fields), "table" (the game's table as the condition changes it: payoffs, labels, check_pd,
    # negotiation), "noise" (the trembling hand). A setting the game does not take is refused
    # when the config is read, naming the field.
    settings: tuple[Literal["options", "table", "noise"], ...] = ("options",)
    # How a message about a condition names the game ("": its id).
    called: str = ""
    # "module:function" saying what makes a condition's agent unfit for a seat of this game
    # (`function(agent spec, rules, seat)` -> "field: reason" within the agent, or None; asked
    # through `registry.seat_problem`); "": the agent spec's `problem_in_turn_game(game id)`,
    # the agents answering a seat's round_state. The 2x2 games name their family's
    # (`pdbench.games.matrix.fit`: the agent checked on the table its seat is shown).
    seat_fit: str = ""
    # A 2x2 game's table (`pdbench.core.game.Game`: payoffs, labels, pot, negotiation...), which
    # makes the entry a game of the matrix family (`pdbench.games.matrix.matrix_entry` builds
    # it); None for a turn game. `pdbench.games.tables` gathers the registered ones.
    table: Game | None = None

    @property
    def named(self) -> str:
        """The game as a message about a condition names it (`called`, else its id)."""
        return self.called or self.id

    @property
    def llm_plays(self) -> bool:
        """Whether an LLM agent can play this game (it has a prompt adapter); otherwise an LLM
        player is refused when the config is read."""
        return bool(self.llm)
