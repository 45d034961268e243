"""A stored 2x2 match read back as rounds: the one projection from the record shape a 2x2 run
writes (record version 2, the turn lines of `pdbench.runners.turn_records`) to the flat round
records of record version 1 (one line per round: `agent_a_action`, `agent_a_payoff`, the running
totals, ...; `pdbench.storage.schema.RoundRecord`), which every 2x2 analysis, the ladder, the
exports and the viewer read. A version-1 line passes through unchanged, so old runs and new
ones give the same frames, columns and aggregates.

A version-2 2x2 match (`family` "matrix") is stored as its finished rounds' turns:
- a talk turn per message (`phase` "talk", one seat): `actions` the message as delivered
  (stripped and cut to the limit: applied again, it is delivered unchanged), `revealed` {"round", "message": the message as delivered (speaker, turn, text, cut,
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

import itertools
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
    """rounds.jsonl bytes as version-1 lines: version-2 2x2 matches projected, anything else (a
    version-1 file is returned as it is) kept. What a run begun as version 1 writes as it goes
    on (`storage.run_store`), so that pdbench has one writer of lines."""
    if b'"family":"matrix"' not in blob:
        return blob
    try:
        lines = [orjson.loads(line) for line in blob.splitlines() if line.strip()]
    except orjson.JSONDecodeError:
        return blob  # damaged: the reader names the line
    return b"".join(orjson.dumps(record) + b"\n" for record in as_rounds(lines))


# --- the same projection, in columns (aggregation, the round checks: no dict per line) ---------


def _line_schema(names: Sequence[str]) -> Any:
    """What the columnar readers parse of a version-2 line to give the version-1 columns
    `names` (pyarrow; nothing else is parsed, so a large run is read in little memory)."""
    import pyarrow as pa

    def pair(kind: Any) -> Any:
        return pa.struct([("a", kind), ("b", kind)])

    kinds = {int: pa.int64(), bool: pa.bool_()}  # a marker's type, from its default's
    side = pa.struct(
        [(name, kinds.get(type(default), pa.string())) for name, default in _SIDE_MARKERS.items()]
    )
    message = pa.struct(
        [
            ("speaker", pa.string()),
            ("turn", pa.int64()),
            ("text", pa.string()),
            ("cut", pa.bool_()),
            ("promise", pa.bool_()),
        ]
    )
    talk = "conversation" in names
    intended = any(name.endswith("_intended") for name in names)
    shown = [("actions", pair(pa.string())), ("payoffs", pair(pa.float64()))]
    texts = {"fixed_n": pa.int64(), "stop_prob": pa.float64()}
    fields = [
        ("condition", pa.string()),
        ("replicate", pa.int64()),
        *((name, texts.get(name, pa.string())) for name in MATCH_FIELDS[3:] if name in names),
        ("round", pa.int64()),
        ("phase", pa.string()),
        ("revealed", pa.struct([*shown, *([("message", message)] if talk else [])])),
    ]
    if "run_id" in names:
        fields.append(("run_id", pa.string()))
    if "timestamp_utc" in names:
        fields.append(("timestamp_utc", pa.string()))
    if intended:
        fields.append(("actions", pair(pa.struct([("action", pa.string())]))))
        fields.append(("outcome", pa.struct([("options", pa.struct([("noise", pa.float64())]))])))
    if talk or any(name.endswith(tuple(_SIDE_MARKERS)) for name in names):
        fields.append(("decisions", pair(side)))
    return pa.schema(fields)


def round_table(blob: bytes, schema: Any, read_options: Any = None) -> Any:
    """rounds.jsonl bytes as a pyarrow table of the version-1 columns `schema` names (and types):
    a version-1 file read as it is, a version-2 2x2 file through this module's projection, in
    columns (a round per commit line; the same values `as_rounds` gives)."""
    import pyarrow as pa
    import pyarrow.json as pa_json

    def parse(with_schema: Any) -> Any:
        return pa_json.read_json(
            pa.BufferReader(blob),
            read_options=read_options,
            parse_options=pa_json.ParseOptions(
                explicit_schema=with_schema, unexpected_field_behavior="ignore"
            ),
        )

    if b'"family":"matrix"' not in blob:
        return parse(schema)
    return _projected_columns(parse(_line_schema(schema.names)), schema)


def _projected_columns(lines: Any, schema: Any) -> Any:
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    names = set(schema.names)
    is_commit = pc.equal(lines.column("phase"), "commit").to_numpy(zero_copy_only=False)
    commit_rows = np.flatnonzero(is_commit)
    # each line's match: a new one where (condition, replicate) changes (matches are stored whole)
    codes = lines.column("condition").dictionary_encode().combine_chunks().indices.to_numpy()
    replicates = lines.column("replicate").to_numpy()
    starts = np.ones(len(is_commit), dtype=bool)
    starts[1:] = (codes[1:] != codes[:-1]) | (replicates[1:] != replicates[:-1])
    match_of_line = np.cumsum(starts) - 1
    del codes, replicates, starts
    # a run without talk holds only commit lines: no copy of them
    commits = lines if len(commit_rows) == len(is_commit) else lines.take(pa.array(commit_rows))
    match = match_of_line[commit_rows]

    def field(column: str, *path: str) -> Any:
        return pc.struct_field(commits.column(column), list(path))

    built: dict[str, Any] = {}
    for name in names & {*MATCH_FIELDS, "timestamp_utc"}:
        built[name] = commits.column(name)
    built["round_index"] = commits.column("round")
    if names & {"agent_a_cum_payoff", "agent_b_cum_payoff"}:
        first_of_match = np.ones(len(match), dtype=bool)
        first_of_match[1:] = match[1:] != match[:-1]
        bounds = [*np.flatnonzero(first_of_match).tolist(), len(match)]
    noisy_round = None
    if "outcome" in lines.column_names:  # the intended moves are asked for
        noise = pc.struct_field(lines.column("outcome"), ["options", "noise"])
        given = np.flatnonzero(noise.is_valid().to_numpy(zero_copy_only=False))
        noisy_match = np.zeros(int(match_of_line[-1]) + 1 if len(match_of_line) else 0, bool)
        noisy_match[match_of_line[given]] = noise.take(pa.array(given)).to_numpy() > 0
        noisy_round = pa.array(noisy_match[match], pa.bool_())
    for side in "ab":
        played = field("revealed", "actions", side)
        built[f"agent_{side}_action"] = played
        payoff = field("revealed", "payoffs", side).to_numpy(zero_copy_only=False)
        built[f"agent_{side}_payoff"] = payoff
        if f"agent_{side}_cum_payoff" in names:
            totals = np.empty(len(payoff))
            for start, end in itertools.pairwise(bounds):
                totals[start:end] = np.cumsum(payoff[start:end])  # summed in order, per match
            built[f"agent_{side}_cum_payoff"] = totals
        if noisy_round is not None:
            intended = field("actions", side, "action")
            shown = pc.or_(noisy_round, pc.not_equal(intended, played))
            none = pa.scalar(None, pa.string())
            built[f"agent_{side}_intended"] = pc.if_else(shown, intended, none)
        if "decisions" in commits.column_names:
            for marker in _SIDE_MARKERS:
                built[f"agent_{side}_{marker}"] = field("decisions", side, marker)
    if "conversation" in names:
        talking = set(match_of_line[~is_commit].tolist())  # the matches with talk lines
        built["conversation"] = _conversations(
            lines, commit_rows, match_of_line, talking, schema.field("conversation").type
        )
    return pa.table({name: _column(built[name], schema.field(name).type) for name in schema.names})


def _column(values: Any, kind: Any) -> Any:
    """A built column (numpy or pyarrow) as pyarrow, of the version-1 type."""
    import pyarrow as pa

    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        return values.cast(kind)
    return pa.array(values, type=kind)


def _conversations(
    lines: Any, commit_rows: Any, match_of_line: Any, talking: set[int], kind: Any
) -> Any:
    """Each round's talk, from the talk lines before its commit (None in a match without talk,
    as `match_rounds` gives it)."""
    import pyarrow as pa

    if not talking:
        return pa.nulls(len(commit_rows), kind)
    talk: dict[int, list[dict[str, Any]] | None] = {}
    previous = -1
    records = lines.select(["revealed", "decisions"]).to_pylist()
    for row in commit_rows.tolist():
        said = [
            _message({"revealed": line["revealed"], "decisions": _present(line["decisions"])})
            for line in records[previous + 1 : row]
        ]
        talk[row] = said if int(match_of_line[row]) in talking else None
        previous = row
    return pa.array([talk[row] for row in commit_rows.tolist()], type=kind)


def _present(decisions: Mapping[str, Any] | None) -> dict[str, Any]:
    """A parsed decisions struct without the seats the line had none for."""
    return {seat: how for seat, how in (decisions or {}).items() if how is not None}
