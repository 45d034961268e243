"""Resuming a run dir after a crash, a torn write or a damaged file.

The ledger (matches.jsonl) vouches for what finished: each of its lines names a match and the byte
offset where that match's rounds end in rounds.jsonl. Recovery walks the ledger in order and keeps
the longest prefix in which every ledger line is a valid entry and every rounds line it vouches
for is a JSON object of that very match. What follows is either

- the normal leftovers of a kill (a torn last line, rounds of a match whose ledger line was never
  written): cut away silently, the match is played again; or
- damage (a garbage line, a ledger line without its offset, rounds that are not the match's):
  everything from there on is moved aside into `quarantine/<timestamp>/` inside the run dir (never
  deleted), said in one line, and played again.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from pdbench.storage import jsonl
from pdbench.storage.ledger import LedgerEntry
from pdbench.storage.schema import LEDGER_FILE, ROUNDS_FILE

QUARANTINE_DIR = "quarantine"


@dataclass
class Recovered:
    """What recovery kept, and what it moved aside (and why)."""

    entries: list[LedgerEntry] = field(default_factory=list)
    ledger_end: int = 0  # bytes of matches.jsonl kept
    rounds_end: int = 0  # bytes of rounds.jsonl kept
    damage: str | None = None  # "<file> line N: <what is wrong>" when something was damaged
    moved_to: Path | None = None  # where the damaged rest went

    def notice(self, run_dir: Path) -> str | None:
        """The one line that says what was moved aside, or None when nothing was damaged."""
        if self.damage is None:
            return None
        where = self.moved_to.relative_to(run_dir) if self.moved_to else "nowhere"
        return (
            f"{run_dir}: {self.damage}; kept the {len(self.entries)} matches before it and moved "
            f"the rest to {where}/ (nothing deleted); those matches are played again"
        )


def ledger_problem(data: object) -> str | None:
    """Why a parsed ledger line is not a usable entry, or None."""
    if not isinstance(data, dict):
        return "not a JSON object"
    for name in ("condition", "replicate", "n_rounds", "planned_rounds"):
        if name not in data:
            return f"no {name}"
    if not isinstance(data.get("rounds_end_offset"), int):
        return "no rounds_end_offset (an integer: where the match's rounds end)"
    return None


def parse_ledger_line(line: bytes) -> tuple[LedgerEntry | None, str | None]:
    """(entry, None) or (None, why the line is unusable)."""
    try:
        data = orjson.loads(line)
    except orjson.JSONDecodeError as error:
        return None, f"not valid JSON ({error})"
    problem = ledger_problem(data)
    if problem is not None:
        return None, problem
    try:
        return LedgerEntry.from_json(data), None
    except (TypeError, ValueError) as error:
        return None, f"a field has the wrong type ({error})"


def _json_object(line: bytes) -> tuple[dict | None, str | None]:
    """(the JSON object a rounds line holds, None) or (None, why it holds none)."""
    try:
        record = orjson.loads(line)
    except orjson.JSONDecodeError as error:
        return None, f"not valid JSON ({error})"
    if not isinstance(record, dict):
        return None, "not a JSON object"
    return record, None


def rounds_problem(chunk: bytes, entry: LedgerEntry) -> tuple[int, str] | None:
    """(line within `chunk`, why) for the first rounds line that is not one of this match's
    rounds, or None when the chunk holds exactly the match's rounds."""
    lines = chunk.splitlines()
    for number, line in enumerate(lines):
        record, problem = _json_object(line)
        if record is None:
            return number, str(problem)
        if record.get("condition") != entry.condition or record.get("replicate") != entry.replicate:
            return number, (
                f"a round of another match than the ledger's {entry.condition} replicate "
                f"{entry.replicate}"
            )
    if len(lines) != entry.n_rounds:
        return max(len(lines) - 1, 0), (
            f"{len(lines)} rounds where the ledger says {entry.n_rounds} "
            f"({entry.condition} replicate {entry.replicate})"
        )
    return None


