"""A population run's pairwise encounters as a tournament's matches, so that `pdbench tournament`
ranks its types and runs the replicator and Moran analyses on its payoff matrix (issue 45).

A population run is a turn game whose players meet in pairs inside one match (the donor game:
each round every donor meets its recipient). Its game's metrics module lists each match's
encounters (`pdbench.games.encounters`); here they are grouped by the pair of seats that met in
each match, and each seat is named by its agent (its type: `DONOR_DISCRIMINATOR`, a model):

- a pair's score for each side is what that side got from their encounters, per encounter (the
  donor game: b per gift received, minus c per gift made);
- its cooperation is the share of that side's own choices in them that cooperated (None when it
  made none: a seat that only received from the other), left out of the cooperation rating;
- two seats of one type make a self-play pair, as a tournament's self-play match.

Every match is replayed through the rules first (as the aggregates are), and a match whose
stored scores differ is refused: the analysis reads nothing it has not checked. The payoff
matrix is measured at the run's composition and under its reputation dynamics; the dynamics
then treat each cell as fixed, which is what the report says of them.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from pdbench.analysis.metrics.aggregation_choice import reads_rounds
from pdbench.analysis.metrics.turn_aggregates import read_turns
from pdbench.analysis.tournaments.results import TournamentMatches
from pdbench.core.errors import PdbenchError
from pdbench.games.encounters import Encounter
from pdbench.games.registry import build_turn_game, game_encounters
from pdbench.games.replay import replay
from pdbench.storage.reader import RunReader

ROUNDS_FILE = "rounds.jsonl"


@dataclass(frozen=True)
class PopulationPlay:
    """What the report says of the run: its id, its matches read and those left out."""

    run_id: str
    n_matches: int
    left_out: tuple[str, ...]  # "<condition> replicate <r>: <why>"
    # What the run's own score is when it is not the rounds' plain payoffs (its games'
    # `summary_note`s, e.g. CoopEval's discounted average): this analysis averages each
    # encounter's payoffs as stored, so the report says the two differ.
    score_notes: tuple[str, ...] = ()


def is_population_run(run_dir: Path) -> bool:
    """Whether `run_dir` is a turn-game run (a tournament is a 2x2 one)."""
    return not reads_rounds(RunReader.open(run_dir).manifest())


def population_matches(run_dir: Path) -> tuple[TournamentMatches, list[str], PopulationPlay]:
    """The run's encounters as tournament matches (one per pair of seats that met in a match),
    the types in order of first appearance, and what was read. A game whose entry names no
    encounters (its players do not meet in pairs) is a PdbenchError saying so."""
    reader = RunReader.open(run_dir)
    manifest = reader.manifest()
    games = {matchup.game for matchup in manifest.matchups.values()}
    for game_id in sorted(games):
        if game_encounters(game_id) is None:
            raise PdbenchError(
                f"{run_dir} holds the turns of the turn-based game {game_id}, not 2x2 rounds, "
                f"and {game_id} does not say who met whom in pairs (its entry names no "
                "`encounters`): no pairwise payoff matrix to analyse; a tournament run has one, "
                "and so has a population run of a game whose players meet in pairs"
            )
    finished = {(e.condition, e.replicate): e for e in reader.ledger() if not e.error}
    turns_by_match: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for segment in reader.segments:
        turns_by_match.update(read_turns(segment / ROUNDS_FILE))
    rows: list[tuple[str, str, int, float, float, float, float, int]] = []
    left_out: list[str] = []
    for key, turns in sorted(turns_by_match.items(), key=lambda item: (item[0][0], item[0][1])):
        where = f"{key[0]} replicate {key[1]}"
        if key not in finished:
            left_out.append(f"{where}: not finished")
            continue
        types = {seat: _seat_type(turns[0], seat) for seat in turns[-1]["outcome"]["scores"]}
        encounters = _checked_encounters(turns, where)
        rows += _pairs(encounters, types, key[1])
    if not rows:
        raise PdbenchError(
            f"{run_dir}: no finished match of this run lists a pairwise encounter: its players "
            "did not meet as a re-matched population (a game under a mechanism other than "
            "reputation plays fixed groups), so it has no population payoff matrix"
        )
    columns = list(zip(*rows, strict=True))
    players = list(dict.fromkeys(name for row in rows for name in row[:2]))
    matches = TournamentMatches(
        player_a=np.array(columns[0], dtype=object),
        player_b=np.array(columns[1], dtype=object),
        replicate=np.array(columns[2], dtype=np.int64),
        score_a=np.array(columns[3], dtype=float),
        score_b=np.array(columns[4], dtype=float),
        cooperation_a=np.array(columns[5], dtype=float),
        cooperation_b=np.array(columns[6], dtype=float),
        n_rounds=np.array(columns[7], dtype=float),
    )
    read = PopulationPlay(manifest.run_id, len(finished), tuple(left_out), _score_notes(run_dir))
    return matches, players, read


def _score_notes(run_dir: Path) -> tuple[str, ...]:
    """The games' notes on the run's own score, from its aggregates (none when it has none)."""
    import pandas as pd

    from pdbench.games.metric_rows import summary_notes

    path = Path(run_dir) / "aggregates.parquet"
    return tuple(summary_notes(pd.read_parquet(path))) if path.is_file() else ()


def _seat_type(first_turn: dict[str, Any], seat: str) -> str:
    """The agent that played `seat`, as the turn lines name it (agent_a, agent_b, ...)."""
    name = first_turn.get(f"agent_{seat}")
    if not isinstance(name, str) or not name:
        raise PdbenchError(f"no agent is named for seat {seat} in the stored turns")
    return name


def _checked_encounters(turns: list[dict[str, Any]], where: str) -> list[Encounter]:
    """The match's encounters, after its stored actions replay to its stored scores."""
    outcome = turns[-1].get("outcome")
    if outcome is None:
        raise PdbenchError(f"{where}: its last stored turn has no outcome")
    game_id = str(turns[0]["game"])
    game = build_turn_game(game_id, **outcome["options"])
    try:
        state = replay(game, outcome["seed"], [turn["actions"] for turn in turns])
    except ValueError as error:
        raise PdbenchError(f"{where}: {error}; nothing is analysed") from None
    if game.scores(state) != outcome["scores"]:
        raise PdbenchError(f"{where}: the replayed scores differ from the stored ones")
    encounters = game_encounters(game_id)
    assert encounters is not None  # checked when the run was opened (population_matches)
    found: list[Encounter] = encounters(turns, outcome["options"])
    return found


