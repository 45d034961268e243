"""Stored rounds as columns: every match laid end to end in numpy arrays (`StoredMatches`), read
from rounds.jsonl with pyarrow (only the columns aggregation needs; prompts and answers are
skipped), or handed over by the runner from the matches it just played.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import orjson
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pa_json

from pdbench.analysis.metrics.aggregation_choice import reads_rounds_of
from pdbench.analysis.metrics.talk import TALK_FLAG_NAMES, talk_flags
from pdbench.core.errors import PdbenchError
from pdbench.games.matrix.stored import round_table
from pdbench.storage import jsonl
from pdbench.storage.arrow_schema import round_arrow_schema
from pdbench.storage.recovery import damaged_rounds_message
from pdbench.storage.schema import DECISION_FIELDS, ROUNDS_FILE

# Only these columns are parsed from rounds.jsonl; their types come from RoundRecord.
_ROUND_SCHEMA = round_arrow_schema(
    [
        "condition",
        "replicate",
        "round_index",
        "agent_a",
        "agent_b",
        "game",
        "horizon_type",
        "fixed_n",
        "agent_a_action",
        "agent_b_action",
        "agent_a_payoff",
        "agent_b_payoff",
        *(f"agent_{side}_{marker}" for marker in DECISION_FIELDS for side in ("a", "b")),
        "conversation",  # the talk metrics' counts (absent without a negotiation phase)
    ]
)


FLAG_COLUMNS = {  # aggregate column -> (rounds.jsonl field suffix, is a text field)
    "invalid_outputs": ("invalid_outputs", False),
    "fallbacks": ("fallback", False),
    "timeouts": ("timeout", False),
    "errors": ("error", True),
}


FLAG_NAMES = (
    *(f"{name}_{side}" for name in FLAG_COLUMNS for side in ("a", "b")),
    *TALK_FLAG_NAMES,
)


@dataclass
class StoredMatches:
    """Matches laid end to end, as aggregation needs them: one entry per match, columns per round.

    Built from rounds.jsonl by `read_matches`, or by the runner from the matches it just played
    (so a run need not parse the file it has just written).
    """

    keys: list[tuple[str, int]]  # (condition, replicate) per match
    labels: list[tuple[str, str, str, str]]  # (agent_a, agent_b, game, horizon_type) per match
    starts: np.ndarray  # offset of each match's first round
    coop_a: np.ndarray
    coop_b: np.ndarray
    payoff_a: np.ndarray
    payoff_b: np.ndarray
    flags: dict[str, np.ndarray]  # e.g. "invalid_outputs_a" -> per-round counts

    @classmethod
    def concatenate(cls, parts: list[StoredMatches]) -> StoredMatches:
        """Lay several StoredMatches end to end. A part may leave out flag columns (policy
        matches have none): they count as zeros."""
        lengths = [len(p.coop_a) for p in parts]
        total = int(sum(lengths))
        offsets = (np.cumsum(lengths) - np.asarray(lengths, dtype=np.intp)).astype(np.intp)

        def joined(name: str, dtype) -> np.ndarray:
            arrays = [getattr(p, name) for p in parts]
            return np.concatenate(arrays).astype(dtype) if arrays else np.empty(0, dtype)

        flags = {}
        for name in FLAG_NAMES:
            column = np.zeros(total, dtype=np.int64)
            for part, offset, length in zip(parts, offsets, lengths, strict=True):
                if name in part.flags:
                    column[offset : offset + length] = part.flags[name]
            flags[name] = column
        return cls(
            keys=[key for p in parts for key in p.keys],
            labels=[label for p in parts for label in p.labels],
            starts=np.concatenate([p.starts + o for p, o in zip(parts, offsets, strict=True)])
            if parts
            else np.empty(0, dtype=np.intp),
            coop_a=joined("coop_a", bool),
            coop_b=joined("coop_b", bool),
            payoff_a=joined("payoff_a", float),
            payoff_b=joined("payoff_b", float),
            flags=flags,
        )


def _refuse_lines_not_read_as_rounds(path: Path) -> None:
    """A game whose matches are not read as rounds (its entry names another aggregation,
    `aggregation_choice`) stores turns, not C/D rounds: say so instead of misreading them."""
    with path.open("rb") as handle:
        try:
            first = orjson.loads(handle.readline())
        except orjson.JSONDecodeError:
            return  # not JSON at all: the reader below names the damaged line
    game = first.get("game") if isinstance(first, dict) else None
    # a game no installed entry declares (None) is read as it stands: a damaged line is named
    if isinstance(game, str) and reads_rounds_of(game) is False:
        raise PdbenchError(
            f"{path}: holds the turns of the turn-based game {game}, not 2x2 "
            "rounds; this reads 2x2 runs only (a turn game's measures: pdbench analyze, "
            "aggregates.parquet)"
        )


def read_matches(run_dir: Path) -> StoredMatches:
    """Parse the core columns of rounds.jsonl (a torn last line is dropped)."""
    path = run_dir / ROUNDS_FILE
    end = jsonl.complete_prefix(path)
    if end == 0:
        return StoredMatches.concatenate([])
    _refuse_lines_not_read_as_rounds(path)
    with path.open("rb") as handle:
        data = handle.read(end)
    try:
        # a 2x2 run of record version 2 is read as the version-1 columns it projects to
        table = round_table(
            data, _ROUND_SCHEMA, read_options=pa_json.ReadOptions(block_size=1 << 24)
        )
    except pa.ArrowInvalid as error:
        raise PdbenchError(damaged_rounds_message(path, error)) from None
    del data
    condition = table.column("condition").dictionary_encode().combine_chunks()
    codes = condition.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    replicate = table.column("replicate").to_numpy().astype(np.int64)
    round_index = table.column("round_index").to_numpy().astype(np.int64)
    # Every match is stored once, as one block of rounds 1, 2, ..., n (the ordered writer writes
    # whole matches). A match found twice (two writers, a re-queued job) or with its rounds out
    # of order would be counted wrong: refuse it, naming it.
    key = codes * (int(replicate.max()) + 1) + replicate
    change = np.ones(len(key), dtype=bool)
    change[1:] = key[1:] != key[:-1]
    starts = np.flatnonzero(change)
    dictionary = condition.dictionary.to_pylist()
    fixed_n = table.column("fixed_n").to_numpy(zero_copy_only=False)
    _refuse_repeated_matches(key[starts], starts, codes, replicate, dictionary, fixed_n, path)
    _refuse_rounds_out_of_order(round_index, starts, codes, replicate, dictionary, path)

    def column(name: str, fill: int | None = None) -> np.ndarray:
        values = table.column(name)
        if fill is not None:
            values = pc.fill_null(values, pa.scalar(fill, pa.int64()).cast(values.type))
        return values.to_numpy(zero_copy_only=False)

    first = starts
    texts = {
        name: table.column(name).take(pa.array(first)).to_pylist()
        for name in ("agent_a", "agent_b", "game", "horizon_type")
    }
    flags = {}
    for name, (suffix, is_text) in FLAG_COLUMNS.items():
        for side in ("a", "b"):
            field = f"agent_{side}_{suffix}"
            if is_text:
                flags[f"{name}_{side}"] = (
                    table.column(field).is_valid().to_numpy(zero_copy_only=False).astype(np.int64)
                )
            else:
                flags[f"{name}_{side}"] = column(field, 0).astype(np.int64)
    conversation = table.column("conversation")
    if conversation.null_count < len(conversation):  # only a run that talked has any
        flags.update(talk_flags(conversation.to_pylist()))
    return StoredMatches(
        keys=[(dictionary[codes[i]], int(replicate[i])) for i in first],
        labels=list(
            zip(
                texts["agent_a"],
                texts["agent_b"],
                texts["game"],
                texts["horizon_type"],
                strict=True,
            )
        ),
        starts=starts.astype(np.intp),
        coop_a=column("agent_a_action") == "C",
        coop_b=column("agent_b_action") == "C",
        payoff_a=column("agent_a_payoff").astype(float),
        payoff_b=column("agent_b_payoff").astype(float),
        flags=flags,
    )


def _refuse_repeated_matches(
    block_keys: np.ndarray,
    starts: np.ndarray,
    codes: np.ndarray,
    replicate: np.ndarray,
    dictionary: list[str],
    fixed_n: np.ndarray,
    path: Path,
) -> None:
    unique, counts = np.unique(block_keys, return_counts=True)
    if (counts == 1).all():
        return
    repeated = unique[counts > 1][0]
    blocks = np.flatnonzero(block_keys == repeated)
    at = starts[blocks[0]]
    rounds = int(sum(np.diff(np.append(starts, len(replicate)))[blocks]))
    horizon = (
        f"a horizon of {int(fixed_n[at])} rounds"
        if fixed_n[at] is not None and not np.isnan(float(fixed_n[at]))
        else "a geometric horizon"
    )
    raise PdbenchError(
        f"{path}: condition {dictionary[codes[at]]} replicate {int(replicate[at])} is stored "
        f"{int(counts[counts > 1][0])} times ({rounds} rounds for {horizon}; two writers on "
        "one run dir?); nothing is aggregated: keep one copy of its rounds"
    )


def _refuse_rounds_out_of_order(
    round_index: np.ndarray,
    starts: np.ndarray,
    codes: np.ndarray,
    replicate: np.ndarray,
    dictionary: list[str],
    path: Path,
) -> None:
    """Every match block counts its rounds 1, 2, 3, ... ."""
    expected = (
        np.arange(len(round_index))
        - np.repeat(starts, np.diff(np.append(starts, len(round_index))))
        + 1
    )
    wrong = np.flatnonzero(round_index != expected)
    if wrong.size:
        at = wrong[0]
        raise PdbenchError(
            f"{path}: condition {dictionary[codes[at]]} replicate {int(replicate[at])} has round "
            f"{int(round_index[at])} where round {int(expected[at])} belongs; nothing is "
            "aggregated from a match whose rounds are out of order"
        )
