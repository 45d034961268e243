"""The ordered writer's flush rule: a match that bought provider answers goes to disk at once.

Policy matches are batched (at least every FLUSH_EVERY_S, or FLUSH_EVERY_MATCHES) because a policy
run writes millions of rounds. A paid match is different: holding it for up to a second lets the
run keep buying answers after the disk has filled, before the first write could say so (found by
tests/e2e/test_durability_faults.py on an idle machine: 11 calls bought where 3 were due).
"""

from __future__ import annotations

from pdbench.runners.writer import OrderedWriter
from pdbench.storage.ledger import LedgerEntry
from pdbench.storage.run_store import FinishedMatch
from pdbench.storage.schema import CallCounts


class RecordingStore:
    """Stands in for RunStore: records what the writer thread was given."""

    def __init__(self) -> None:
        self.batches: list[list[tuple[str, int]]] = []

    def append(self, matches: list[FinishedMatch]) -> None:
        self.batches.append([m.ledger.key for m in matches])


def finished(replicate: int, calls: CallCounts) -> FinishedMatch:
    entry = LedgerEntry(
        condition="c",
        replicate=replicate,
        n_rounds=3,
        planned_rounds=3,
        seeds={},
        error=None,
        calls=calls,
    )
    return FinishedMatch(lines=[b"{}\n"], ledger=entry)


def test_a_match_with_live_calls_is_handed_to_the_disk_at_once() -> None:
    store = RecordingStore()
    writer = OrderedWriter(store)  # type: ignore[arg-type]
    writer.add(0, finished(0, CallCounts(live=3)))
    writer.finish()
    assert store.batches == [[("c", 0)]]


def test_policy_matches_wait_for_the_batch() -> None:
    store = RecordingStore()
    writer = OrderedWriter(store)  # type: ignore[arg-type]
    writer.add(0, finished(0, CallCounts()))
    writer.add(1, finished(1, CallCounts(cached=3)))  # replayed answers cost nothing
    assert store.batches == []  # nothing submitted yet: the batch waits for a second or 512
    writer.flush()
    writer.finish()
    assert store.batches == [[("c", 0), ("c", 1)]]
