"""The ladder's outcomes of a run's 2x2 matches (their rounds: both moves and payoffs per round,
whichever record version stored them), checked: the 2x2 entries' `outcomes` reader
(`pdbench.games.matrix.matrix_entry`), which `pdbench.ladder.readers` asks for the conditions of
a run that play a 2x2 game.

A side's score is its total payoff over the match (the higher total wins, as AgentDuel scores a
match), its payoff its mean payoff per round (as Axelrod's tournaments score a player, so that
matches of different lengths weigh alike). Read through `read_stored_play`, the analyses' reader
(finished matches only; a rounds file with a match stored twice or rounds out of order is refused
whole, as aggregation refuses it), then per match:

- its stored rounds are as many as its ledger line says, and no more than its horizon allows
  (the check aggregation makes);
- every round is one the game could have produced (pdbench.analysis.metrics.round_checks: the
  game's payoffs for the stored moves, cumulative sums, no flip without noise).

A match that fails is left out, with the first thing that failed.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

import numpy as np
import pandas as pd

from pdbench.analysis.metrics.round_checks import (
    AuditColumns,
    MatchRounds,
    read_audit_columns,
    round_problem,
)
from pdbench.core.payoff import PayoffMatrix
from pdbench.ladder.outcomes import (
    OUTCOME_COLUMNS,
    SELF_PLAY,
    Conditions,
    OutcomeRows,
    Outcomes,
    Skipped,
    match_id,
)


def matrix_outcomes(run_dir: Path, conditions: Collection[str] | None = None) -> Outcomes:
    """The outcomes of the 2x2 matches stored in `run_dir`, every round checked at once per match
    (numpy): of the conditions named (None: every stored match, a condition the manifest lacks
    refused)."""
    from pdbench.analysis.per_run.play import read_stored_play
    from pdbench.storage.reader import RunReader

    play = read_stored_play(run_dir)
    run_id = play.manifest.run_id
    outcomes = Outcomes(pd.DataFrame(columns=OUTCOME_COLUMNS))
    outcomes.skipped += [
        Skipped(run_id, e.condition, e.replicate, e.reason)
        for e in play.left_out
        if conditions is None or e.condition in conditions
    ]
    run_conditions = Conditions(play.manifest, outcomes, "payoff per round")
    games: dict[str, tuple[PayoffMatrix, float]] = {}
    audit = _AuditIndex([read_audit_columns(s) for s in RunReader.open(run_dir).segments])
    matches = play.matches
    lengths = play.lengths()
    rows = OutcomeRows()
    for index, (name, replicate) in enumerate(matches.keys):
        if conditions is not None and name not in conditions:
            continue
        condition = run_conditions[name]
        if condition.agent_a == condition.agent_b:
            outcomes.skipped.append(Skipped(run_id, name, replicate, SELF_PLAY))
            continue
        if name not in games:
            spec = run_conditions.game_spec(condition)
            games[name] = (spec.build().payoffs, spec.noise)
        start, length = int(matches.starts[index]), int(lengths[index])
        stop = start + length
        rounds = MatchRounds(
            matches.coop_a[start:stop],
            matches.coop_b[start:stop],
            matches.payoff_a[start:stop],
            matches.payoff_b[start:stop],
            *audit.match((name, replicate), length),
        )
        entry = play.ledger[(name, replicate)]
        problem = _ledger_problem(length, entry.n_rounds, entry.planned_rounds)
        problem = problem or round_problem(rounds, *games[name])
        if problem is not None:
            outcomes.skipped.append(Skipped(run_id, name, replicate, f"failed a check: {problem}"))
            continue
        totals = (float(rounds.payoff_a.sum()), float(rounds.payoff_b.sum()))
        content = b"".join(
            np.ascontiguousarray(column).tobytes()
            for column in (rounds.coop_a, rounds.coop_b, rounds.payoff_a, rounds.payoff_b)
        )
        rows.add(
            name,
            replicate,
            condition,
            scores=totals,
            payoffs=(totals[0] / length, totals[1] / length),
            identity=match_id(condition, replicate, entry.seeds, content),
        )
    outcomes.table = rows.table(run_id)
    return outcomes


def _ledger_problem(stored: int, n_rounds: int, planned: int) -> str | None:
    """What aggregation refuses a run for (pdbench.analysis.metrics.round_aggregates), per match."""
    if n_rounds > planned:
        return f"it played {n_rounds} rounds but its horizon allows {planned}"
    if stored != n_rounds:
        return f"it has {stored} rounds stored but its ledger line says {n_rounds}"
    return None


class _AuditIndex:
    """Where each match's rounds are in the audit columns of the run's segments."""

    def __init__(self, parts: list[AuditColumns]) -> None:
        self.parts = parts
        self.blocks: dict[tuple[str, int], tuple[int, int, int]] = {}
        for number, part in enumerate(parts):
            if not len(part.replicates):
                continue
            change = np.ones(len(part.replicates), dtype=bool)
            change[1:] = (part.conditions[1:] != part.conditions[:-1]) | (
                part.replicates[1:] != part.replicates[:-1]
            )
            starts = np.flatnonzero(change).tolist()
            for start, stop in zip(starts, [*starts[1:], len(change)], strict=True):
                key = (str(part.conditions[start]), int(part.replicates[start]))
                self.blocks[key] = (number, start, stop)

    def match(self, key: tuple[str, int], length: int) -> tuple[np.ndarray, ...]:
        number, start, stop = self.blocks[key]
        if stop - start != length:  # the file changed between the two reads
            raise RuntimeError(f"{key}: {stop - start} audited rounds for {length} stored")
        part = self.parts[number]
        return tuple(
            column[start:stop]
            for column in (part.cum_a, part.cum_b, part.intended_a, part.intended_b)
        )
