"""The input of the per-agent analyses: many matches of one agent, as padded numpy arrays.

A `MatchBatch` holds the matches one agent played in one condition, seen from its side: its own
moves and its opponent's moves (True = C), one row per match, padded with False (D) to the
longest match, and the true length of every match. Padding is never read as play: every analysis
masks it out with `lengths`. Padded rows keep the analyses vectorised over thousands of matches
of different lengths (a loop runs over rounds, never over matches).

Build one from rounds laid end to end (the layout of rounds.jsonl and of `StoredMatches`) with
`MatchBatch.from_flat`, or from one array per match with `MatchBatch.from_sequences`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class MatchBatch:
    """Matches of one agent (one condition, one side): `own[m, t]` is its move in round t + 1 of
    match m, `opponent[m, t]` the opponent's; True = C. Rounds at or after `lengths[m]` are
    padding (False) and mean nothing."""

    own: np.ndarray  # bool, (n_matches, longest)
    opponent: np.ndarray  # bool, (n_matches, longest)
    lengths: np.ndarray  # int64, (n_matches,), every length >= 1

    def __post_init__(self) -> None:
        own = np.asarray(self.own, dtype=bool)
        opponent = np.asarray(self.opponent, dtype=bool)
        lengths = np.asarray(self.lengths, dtype=np.int64)
        if own.ndim != 2 or own.shape != opponent.shape:
            raise ValueError(
                f"own and opponent must be 2-D arrays of one shape, got {own.shape} and "
                f"{opponent.shape}"
            )
        if lengths.shape != (own.shape[0],):
            raise ValueError(f"lengths must have one entry per match ({own.shape[0]})")
        if lengths.size and (lengths.min() < 1 or lengths.max() > own.shape[1]):
            raise ValueError("every match needs at least one round and at most the padded width")
        # Padding is False in both arrays, so that a stray read of it is at least predictable.
        valid = np.arange(own.shape[1]) < lengths[:, None]
        object.__setattr__(self, "own", own & valid)
        object.__setattr__(self, "opponent", opponent & valid)
        object.__setattr__(self, "lengths", lengths)

    @property
    def n_matches(self) -> int:
        return int(self.own.shape[0])

    @property
    def longest(self) -> int:
        return int(self.own.shape[1])

    @property
    def n_rounds(self) -> int:
        return int(self.lengths.sum())

    def valid(self) -> np.ndarray:
        """(n_matches, longest) bool: True where a round was played."""
        return np.arange(self.longest) < self.lengths[:, None]

    def take(self, indices: np.ndarray) -> MatchBatch:
        """The matches at `indices` (repeats allowed, as a bootstrap resample needs)."""
        return MatchBatch(self.own[indices], self.opponent[indices], self.lengths[indices])

    @classmethod
    def from_sequences(
        cls, own: Sequence[Sequence[bool]], opponent: Sequence[Sequence[bool]]
    ) -> MatchBatch:
        """One sequence of moves per match (True = C); the two sides must match in length."""
        if len(own) != len(opponent):
            raise ValueError(f"{len(own)} own sequences but {len(opponent)} opponent sequences")
        lengths = np.array([len(moves) for moves in own], dtype=np.int64)
        for m, (mine, theirs) in enumerate(zip(own, opponent, strict=True)):
            if len(mine) != len(theirs):
                raise ValueError(f"match {m}: {len(mine)} own moves but {len(theirs)} opponent's")
        longest = int(lengths.max()) if lengths.size else 0
        own_array = np.zeros((len(own), longest), dtype=bool)
        opponent_array = np.zeros((len(own), longest), dtype=bool)
        for m, (mine, theirs) in enumerate(zip(own, opponent, strict=True)):
            own_array[m, : len(mine)] = np.asarray(mine, dtype=bool)
            opponent_array[m, : len(theirs)] = np.asarray(theirs, dtype=bool)
        return cls(own_array, opponent_array, lengths)

    @classmethod
    def from_flat(cls, starts: np.ndarray, own: np.ndarray, opponent: np.ndarray) -> MatchBatch:
        """Rounds laid end to end (match m's rounds run from `starts[m]` to the next start), as
        rounds.jsonl and `StoredMatches` keep them; scattered into padded rows without a loop."""
        own = np.asarray(own, dtype=bool)
        opponent = np.asarray(opponent, dtype=bool)
        starts = np.asarray(starts, dtype=np.int64)
        lengths = np.diff(np.append(starts, len(own)))
        longest = int(lengths.max()) if lengths.size else 0
        match = np.repeat(np.arange(len(starts)), lengths)
        round_in_match = np.arange(len(own)) - np.repeat(starts, lengths)
        own_array = np.zeros((len(starts), longest), dtype=bool)
        opponent_array = np.zeros((len(starts), longest), dtype=bool)
        own_array[match, round_in_match] = own
        opponent_array[match, round_in_match] = opponent
        return cls(own_array, opponent_array, lengths)