def _pairs(
    encounters: list[Encounter], types: dict[str, str], replicate: int
) -> list[tuple[str, str, int, float, float, float, float, int]]:
    """One row per pair of seats that met: (type, type, replicate, score, score, cooperation,
    cooperation, encounters), each score per encounter, a cooperation NaN when not chosen."""
    met: dict[tuple[str, str], list[Encounter]] = defaultdict(list)
    for encounter in encounters:
        met[tuple(sorted((encounter.first, encounter.second)))].append(encounter)  # type: ignore[index]
    rows = []
    for (one, other), together in sorted(met.items()):
        got = {one: 0.0, other: 0.0}
        chose: dict[str, list[bool]] = {one: [], other: []}
        for e in together:
            got[e.first] += e.payoff_first
            got[e.second] += e.payoff_second
            for seat, cooperated in (
                (e.first, e.cooperated_first),
                (e.second, e.cooperated_second),
            ):
                if cooperated is not None:
                    chose[seat].append(cooperated)
        n = len(together)
        rows.append(
            (
                types[one],
                types[other],
                replicate,
                got[one] / n,
                got[other] / n,
                float(np.mean(chose[one])) if chose[one] else float("nan"),
                float(np.mean(chose[other])) if chose[other] else float("nan"),
                n,
            )
        )
    return rows
