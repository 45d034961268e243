"""The ledger: matches.jsonl, one line per finished (or aborted) match, written after its rounds
(so a line says the match's rounds are all stored, and where they end)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import orjson

from pdbench.storage.schema import CallCounts


@dataclass(slots=True)
class LedgerEntry:
    """One line of matches.jsonl: a finished (or aborted) match, written after its rounds."""

    condition: str
    replicate: int
    n_rounds: int  # rounds stored
    planned_rounds: int
    seeds: dict[str, int]
    error: str | None  # why the match ended early (an agent aborted it); None when finished
    calls: CallCounts = field(default_factory=CallCounts)
    # the answers of the round that ended an aborted match (no round was stored for them)
    aborted_round_attempts: list[dict[str, Any]] | None = None
    rounds_end_offset: int | None = None  # set when stored: where the match's rounds end
    finished_utc: str | None = None
    # Which provider calls the replay cache answered, when a match has both kinds (see
    # `call_sources`); a stored attempt never says (a replay writes the same round lines).
    call_sources: str | None = None

    @property
    def key(self) -> tuple[str, int]:
        return (self.condition, self.replicate)

    def to_json(self) -> bytes:
        record: dict[str, Any] = {
            "condition": self.condition,
            "replicate": self.replicate,
            "n_rounds": self.n_rounds,
            "planned_rounds": self.planned_rounds,
            "seeds": self.seeds,
            "error": self.error,
            "calls": self.calls.to_json(omit_zero_flags=True),
        }
        if self.aborted_round_attempts:
            record["aborted_round_attempts"] = self.aborted_round_attempts
        record["rounds_end_offset"] = self.rounds_end_offset
        record["finished_utc"] = self.finished_utc
        if self.call_sources is not None:
            record["call_sources"] = self.call_sources
        return orjson.dumps(record) + b"\n"

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LedgerEntry:
        return cls(
            condition=data["condition"],
            replicate=int(data["replicate"]),
            n_rounds=int(data["n_rounds"]),
            planned_rounds=int(data["planned_rounds"]),
            seeds=dict(data.get("seeds") or {}),
            error=data.get("error"),
            calls=CallCounts.from_json(data.get("calls")),
            aborted_round_attempts=data.get("aborted_round_attempts"),
            rounds_end_offset=data.get("rounds_end_offset"),
            finished_utc=data.get("finished_utc"),
            call_sources=data.get("call_sources"),
        )

    def cached_calls(self, n_calls: int) -> list[bool] | None:
        """For each of the match's `n_calls` provider calls, in the order its stored lines (and
        then `aborted_round_attempts`) hold them, whether the replay cache answered it. None
        when that is not known: a match of both kinds from a run written before pdbench kept
        `call_sources`, or counts that do not add up to `n_calls`."""
        if self.call_sources is not None:
            return (
                [letter == CACHED for letter in self.call_sources]
                if len(self.call_sources) == n_calls
                else None
            )
        if self.calls.live + self.calls.cached != n_calls:
            return None
        if self.calls.cached == 0 or self.calls.live == 0:
            return [self.calls.cached > 0] * n_calls
        return None


CACHED, LIVE = "c", "l"


def call_sources(cached: Iterable[bool]) -> str | None:
    """A match's provider calls as one letter each, in stored order: `c` answered from the
    replay cache, `l` bought live. None when they are all of one kind (the ledger's counts say
    which), so a run's ledger lines read as they did before this was kept."""
    letters = "".join(CACHED if flag else LIVE for flag in cached)
    return letters if CACHED in letters and LIVE in letters else None
