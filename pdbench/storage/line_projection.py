"""How storage reads a game family's stored lines back as the records its readers give, without
naming a family: the family's projection is registered here, and the reader (`RunReader`) and
the writer of a run begun in record version 1 (`run_store.redacted_lines`) call it.

The one projection is the 2x2 family's (`pdbench.games.matrix.stored`: a version-2 2x2 match's
turn lines as version-1 round records, any other line as it is). The front door
(`pdbench/__init__.py`) registers it when pdbench is first imported, so a notebook that imports
only `pdbench.storage.reader` reads a 2x2 run's rounds as every command does. It is registered
as a loader, called at the first read: a command that reads no run (`pdbench --help`) does not
import the family.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

Line = Mapping[str, Any]
RoundsOf = Callable[[Iterable[Line]], Iterator[dict[str, Any]]]
RoundLinesOf = Callable[[bytes], bytes]


@dataclass(frozen=True)
class Projection:
    """A family's lines as round records: `rounds` over parsed lines in file order (a line of
    no family it knows passes as it is), `round_lines` over a rounds.jsonl blob."""

    rounds: RoundsOf
    round_lines: RoundLinesOf


_loader: Callable[[], Projection] | None = None
_projection: Projection | None = None


def register(loader: Callable[[], Projection]) -> None:
    """The projection's loader, called once, at the first read."""
    global _loader, _projection
    _loader, _projection = loader, None


def _registered() -> Projection:
    global _projection
    if _projection is None:
        if _loader is None:  # pdbench/__init__ registers it: reaching here is a defect
            raise RuntimeError("no projection of stored lines is registered")
        _projection = _loader()
    return _projection


def as_rounds(lines: Iterable[Line]) -> Iterator[dict[str, Any]]:
    """Stored lines in file order as round records (see `pdbench.games.matrix.stored`)."""
    return _registered().rounds(lines)


def as_round_lines(blob: bytes) -> bytes:
    """rounds.jsonl bytes as version-1 lines (see `pdbench.games.matrix.stored`)."""
    return _registered().round_lines(blob)
