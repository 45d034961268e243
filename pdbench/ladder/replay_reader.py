"""The outcomes of a run's matches stored as turn lines (one rounds.jsonl line per turn), replayed:
how the ladder reads a game whose entry names no reader of its own (`TurnGameEntry.outcomes`;
`pdbench.ladder.readers`), so a new game, built in or a plugin's, needs no reader.

A side's score and payoff are the score the rules give it: the match's stored actions are replayed
through the rules from its stored seed and game options (pdbench.games.replay, as aggregation
measures a stored match), and the scores are the replay's, never the numbers stored beside them.
Finished matches only; a match is left out, with its reason, when

- the ledger says it aborted, or has no line for it (a crash cut it short), or its last stored
  turn has no outcome or an error;
- its stored turns are not as many as its ledger line says, or not numbered 1, 2, 3, ...;
- its stored game options are not its condition's, the rules refuse one of its stored actions,
  its actions do not end the match, or the scores stored on its last turn are not the replay's.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import Any

import orjson
import pandas as pd

from pdbench.core.seats import seats_among
from pdbench.games.base import TurnGame
from pdbench.ladder.outcomes import (
    OUTCOME_COLUMNS,
    SELF_PLAY,
    Conditions,
    OutcomeRows,
    Outcomes,
    Skipped,
    match_id,
)


def replayed_outcomes(run_dir: Path, conditions: Collection[str] | None = None) -> Outcomes:
    """The outcomes of the matches stored in `run_dir`, each replayed through its game's rules:
    of the conditions named (None: every stored match, a condition the manifest lacks refused)."""
    from pdbench.analysis.metrics.turn_aggregates import read_turns
    from pdbench.storage.reader import RunReader

    reader = RunReader.open(run_dir)
    manifest = reader.manifest()
    run_id = manifest.run_id
    ledger = {entry.key: entry for entry in reader.ledger()}
    stored: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for segment in reader.segments:
        stored.update(read_turns(segment / "rounds.jsonl"))
    outcomes = Outcomes(pd.DataFrame(columns=OUTCOME_COLUMNS))
    run_conditions = Conditions(manifest, outcomes, "score per match")
    rows = OutcomeRows()
    order = {name: n for n, name in enumerate(manifest.conditions)}
    keys = sorted(
        (key for key in set(stored) | set(ledger) if conditions is None or key[0] in conditions),
        key=lambda k: (order.get(k[0], len(order)), k[1]),
    )
    for name, replicate in keys:
        entry = ledger.get((name, replicate))
        turns = stored.get((name, replicate), [])
        outcome = turns[-1].get("outcome") if turns else None
        reason = None
        if entry is None:
            reason = "no ledger entry (the run stopped while it was being stored)"
        elif entry.error:
            reason = f"aborted: {entry.error}"
        elif outcome is None:
            reason = "its last stored turn has no outcome"
        elif outcome.get("error"):
            reason = f"aborted: {outcome['error']}"
        if reason is not None:
            outcomes.skipped.append(Skipped(run_id, name, replicate, reason))
            continue
        assert entry is not None and outcome is not None
        condition = run_conditions[name]
        if len(set(condition.agents.values())) == 1:
            outcomes.skipped.append(Skipped(run_id, name, replicate, SELF_PLAY))
            continue
        configured = run_conditions.game_spec(condition).build_turn()
        scores, problem = _replayed_scores(configured, turns, entry.n_rounds)
        if problem is not None:
            outcomes.skipped.append(Skipped(run_id, name, replicate, f"failed a check: {problem}"))
            continue
        content = orjson.dumps(
            {
                "actions": [turn["actions"] for turn in turns],
                "seed": outcome.get("seed"),
                "options": outcome.get("options"),
            },
            option=orjson.OPT_SORT_KEYS,
        )
        if set(scores) != set(condition.agents):
            problem = (
                f"its replay has seats {', '.join(sorted(scores))} but its condition names agents "
                f"for {', '.join(sorted(condition.agents))}"
            )
            outcomes.skipped.append(Skipped(run_id, name, replicate, f"failed a check: {problem}"))
            continue
        rows.add_seats(
            name,
            replicate,
            condition,
            scores=scores,
            payoffs=scores,
            identity=match_id(condition, replicate, entry.seeds, content),
        )
    outcomes.table = rows.table(run_id)
    return outcomes


def _replayed_scores(
    configured: TurnGame[Any], turns: list[dict[str, Any]], ledger_turns: int
) -> tuple[dict[str, float], str | None]:
    """Every player seat's score from the match's stored actions replayed through the rules
    (`configured`: its condition's game), or why the stored match cannot be what the rules
    produced."""
    from pdbench.games.registry import build_turn_game
    from pdbench.games.replay import replay

    none: dict[str, float] = {}
    if len(turns) != ledger_turns:
        return none, f"it has {len(turns)} turns stored but its ledger line says {ledger_turns}"
    numbers = [turn.get("turn") for turn in turns]
    if numbers != list(range(1, len(turns) + 1)):
        wrong = next(n for n, number in enumerate(numbers, 1) if number != n)
        return none, f"its turn {wrong} is stored as turn {numbers[wrong - 1]}"
    outcome = turns[-1]["outcome"]
    try:
        game = build_turn_game(configured.id, **dict(outcome.get("options") or {}))
    except (TypeError, ValueError):
        game = None
    if game != configured:
        return none, f"its stored game options {outcome.get('options')} are not its condition's"
    try:
        state = replay(game, int(outcome["seed"]), [turn["actions"] for turn in turns])
    except (ValueError, KeyError, TypeError) as error:
        return none, f"the rules refuse its {error}"
    if not game.match_over(state):
        return none, f"its {len(turns)} stored turns do not end the match under the rules"
    return checked_scores(outcome.get("scores") or {}, game.scores(state))


def checked_scores(
    stored: dict[str, Any], replayed: dict[str, float]
) -> tuple[dict[str, float], str | None]:
    """The replay's score of every player seat it has ("a", "b", "c", ...: two, or N; a third
    role's seat is no player's), when the stored scores are the same seat by seat; else why
    not."""
    seats = seats_among(replayed)
    if any(stored.get(seat) != replayed[seat] for seat in seats):
        mine = ", ".join(f"{seat} {stored.get(seat)}" for seat in seats)
        theirs = ", ".join(f"{seat} {replayed[seat]}" for seat in seats)
        return {}, f"its stored scores ({mine}) differ from the replay's ({theirs})"
    return {seat: float(replayed[seat]) for seat in seats}, None
