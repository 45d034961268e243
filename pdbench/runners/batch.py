"""The array path: a game whose vectorised module plays arrays over rounds (its entry's
`vectorised`, `play_arrays`: the 2x2 games', `pdbench.games.matrix.vectorised`) plays every
match of a condition at once here, and each match is written as the turn lines the turn loop's
writer gives the same match (record version 2, `pdbench.games.matrix.stored`: a simultaneous
commit per round, no talk; the fields and options its lines hold asked of the game's
`runners.match_records.MatchRecords`), byte for byte apart from timestamps, with its ledger
entry and the columns aggregation reads; tests/integration/test_batch_equivalence.py holds it
to that.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import orjson

from pdbench.runners.plan import PlannedMatch
from pdbench.runners.records import match_columns, timestamp_utc
from pdbench.runners.turn_batch import plays_arrays, vectorised_module, vectorised_players
from pdbench.runners.turn_records import ledger_entry, match_outcome
from pdbench.runners.turn_run import match_records
from pdbench.storage.run_store import FinishedMatch
from pdbench.strategies.play import BatchArrays

# One match as arrays over its rounds (True = C): the actions played, their payoffs and, with
# noise only, the actions intended (the game's `play_arrays` gives one per match).
MatchArrays = BatchArrays


def play_batch(
    matches: list[PlannedMatch], players: dict[str, Any] | None = None
) -> list[MatchArrays]:
    """Play matches of one condition together on its game's array path, `players` each seat's
    (`turn_batch.vectorised_players`, asked of the first match when not given); each match
    stops at its own length."""
    module = vectorised_module(matches[0])
    if players is None:
        players = vectorised_players(matches[0])
    if module is None or not plays_arrays(module) or players is None:
        raise TypeError(
            f"condition {matches[0].condition.name} has no array path; play it on the turn loop"
        )
    return module.play_arrays(
        [m.rules for m in matches],
        players,
        [{"a": m.seed_a, "b": m.seed_b} for m in matches],
        [m.noise_seeds for m in matches],
    )


def finished_batch(
    matches: list[PlannedMatch], played: list[MatchArrays], run_id: str
) -> list[FinishedMatch]:
    """What the store writes for each match of one condition the array path played."""
    timestamp = timestamp_utc(time.time())
    bodies: dict = {}  # rendered rounds shared by replicates that played the same moves
    records = match_records(matches[0])  # the game's: the fields and options its lines hold
    done = []
    for planned, match in zip(matches, played, strict=True):
        done.append(
            FinishedMatch(
                lines=[
                    match_lines(
                        records.shared_fields(planned, run_id),
                        match,
                        timestamp=timestamp,
                        seed=planned.game_seed,
                        options=records.outcome_options(planned),
                        bodies=bodies,
                    )
                ],
                # a policy makes no call: nothing counted
                ledger=ledger_entry(
                    planned,
                    n_rounds=len(match.coop_a),
                    planned_rounds=planned.n_rounds,
                    error=None,
                ),
                columns=match_columns(
                    planned, match.coop_a, match.coop_b, match.payoff_a, match.payoff_b
                ),
            )
        )
    return done


_ROUND_HEADS: list[bytes] = []  # per round number n: its line's fields before "actions"'s value
_ROUND_NUMBERS: list[bytes] = []  # b"1", b"2", ...: rendered once, shared by every match


def _round_heads(n: int) -> tuple[list[bytes], list[bytes]]:
    """The text of rounds 1..n that depends on the round number alone (a batch match has no
    talk, so its turn is its round)."""
    while len(_ROUND_HEADS) < n:
        number = len(_ROUND_HEADS) + 1
        _ROUND_HEADS.append(
            b'"round":%d,"turn":%d,"phase":"commit","seats":["a","b"],"actions":' % (number, number)
        )
        _ROUND_NUMBERS.append(b"%d" % number)
    return _ROUND_HEADS, _ROUND_NUMBERS


def match_lines(
    base: dict,
    arrays: MatchArrays,
    *,
    timestamp: str,
    seed: int,
    options: dict,
    bodies: dict | None = None,
) -> bytes:
    """rounds.jsonl lines of one batch-played match: byte for byte the turn lines the turn loop's
    writer (`games.matrix.records.matrix_lines`) gives the same policy match (a policy's decisions
    are never written), its write time aside.

    Each line is the match's head (`base`, its shared fields) followed by a body fixed by the
    round's number and moves; the last line carries the match's outcome. Replicates of a
    deterministic condition play the same moves, so `bodies` (one dict per condition: same game,
    same timestamp) lets them share their rendered bodies.
    """
    if len(arrays.coop_a) == 0:
        return b""
    key = tuple(
        None if column is None else column.tobytes()
        for column in (arrays.coop_a, arrays.coop_b, arrays.intended_a, arrays.intended_b)
    )
    if bodies is not None and key in bodies:
        rendered = bodies[key]
    else:
        rendered = _line_bodies(arrays, timestamp)
        if bodies is not None:
            bodies[key] = rendered
    head = orjson.dumps(base)[:-1] + b","
    # summed in order, as the rules sum a match's payoffs (np.cumsum adds one after the other)
    scores = {
        "a": float(np.cumsum(arrays.payoff_a)[-1]),
        "b": float(np.cumsum(arrays.payoff_b)[-1]),
    }
    outcome = match_outcome(scores, None, seed, options)
    return head + head.join(rendered) + b',"outcome":' + orjson.dumps(outcome) + b"}\n"


def _line_bodies(arrays: MatchArrays, timestamp: str) -> list[bytes]:
    """Per round, its line after the match's head (the last one up to where its outcome goes).

    A line is its round number's text (`_round_heads`), the text fixed by the round's moves (the
    commits, the moves played, their payoffs, the write time: rendered once per outcome), the
    round number again (in `revealed`) and the rest fixed by the moves.
    """
    n = len(arrays.coop_a)
    heads, numbers = _round_heads(n)
    # An outcome code per round: bits (a played C, b played C) and, with noise, after them
    # (a intended C, b intended C).
    noisy = arrays.intended_a is not None and arrays.intended_b is not None
    outcomes = arrays.coop_a.astype(np.int8) * 2 + arrays.coop_b  # 3 = CC, 2 = CD, 1 = DC, 0 = DD
    if arrays.intended_a is not None and arrays.intended_b is not None:
        outcomes = outcomes * 4 + arrays.intended_a.astype(np.int8) * 2 + arrays.intended_b
    shift = 2 if noisy else 0
    firsts = {int(o): int(i) for o, i in zip(*np.unique(outcomes, return_index=True), strict=True)}
    stamp = orjson.dumps(timestamp)
    middles: dict[int, bytes] = {}  # the commits, up to the revealed round's number
    tails: dict[int, bytes] = {}  # the moves played and their payoffs, the write time
    for outcome, first in firsts.items():
        played = outcome >> shift
        intended = outcome if noisy else played
        played_moves = {"a": "CD"[1 - (played >> 1)], "b": "CD"[1 - (played & 1)]}
        commits = {
            "a": {"type": "commit", "action": "CD"[1 - ((intended >> 1) & 1)]},
            "b": {"type": "commit", "action": "CD"[1 - (intended & 1)]},
        }
        payoffs = {"a": float(arrays.payoff_a[first]), "b": float(arrays.payoff_b[first])}
        middles[outcome] = orjson.dumps(commits) + b',"revealed":{"round":'
        tails[outcome] = (
            b',"actions":'
            + orjson.dumps(played_moves)
            + b',"payoffs":'
            + orjson.dumps(payoffs)
            + b'},"timestamp_utc":'
            + stamp
        )
    ends = {outcome: tail + b"}\n" for outcome, tail in tails.items()}
    outcome_list = outcomes.tolist()
    rendered = [
        b"".join((heads[i], middles[o], numbers[i], ends[o])) for i, o in enumerate(outcome_list)
    ]
    last = outcome_list[-1]
    rendered[-1] = b"".join((heads[n - 1], middles[last], numbers[n - 1], tails[last]))
    return rendered
