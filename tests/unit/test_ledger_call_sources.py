"""Which provider calls of a match the replay cache answered (issue 46): a stored attempt never
says (a replay writes the same round lines), so the ledger line keeps one letter per call, in
the order the stored lines hold the calls, when a match has both kinds; otherwise its counts
say it all and the line reads as before."""

from __future__ import annotations

import orjson

from pdbench.storage.ledger import LedgerEntry, call_sources
from pdbench.storage.schema import CallCounts


def entry(live: int, cached: int, sources: str | None = None) -> LedgerEntry:
    return LedgerEntry(
        "c", 0, 3, 3, {}, None, CallCounts(live=live, cached=cached), call_sources=sources
    )


def test_only_a_match_of_both_kinds_gets_letters():
    assert call_sources([True, True, False]) == "ccl"
    assert call_sources([False, False]) is None
    assert call_sources([True]) is None
    assert call_sources([]) is None


def test_the_letters_survive_the_ledger_line_and_an_unmixed_line_is_unchanged():
    mixed = entry(1, 2, "ccl")
    line = orjson.loads(mixed.to_json())
    assert line["call_sources"] == "ccl"
    assert LedgerEntry.from_json(line).cached_calls(3) == [True, True, False]
    assert "call_sources" not in orjson.loads(entry(3, 0).to_json())


def test_each_call_is_known_or_none_is_claimed():
    assert entry(3, 0).cached_calls(3) == [False, False, False]
    assert entry(0, 3).cached_calls(3) == [True, True, True]
    assert entry(1, 2).cached_calls(3) is None  # an older run's mixed match: not stored
    assert entry(3, 0).cached_calls(4) is None  # counts that do not add up: not guessed
    assert entry(1, 2, "ccl").cached_calls(2) is None