def recover(run_dir: Path) -> Recovered:
    """Find the longest valid prefix of the run dir's ledger and rounds, cut both files back to it
    and move any damaged rest aside."""
    ledger_path, rounds_path = run_dir / LEDGER_FILE, run_dir / ROUNDS_FILE
    rounds_size = rounds_path.stat().st_size if rounds_path.exists() else 0
    ledger_complete = jsonl.complete_prefix(ledger_path)  # a torn last line is a kill's leftover
    ledger = ledger_path.read_bytes()[:ledger_complete] if ledger_complete else b""
    found = Recovered()
    if not ledger_path.exists() and jsonl.complete_prefix(rounds_path) > 0:
        # A run dir starts with an empty ledger (RunStore): rounds without one lost the ledger
        # that vouched for them (deleted, or a copy without it). Never cut silently.
        found.damage = (
            f"{LEDGER_FILE} is missing, so nothing vouches for the rounds in {ROUNDS_FILE}"
        )
        rounds_size = 0
    rounds_line = 1  # line number in rounds.jsonl where the next match starts
    with rounds_path.open("rb") if rounds_size else _NoFile() as rounds:
        for number, line in enumerate(ledger.splitlines(keepends=True), 1):
            entry, problem = parse_ledger_line(line)
            if entry is None:
                found.damage = f"{LEDGER_FILE} line {number}: {problem}"
                break
            offset = entry.rounds_end_offset or 0
            if offset < found.rounds_end:
                found.damage = (
                    f"{LEDGER_FILE} line {number}: rounds_end_offset {offset} goes backwards"
                )
                break
            if offset > rounds_size:
                # The ledger line reached the disk but the rounds it points at did not (a power
                # loss): not damage, the match is simply played again.
                break
            chunk = b""
            if rounds is not None:
                rounds.seek(found.rounds_end)
                chunk = rounds.read(offset - found.rounds_end)
            bad = rounds_problem(chunk, entry)
            if bad is not None:
                found.damage = f"{ROUNDS_FILE} line {rounds_line + bad[0]}: {bad[1]}"
                break
            if chunk and not chunk.endswith(b"\n"):
                found.damage = (
                    f"{LEDGER_FILE} line {number}: rounds_end_offset {offset} is not the end of "
                    f"a line of {ROUNDS_FILE}"
                )
                break
            rounds_line += chunk.count(b"\n")
            found.entries.append(entry)
            found.ledger_end += len(line)
            found.rounds_end = offset
    if found.damage is not None:
        found.moved_to = _move_aside(run_dir, found)
    jsonl.truncate_to(ledger_path, found.ledger_end)
    jsonl.truncate_to(rounds_path, found.rounds_end)
    return found


def _move_aside(run_dir: Path, kept: Recovered) -> Path:
    """Copy what follows the kept prefix of both files into quarantine/<timestamp>/ (before they
    are cut back, so nothing is lost)."""
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
    folder = run_dir / QUARANTINE_DIR / stamp
    suffix = 1
    while folder.exists():
        suffix += 1
        folder = run_dir / QUARANTINE_DIR / f"{stamp}-{suffix}"
    folder.mkdir(parents=True)
    for name, start in ((LEDGER_FILE, kept.ledger_end), (ROUNDS_FILE, kept.rounds_end)):
        source = run_dir / name
        if not source.exists():
            continue
        with source.open("rb") as whole, (folder / name).open("wb") as rest:
            whole.seek(start)
            while block := whole.read(1 << 20):
                rest.write(block)
            rest.flush()
    return folder


def first_bad_rounds_line(path: Path) -> tuple[int, str] | None:
    """(line number, why) of the first complete line of a rounds file that is not a JSON object,
    or None: what `pdbench aggregate` names instead of a parser's traceback."""
    end = jsonl.complete_prefix(path)
    with path.open("rb") as handle:
        read = 0
        for number, line in enumerate(handle, 1):
            read += len(line)
            if read > end:
                break
            if not line.strip():
                continue
            record, problem = _json_object(line)
            if record is None:
                return number, str(problem)
    return None


def damaged_rounds_message(path: Path, error: Exception) -> str:
    """One line for a rounds file a parser rejected: the first bad line, and what to do."""
    found = first_bad_rounds_line(path)
    where = f"line {found[0]}: {found[1]}" if found else f"a field has the wrong type ({error})"
    return (
        f"{path} {where}; `pdbench run` with the run's command moves the damaged part aside "
        "and plays those matches again"
    )


class _NoFile:
    """Stands in for rounds.jsonl when it does not exist yet (only offset 0 is valid then)."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc_info: object) -> None:
        return None
