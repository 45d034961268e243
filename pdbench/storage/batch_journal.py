"""The batch journal: every provider batch a run submits, written down before and after its
submission, so a run that is killed or interrupted polls the batches it already bought instead of
buying them again (issue 46).

One file per run folder, `batches.jsonl` (a sweep's job: in its shard), one JSON line per event,
appended under an exclusive flock like the spend journal:

- `intent`: before the input file is uploaded: the batch's number in the run (`seq`), its `tag`
  (sent as the batch's metadata, so a batch the provider created before its id could be written
  is found again by listing batches), the provider (model, server, price), the part of the run
  that asked (`source`: a sweep's condition) and the cache keys of its requests (its custom_ids);
- `submitted`: the provider's batch id, as soon as the create call returns;
- `status`: the provider's status, when it changes (validating, in_progress, finalizing);
- `collected`: every answer of the batch is in the spend journal and the replay cache: the final
  status and the keys it left unanswered (asked again in a later batch);
- `abandoned`: an intent no batch came of (its creation never reached the provider).

A torn last line (a kill mid-write) is skipped, as in every journal of a run.
"""

from __future__ import annotations

import secrets
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from pdbench.storage.spend import append_whole_line, read_complete_from

BATCH_FILE = "batches.jsonl"
# The provider's statuses of a batch that will not change any more.
FINAL_STATUSES = ("completed", "expired", "cancelled", "failed")
# How `pdbench runs` names a batch's progress, in the order it shows them.
PROGRESS = ("submitting", "submitted", "in progress", "done")


@dataclass
class JournaledBatch:
    """One batch as its journal lines tell it."""

    seq: int
    tag: str
    provider: dict[str, Any]  # model, api_base, usd_per_million_tokens
    source: str | None
    keys: tuple[str, ...]
    batch_id: str | None = None
    status: str | None = None  # the provider's, as last seen
    collected: bool = False
    unanswered: tuple[str, ...] = ()
    abandoned: str | None = None

    @property
    def outstanding(self) -> bool:
        """Submitted (or maybe submitted) and not yet collected: to be polled."""
        return not self.collected and self.abandoned is None

    @property
    def progress(self) -> str | None:
        """submitting (no id yet: it may or may not be at the provider), submitted, in progress,
        done; None for an abandoned intent."""
        if self.abandoned is not None:
            return None
        if self.collected:
            return "done"
        if self.batch_id is None:
            return "submitting"
        if self.status in (None, "validating"):
            return "submitted"
        return "in progress"


class BatchJournal:
    def __init__(self, path: Path) -> None:
        self.path = path

    def intent(
        self,
        seq: int,
        *,
        run_label: str,
        provider: dict[str, Any],
        source: str | None,
        keys: list[str],
    ) -> str:
        """Journal a batch about to be submitted; returns its tag (its metadata at the
        provider), made unique with a random part: two runs of the same name never adopt each
        other's batches."""
        tag = f"{run_label}:{seq}:{secrets.token_hex(6)}"
        self._write(
            {
                "event": "intent",
                "seq": seq,
                "tag": tag,
                "provider": provider,
                "source": source,
                "keys": keys,
            }
        )
        return tag

    def submitted(self, seq: int, batch_id: str, input_file_id: str | None) -> None:
        self._write(
            {"event": "submitted", "seq": seq, "batch_id": batch_id, "input_file": input_file_id}
        )

    def status(self, seq: int, status: str) -> None:
        self._write({"event": "status", "seq": seq, "status": status})

    def collected(self, seq: int, status: str, unanswered: list[str]) -> None:
        self._write({"event": "collected", "seq": seq, "status": status, "unanswered": unanswered})

    def abandoned(self, seq: int, reason: str) -> None:
        self._write({"event": "abandoned", "seq": seq, "reason": reason})

    def _write(self, line: dict[str, Any]) -> None:
        append_whole_line(self.path, orjson.dumps(line) + b"\n")

    def batches(self) -> list[JournaledBatch]:
        """Every batch journaled, in the order they were submitted."""
        found: dict[int, JournaledBatch] = {}
        for entry in _entries(self.path):
            seq = entry.get("seq")
            if not isinstance(seq, int):
                continue
            if entry.get("event") == "intent":
                found[seq] = JournaledBatch(
                    seq=seq,
                    tag=str(entry.get("tag")),
                    provider=dict(entry.get("provider") or {}),
                    source=entry.get("source"),
                    keys=tuple(entry.get("keys") or ()),
                )
                continue
            batch = found.get(seq)
            if batch is not None:
                _apply(batch, entry)
        return [found[seq] for seq in sorted(found)]

    def next_seq(self) -> int:
        return max((batch.seq for batch in self.batches()), default=-1) + 1


def _apply(batch: JournaledBatch, entry: dict[str, Any]) -> None:
    event = entry.get("event")
    if event == "submitted":
        batch.batch_id = str(entry.get("batch_id"))
    elif event == "status":
        batch.status = str(entry.get("status"))
    elif event == "collected":
        batch.status = str(entry.get("status"))
        batch.collected = True
        batch.unanswered = tuple(entry.get("unanswered") or ())
    elif event == "abandoned":
        batch.abandoned = str(entry.get("reason"))


def _entries(path: Path) -> list[dict[str, Any]]:
    entries = []
    for raw in read_complete_from(path, 0).splitlines():
        try:
            entry = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue  # a line torn by a kill mid-write
        if isinstance(entry, dict):
            entries.append(entry)
    return entries


def batch_journals(run_dir: Path) -> list[Path]:
    """The batch journals of a run folder: its own, and each shard's of a sweep."""
    found = [run_dir / BATCH_FILE] if (run_dir / BATCH_FILE).is_file() else []
    shards = run_dir / "shards"
    if shards.is_dir():
        found += sorted(p for p in shards.glob(f"*/{BATCH_FILE}") if p.is_file())
    return found


def batch_progress(run_dir: Path) -> str:
    """How a run's batches stand, for `pdbench runs`: "batches: 2 done, 1 in progress", or ""
    for a run that submitted none."""
    counts: Counter[str] = Counter()
    for path in batch_journals(run_dir):
        for batch in BatchJournal(path).batches():
            if batch.progress is not None:
                counts[batch.progress] += 1
    if not counts:
        return ""
    return "batches: " + ", ".join(f"{counts[p]} {p}" for p in PROGRESS if counts[p])
