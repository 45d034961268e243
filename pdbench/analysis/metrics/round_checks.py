"""Stored 2x2 rounds checked against the game they say they were played in.

rounds.jsonl is a file anyone can edit, so a reader that turns it into numbers other people rely
on (the ladder's ratings) first checks that every round is one the game could have produced:

- each payoff is the game's payoff for the two actions stored as played (with noise, the played
  action is the one scored, whatever was intended);
- the cumulative payoffs are the running sums of the payoffs;
- an action differs from the one its agent meant only in a match played with noise (a flip
  without noise is not something pdbench writes).

`read_matches` (pdbench.analysis.metrics.columns) already refuses a rounds file whose matches are
stored twice or whose round numbers are not 1, 2, 3, ...; these checks are per match, so a reader
can leave one bad match out and say why. They cannot tell a consistent forgery (a whole match
rewritten with moves and payoffs that agree) from a real match: nothing in a run folder is signed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa

from pdbench.core.actions import Action
from pdbench.core.errors import PdbenchError
from pdbench.core.payoff import PayoffMatrix
from pdbench.games.matrix.stored import round_table
from pdbench.storage import jsonl
from pdbench.storage.arrow_schema import round_arrow_schema
from pdbench.storage.recovery import damaged_rounds_message
from pdbench.storage.schema import ROUNDS_FILE

# Payoffs are written from the game's own floats, and cumulative sums are running float sums:
# equal up to rounding, never by more.
TOLERANCE = 1e-9

_AUDIT_SCHEMA = round_arrow_schema(
    [
        "condition",
        "replicate",
        "agent_a_cum_payoff",
        "agent_b_cum_payoff",
        "agent_a_intended",
        "agent_b_intended",
    ]
)

NOT_STORED = -1  # an intended action absent from the line (a match without noise)


@dataclass(frozen=True)
class AuditColumns:
    """What `read_matches` does not parse but the checks need, one entry per stored round in
    file order: the cumulative payoffs and the intended actions (1: C, 0: D, NOT_STORED)."""

    conditions: np.ndarray  # per round (object: str)
    replicates: np.ndarray
    cum_a: np.ndarray
    cum_b: np.ndarray
    intended_a: np.ndarray
    intended_b: np.ndarray


def read_audit_columns(run_dir: Path) -> AuditColumns:
    """The audit columns of a run dir's (or a shard's) rounds.jsonl (a torn last line dropped)."""
    path = run_dir / ROUNDS_FILE
    end = jsonl.complete_prefix(path)
    if end == 0:
        empty = np.empty(0)
        none = empty.astype(np.int8)
        return AuditColumns(empty.astype(object), empty.astype(np.int64), empty, empty, none, none)
    with path.open("rb") as handle:
        data = handle.read(end)
    try:
        # a 2x2 run of record version 2 is read as the version-1 columns it projects to
        table = round_table(data, _AUDIT_SCHEMA)
    except pa.ArrowInvalid as error:
        raise PdbenchError(damaged_rounds_message(path, error)) from None

    def intended(name: str) -> np.ndarray:
        values = table.column(name)
        coded = np.full(len(values), NOT_STORED, dtype=np.int8)
        if values.null_count < len(values):  # only a match played with noise stores them
            words = np.array(values.to_pylist(), dtype=object)
            coded[words == "C"], coded[words == "D"] = 1, 0
        return coded

    return AuditColumns(
        conditions=np.array(table.column("condition").to_pylist(), dtype=object),
        replicates=table.column("replicate").to_numpy(zero_copy_only=False).astype(np.int64),
        cum_a=table.column("agent_a_cum_payoff").to_numpy(zero_copy_only=False).astype(float),
        cum_b=table.column("agent_b_cum_payoff").to_numpy(zero_copy_only=False).astype(float),
        intended_a=intended("agent_a_intended"),
        intended_b=intended("agent_b_intended"),
    )


@dataclass(frozen=True)
class MatchRounds:
    """One stored match's rounds as columns (played actions: True for C)."""

    coop_a: np.ndarray
    coop_b: np.ndarray
    payoff_a: np.ndarray
    payoff_b: np.ndarray
    cum_a: np.ndarray
    cum_b: np.ndarray
    intended_a: np.ndarray
    intended_b: np.ndarray


def round_problem(rounds: MatchRounds, payoffs: PayoffMatrix, noise: float) -> str | None:
    """Why this match's stored rounds are not what `payoffs` (played with `noise`) produces, naming
    the first round that is not; None when every round checks."""
    table = np.array([[payoffs.payoffs(_action(a), _action(b)) for b in (0, 1)] for a in (0, 1)])
    played_a, played_b = rounds.coop_a.astype(int), rounds.coop_b.astype(int)
    expected = table[played_a, played_b]  # (rounds, 2): what the game pays for the stored moves
    for side, paid, column in (("a", rounds.payoff_a, 0), ("b", rounds.payoff_b, 1)):
        wrong = np.flatnonzero(~np.isclose(paid, expected[:, column], rtol=0, atol=TOLERANCE))
        if wrong.size:
            at = int(wrong[0])
            moves = f"{_label(played_a[at])} against {_label(played_b[at])}"
            return (
                f"round {at + 1} pays agent {side} {paid[at]:g}, but the game pays "
                f"{expected[at, column]:g} for {moves}"
            )
    for side, paid, cumulative in (
        ("a", rounds.payoff_a, rounds.cum_a),
        ("b", rounds.payoff_b, rounds.cum_b),
    ):
        running = np.cumsum(paid)
        scale = np.maximum(1.0, np.abs(running))
        wrong = np.flatnonzero(~(np.abs(cumulative - running) <= TOLERANCE * scale))
        if wrong.size:
            at = int(wrong[0])
            return (
                f"round {at + 1}'s cumulative payoff of agent {side} is {cumulative[at]:g}, but "
                f"its payoffs so far add up to {running[at]:g}"
            )
    if noise == 0:
        for side, played, meant in (
            ("a", played_a, rounds.intended_a),
            ("b", played_b, rounds.intended_b),
        ):
            flipped = np.flatnonzero((meant != NOT_STORED) & (meant != played))
            if flipped.size:
                at = int(flipped[0])
                return (
                    f"round {at + 1}: agent {side} played {_label(played[at])} but meant "
                    f"{_label(meant[at])}, in a match played without noise"
                )
    return None


def _action(coop: int) -> Action:
    return Action.C if coop else Action.D


def _label(coop: int) -> str:
    return "C" if coop else "D"
