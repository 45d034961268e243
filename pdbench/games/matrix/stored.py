"""A stored 2x2 match read back as rounds: the one projection from the record shape a 2x2 run
writes (record version 2, the turn lines of `pdbench.runners.turn_records`) to the flat round
records of record version 1 (one line per round: `agent_a_action`, `agent_a_payoff`, the running
totals, ...; `pdbench.storage.schema.RoundRecord`), which every 2x2 analysis, the ladder, the
exports and the viewer read. A version-1 line passes through unchanged, so old runs and new
ones give the same frames, columns and aggregates.

A version-2 2x2 match (`family` "matrix") is stored as its finished rounds' turns:
- a talk turn per message (`phase` "talk", one seat): `actions` the message as the seat answered
  it, `revealed` {"round", "message": the message as delivered (speaker, turn, text, cut,
  promise)}, `decisions` how the seat's answer was reached (timeout, invalid_outputs, error,
  attempts) when the seat's agent can fail to answer;
- the commit turn (`phase` "commit", seats a and b): `actions` each seat's commit, the move it
  meant to play; `revealed` {"round", "actions": the moves played (after a trembling hand's
  flip), "payoffs"}; `decisions` per seat as for talk, with the agent's own `fallback` and the
  `option_order` it was shown (when shuffled);
- the match's fields on every line: run_id, condition, replicate, game, family "matrix",
  agent_a, agent_b and the horizon (horizon_type, fixed_n, stop_prob), as version 1 has them;
- `outcome` on the last line: scores, winner, error, seed and `options` (rounds, noise,
  rounds_shown): a round's intended moves are projected only from a match with noise, as
  version 1 stored them (or where a commit is not the move played without noise: an edited
  file, which the round checks then refuse).

No observation digest is stored: a 2x2 game is of perfect information (a seat's observation is
a pure function of the earlier lines), `MatrixGame.stores_observations` says so.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import orjson

FAMILY = "matrix"  # the `family` of a version-2 2x2 line
# The match's fields of a version-1 line, in its key order (RoundRecord's MATCH_FIELDS).
MATCH_FIELDS = (
    "run_id",
    "condition",
    "replicate",
    "game",
    "agent_a",
    "agent_b",
    "horizon_type",
    "fixed_n",
    "stop_prob",
)
# a side's markers in version 1's order, with what a decision that does not say one means
_SIDE_MARKERS = {"invalid_outputs": 0, "fallback": False, "timeout": False, "error": None}
_MESSAGE_MARKS = ("cut", "empty", "timeout", "invalid", "promise")

Line = Mapping[str, Any]


def match_options(rounds: int, noise: float, rounds_shown: bool) -> dict[str, Any]:
    """The options of a 2x2 match's rules (`MatrixGame` less its table, which the condition
    holds), as its outcome stores them; both writers (the turn loop's, the batch path's) use it."""
    return {"rounds": rounds, "noise": noise, "rounds_shown": rounds_shown}


def is_matrix_line(line: Line) -> bool:
    """A version-2 2x2 line (a version-1 line has no `family`, a turn game's says "turn")."""
    return line.get("family") == FAMILY


def _message(line: Line) -> dict[str, Any]:
    """A talk turn as version 1 stored a message of the round's conversation."""
    said = line["revealed"]["message"]
    speaker = said["speaker"]
    how = (line.get("decisions") or {}).get(speaker) or {}
    record: dict[str, Any] = {
        "speaker": speaker,
        "turn": said["turn"],
        "text": said["text"],
        "cut": said["cut"],
        "empty": not said["text"],
        "timeout": bool(how.get("timeout", False)),
        "invalid": bool(how.get("invalid_outputs", 0)),
        "promise": said["promise"],
        "error": how.get("error"),
    }
    if how.get("attempts"):
        record["attempts"] = how["attempts"]
    return record


def _round(
    commit: Line, talk: list[Line], totals: list[float], noisy: bool, talks: bool
) -> dict[str, Any]:
    shown = commit["revealed"]
    record: dict[str, Any] = {name: commit[name] for name in MATCH_FIELDS}
    record["round_index"] = shown["round"]
    for side in "ab":
        record[f"agent_{side}_action"] = shown["actions"][side]
    for side in "ab":
        record[f"agent_{side}_payoff"] = shown["payoffs"][side]
    for index, side in enumerate("ab"):
        totals[index] += shown["payoffs"][side]  # summed in order, as the match summed them
        record[f"agent_{side}_cum_payoff"] = totals[index]
    record["timestamp_utc"] = commit["timestamp_utc"]
    intended = {side: commit["actions"][side]["action"] for side in "ab"}
    # Version 1 stored the intended moves only with noise; a line whose commit is not the move
    # played in a match without noise (an edited file) shows both, so the checks see the flip.
    if noisy or intended != shown["actions"]:
        for side in "ab":
            record[f"agent_{side}_intended"] = intended[side]
    if talks:
        record["conversation"] = [_message(line) for line in talk]
    for side in "ab":
        how = (commit.get("decisions") or {}).get(side)
        if how is None:
            continue
        for marker, default in _SIDE_MARKERS.items():
            record[f"agent_{side}_{marker}"] = how.get(marker, default)
        if how.get("option_order") is not None:
            record[f"agent_{side}_option_order"] = how["option_order"]
        if how.get("attempts"):
            record[f"agent_{side}_attempts"] = how["attempts"]
    return record


def match_rounds(lines: Sequence[Line]) -> list[dict[str, Any]]:
    """One version-2 2x2 match's lines (in turn order) as its version-1 round records."""
    if not lines:
        return []
    outcome = lines[-1].get("outcome") or {}
    noisy = float((outcome.get("options") or {}).get("noise", 0.0)) > 0
    talks = any(line["phase"] == "talk" for line in lines)
    rounds, talk, totals = [], [], [0.0, 0.0]
    for line in lines:
        if line["phase"] == "talk":
            talk.append(line)
            continue
        rounds.append(_round(line, talk, totals, noisy, talks))
        talk = []
    return rounds


def as_rounds(lines: Iterable[Line]) -> Iterator[dict[str, Any]]:
    """Stored lines in file order, every version-2 2x2 match's as its version-1 round records
    (a match's lines are stored together); any other line (version 1, a turn game's) as it is."""
    match: list[Line] = []
    for line in lines:
        if match and (line.get("condition"), line.get("replicate")) != (
            match[0]["condition"],
            match[0]["replicate"],
        ):
            yield from match_rounds(match)
            match = []
        if is_matrix_line(line):
            match.append(line)
            continue
        yield dict(line)
    yield from match_rounds(match)


def as_round_lines(blob: bytes) -> bytes:
    """rounds.jsonl bytes as version-1 lines, for the columnar readers (pyarrow): version-2 2x2
    matches projected, anything else (a version-1 file is returned as it is) kept."""
    if b'"family":"matrix"' not in blob:
        return blob
    try:
        lines = [orjson.loads(line) for line in blob.splitlines() if line.strip()]
    except orjson.JSONDecodeError:
        return blob  # damaged: the reader names the line
    return b"".join(orjson.dumps(record) + b"\n" for record in as_rounds(lines))
