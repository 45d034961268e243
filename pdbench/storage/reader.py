"""Read-only access to a run dir's artifacts, for the viewer and for notebooks.

Nothing in here writes, creates or truncates a file. Three layouts are read the same way:

- a single run: run_manifest.json, rounds.jsonl, matches.jsonl and (once it ends) aggregates.parquet;
- a merged Hydra sweep: the same files at the top, plus the `shards/` they were merged from;
- a sweep whose shards are not merged yet (still running, or stopped before the merge): every
  shard is a run dir of one condition, and the reader stitches them together in memory.

Aggregates (stored or computed in memory) are read through `pdbench.analysis.per_run.aggregates`.

A 2x2 run's rounds are given as round records whichever record version stored them: a version-2
match's turn lines (the line says `family` "matrix") through the one projection of the 2x2
family (`pdbench.games.matrix.stored`, reached through `pdbench.storage.line_projection`:
storage names no family), a version-1 line as it is.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import orjson

from pdbench.core.errors import PdbenchError
from pdbench.storage import jsonl
from pdbench.storage.ledger import LedgerEntry
from pdbench.storage.line_projection import as_rounds
from pdbench.storage.manifest import RunManifest, merge_manifests
from pdbench.storage.run_store import read_ledger, read_manifest
from pdbench.storage.schema import (
    AGGREGATES_FILE,
    LEDGER_FILE,
    MANIFEST_FILE,
    ROUNDS_FILE,
    SHARDS_DIR,
)
from pdbench.storage.shards import shard_dirs

# Artifact files whose (mtime, size) make up a run's fingerprint.
_FINGERPRINT_FILES = (MANIFEST_FILE, ROUNDS_FILE, LEDGER_FILE, AGGREGATES_FILE)

Fingerprint = tuple[tuple[str, int, int], ...]


def is_run_dir(path: Path) -> bool:
    """A run dir holds a run_manifest.json, or the shards of a sweep."""
    return path.is_dir() and ((path / MANIFEST_FILE).is_file() or bool(shard_dirs(path)))


@dataclass(frozen=True)
class RunReader:
    """Read one run dir. `segments` are the dirs that each hold a rounds.jsonl and its ledger."""

    run_dir: Path
    segments: tuple[Path, ...]
    merged: bool  # False: a sweep read from its unmerged shards

    @classmethod
    def open(cls, path: str | Path) -> RunReader:
        run_dir = Path(path).expanduser()
        if not run_dir.exists():
            raise PdbenchError(f"{run_dir} does not exist")
        if not run_dir.is_dir():
            raise PdbenchError(f"{run_dir} is not a directory")
        run_dir = run_dir.resolve()
        if (run_dir / MANIFEST_FILE).is_file():
            return cls(run_dir=run_dir, segments=(run_dir,), merged=True)
        shards = shard_dirs(run_dir)
        if shards:
            return cls(run_dir=run_dir, segments=tuple(shards), merged=False)
        runs = sorted(
            child.name for child in run_dir.iterdir() if child.is_dir() and is_run_dir(child)
        )
        hint = f"; it holds runs: {', '.join(runs[:8])}{' ...' if len(runs) > 8 else ''}"
        raise PdbenchError(
            f"{run_dir} is not a pdbench run dir (no {MANIFEST_FILE})"
            + (hint if runs else "; runs are under data/runs/<run_id>/")
        )

    @property
    def has_shards(self) -> bool:
        return (self.run_dir / SHARDS_DIR).is_dir()

    def fingerprint(self) -> Fingerprint:
        """(file, mtime_ns, size) of every artifact: changes whenever any of them does."""
        paths = [self.run_dir / AGGREGATES_FILE]
        for segment in self.segments:
            paths += [segment / name for name in _FINGERPRINT_FILES if name != AGGREGATES_FILE]
        if self.has_shards:
            paths.append(self.run_dir / SHARDS_DIR)
        facts = []
        for path in paths:
            try:
                stat = path.stat()
                facts.append((str(path), stat.st_mtime_ns, stat.st_size))
            except FileNotFoundError:
                facts.append((str(path), 0, -1))
        return tuple(facts)

    # --- manifest and ledger ------------------------------------------------------------------

    def manifest(self) -> RunManifest:
        if self.merged:
            return read_manifest(self.run_dir)
        return merge_manifests(
            self.run_dir.name, [read_manifest(s) for s in self.segments], merged=False
        )

    def ledger(self) -> list[LedgerEntry]:
        """Every finished match's ledger line (seeds, calls, rounds, errors), in stored order."""
        return [entry for segment in self.segments for entry in read_ledger(segment)]

    # --- one match's rounds -------------------------------------------------------------------

    def match_rounds(self, condition: str, replicate: int) -> list[dict]:
        """The full round records (attempts included) of one match, in round order (a turn
        game's: its turn lines, in turn order; a 2x2 match's: its rounds, from either record
        version).

        Reads only the byte range the ledger gives for the match; a match missing from the
        ledger (a run that crashed before writing it) is looked for line by line instead.
        """
        for segment in self.segments:
            ledger = read_ledger(segment)
            entry = next(
                (e for e in ledger if e.condition == condition and e.replicate == int(replicate)),
                None,
            )
            if entry is None:
                continue
            end = entry.rounds_end_offset or 0
            start = max(
                (e.rounds_end_offset or 0 for e in ledger if (e.rounds_end_offset or 0) < end),
                default=0,
            )
            with (segment / ROUNDS_FILE).open("rb") as handle:
                handle.seek(start)
                chunk = handle.read(end - start)
            rounds = _select(chunk.splitlines(), condition, replicate)
            if rounds:
                return rounds
        return self._scan_rounds(condition, replicate)

    def condition_rounds(self, condition: str) -> dict[int, list[dict]]:
        """The full records of every match of one condition in the ledger, by replicate, each
        in round (turn) order: one pass over the stored lines, where `match_rounds` per match
        would read the ledger once per match. Lines of a match not in the ledger (cut off by a
        stop) are left out, as the aggregates leave them."""
        in_ledger = {entry.replicate for entry in self.ledger() if entry.condition == condition}
        rounds: dict[int, list[dict]] = {replicate: [] for replicate in in_ledger}
        for record in as_rounds(self._condition_lines(condition)):
            replicate = int(record.get("replicate", -1))
            if replicate in rounds:
                rounds[replicate].append(record)
        return {replicate: sorted(found, key=_order) for replicate, found in rounds.items()}

    def _condition_lines(self, condition: str) -> Iterator[dict]:
        for line in self._complete_round_lines():
            try:
                record = orjson.loads(line) if line.strip() else None
            except orjson.JSONDecodeError:
                continue  # a torn line of a stopped match: not in the ledger
            if isinstance(record, dict) and record.get("condition") == condition:
                yield record

    def rounds(self) -> Iterator[dict]:
        """Every stored round record of the matches in the ledger (finished or aborted), in
        stored order (a turn game's: its turn lines); lines of a match not in the ledger (cut off
        by a stop) are left out, as the aggregates leave them. A 2x2 run's rounds are round
        records whichever record version stored them: `pd.DataFrame(reader.rounds())` has a row
        per round, as rounds.jsonl had before record version 2."""
        keys = {entry.key for entry in self.ledger()}
        for record in as_rounds(self._stored_lines()):
            if (record.get("condition"), record.get("replicate")) in keys:
                yield record

    def _stored_lines(self) -> Iterator[dict]:
        for segment in self.segments:
            path = segment / ROUNDS_FILE
            for number, line in enumerate(self._segment_lines(segment), start=1):
                if not line.strip():
                    continue
                try:
                    record = orjson.loads(line)
                except orjson.JSONDecodeError:
                    continue  # a torn line of a stopped run; its match is not in the ledger
                if not isinstance(record, dict):
                    raise PdbenchError(f"{path} line {number}: not a JSON object")
                yield record

    def _scan_rounds(self, condition: str, replicate: int) -> list[dict]:
        rounds = [
            record
            for line in self._complete_round_lines()
            for record in _select([line], condition, replicate)
        ]
        return sorted(rounds, key=_order)

    def _complete_round_lines(self) -> Iterator[bytes]:
        """Every segment's rounds.jsonl lines up to its last complete one (a line a stopped
        writer left half-written is not read)."""
        for segment in self.segments:
            yield from self._segment_lines(segment)

    @staticmethod
    def _segment_lines(segment: Path) -> Iterator[bytes]:
        path = segment / ROUNDS_FILE
        if not path.is_file():
            return
        end = jsonl.complete_prefix(path)
        if end == 0:
            return
        with path.open("rb") as handle:
            read = 0
            for line in handle:
                read += len(line)
                if read > end:
                    break
                yield line


def _order(record: dict) -> int:
    """A line's place in its match: a 2x2 round's round_index, a turn game's turn."""
    return record["round_index"] if "round_index" in record else record["turn"]


def _select(lines: list[bytes], condition: str, replicate: int) -> list[dict]:
    records = []
    for line in lines:
        if not line.strip():
            continue
        record = orjson.loads(line)
        if record.get("condition") == condition and int(record.get("replicate", -1)) == int(
            replicate
        ):
            records.append(record)
    return sorted(as_rounds(records), key=_order)
