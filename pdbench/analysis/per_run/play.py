"""A run's stored play as the analyses read it: finished matches only, per agent or per player.

Reads rounds.jsonl (only the columns the analyses need, through `columns.read_matches`), the
ledger and the manifest of a run dir, a merged sweep or a sweep still in its shards
(`RunReader` stitches those together); nothing is written and no provider is called.

Only finished matches are analysed. A match an agent aborted (its ledger entry has an `error`)
stopped early for a reason that has nothing to do with the strategy being measured, and a match
with rounds but no ledger entry was cut short by a crash; both are left out, and `left_out` says
which and why, so a report can say how many.

- `MatchBatch` per (condition, side): the agent's own moves against its opponent's, the input of
  the fingerprint, SFEM and profile (`agent_batches`); for a tournament also per player, pooled
  over every match it played in either seat (`player_batches`).
- The per-replicate metrics of aggregates.parquet, computed the same way (`replicate_metrics`),
  for comparisons between conditions.
- `TournamentMatches` for a tournament run, whose conditions carry player_a/player_b factors.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from pdbench.analysis.identification.moves import MatchBatch
from pdbench.analysis.metrics.columns import StoredMatches, read_matches
from pdbench.analysis.metrics.round_aggregates import aggregate_matches
from pdbench.analysis.tournaments.results import TournamentMatches
from pdbench.core.errors import PdbenchError
from pdbench.storage.ledger import LedgerEntry
from pdbench.storage.manifest import RunManifest
from pdbench.storage.reader import RunReader

PLAYER_FACTORS = ("player_a", "player_b")


@dataclass(frozen=True)
class LeftOut:
    """A stored match the analyses do not use, and why."""

    condition: str
    replicate: int
    reason: str


@dataclass(frozen=True)
class AgentBatch:
    """The matches of one agent: one side of one condition, or one player of a tournament pooled
    over its matches (then `condition` is None and `side` is "both")."""

    condition: str | None
    side: str
    agent: str
    opponent: str
    batch: MatchBatch


@dataclass(frozen=True)
class StoredPlay:
    """The finished matches of a run, in stored order, with the run's manifest and ledger."""

    run_dir: Path
    manifest: RunManifest
    matches: StoredMatches
    ledger: dict[tuple[str, int], LedgerEntry]
    left_out: tuple[LeftOut, ...]

    @property
    def conditions(self) -> list[str]:
        """Conditions with at least one finished match, in the manifest's (experiment's) order."""
        present = {condition for condition, _ in self.matches.keys}
        ordered = [name for name in self.manifest.conditions if name in present]
        return ordered + sorted(present - set(ordered))

    def match_indices(self, condition: str) -> np.ndarray:
        return np.array(
            [i for i, (name, _) in enumerate(self.matches.keys) if name == condition],
            dtype=np.intp,
        )

    def lengths(self) -> np.ndarray:
        return np.diff(np.append(self.matches.starts, len(self.matches.coop_a)))

    def left_out_of(self, condition: str) -> list[LeftOut]:
        return [entry for entry in self.left_out if entry.condition == condition]

    def shares_seeds(self, condition_a: str, condition_b: str) -> bool:
        """True when every replicate index the two conditions share ran with the same seeds
        (common random numbers: the same horizon draw and the same random streams per side)."""
        seeds_a = {r: e.seeds for (c, r), e in self.ledger.items() if c == condition_a}
        seeds_b = {r: e.seeds for (c, r), e in self.ledger.items() if c == condition_b}
        shared = set(seeds_a) & set(seeds_b)
        return bool(shared) and all(seeds_a[r] == seeds_b[r] for r in shared)

    def players(self) -> dict[str, tuple[str, str]] | None:
        """condition -> (player a, player b) when every condition is a tournament pair."""
        pairs = {}
        for condition in self.conditions:
            factors = self.manifest.factors.get(condition, {})
            if not all(key in factors for key in PLAYER_FACTORS):
                return None
            pairs[condition] = (factors["player_a"], factors["player_b"])
        return pairs or None


def read_stored_play(run_dir: Path) -> StoredPlay:
    """The finished matches of a run dir (a sweep's unmerged shards included)."""
    reader = RunReader.open(run_dir)
    manifest = reader.manifest()
    ledger = {entry.key: entry for entry in reader.ledger()}
    stored = StoredMatches.concatenate([read_matches(segment) for segment in reader.segments])
    keep, left_out = [], []
    for key in stored.keys:
        entry = ledger.get(key)
        if entry is None:
            reason = "no ledger entry (the run stopped while it was being stored)"
        elif entry.error:
            reason = f"aborted: {entry.error}"
        else:
            reason = None
        keep.append(reason is None)
        if reason is not None:
            left_out.append(LeftOut(key[0], key[1], reason))
    stored_keys = set(stored.keys)
    for key, entry in ledger.items():  # aborted in its first round: no round was stored
        if entry.error and key not in stored_keys:
            left_out.append(LeftOut(key[0], key[1], f"aborted: {entry.error}"))
    return StoredPlay(
        run_dir=reader.run_dir,
        manifest=manifest,
        matches=select_matches(stored, np.flatnonzero(keep)),
        ledger={key: entry for key, entry in ledger.items() if not entry.error},
        left_out=tuple(left_out),
    )


def select_matches(matches: StoredMatches, indices: np.ndarray) -> StoredMatches:
    """The matches at `indices` (in that order), laid end to end again."""
    indices = np.asarray(indices, dtype=np.intp)
    lengths = np.diff(np.append(matches.starts, len(matches.coop_a)))
    kept = lengths[indices]
    starts = (np.cumsum(kept) - kept).astype(np.intp)
    # Round r of the selection is round (r - its new start) of its match, from the old start.
    rounds = np.arange(int(kept.sum())) + np.repeat(matches.starts[indices] - starts, kept)
    return StoredMatches(
        keys=[matches.keys[i] for i in indices],
        labels=[matches.labels[i] for i in indices],
        starts=starts,
        coop_a=matches.coop_a[rounds],
        coop_b=matches.coop_b[rounds],
        payoff_a=matches.payoff_a[rounds],
        payoff_b=matches.payoff_b[rounds],
        flags={name: values[rounds] for name, values in matches.flags.items()},
    )


def side_batch(matches: StoredMatches, side: str) -> MatchBatch:
    """Every match of `matches` seen from `side` ("a" or "b")."""
    own, other = (
        (matches.coop_a, matches.coop_b) if side == "a" else (matches.coop_b, matches.coop_a)
    )
    return MatchBatch.from_flat(matches.starts, own, other)


def agent_batches(play: StoredPlay) -> list[AgentBatch]:
    """One batch per condition and side, in condition order, side a first."""
    batches = []
    for condition in play.conditions:
        matches = select_matches(play.matches, play.match_indices(condition))
        agent_a, agent_b = matches.labels[0][0], matches.labels[0][1]
        for side, agent, opponent in (("a", agent_a, agent_b), ("b", agent_b, agent_a)):
            batches.append(AgentBatch(condition, side, agent, opponent, side_batch(matches, side)))
    return batches


def player_batches(play: StoredPlay) -> list[AgentBatch]:
    """For a tournament: one batch per player, every match it played in either seat (a
    self-play match counts twice, once per seat), in order of first appearance; [] otherwise."""
    pairs = play.players()
    if pairs is None:
        return []
    seats: dict[str, list[tuple[str, str]]] = {}
    for condition, (player_a, player_b) in pairs.items():
        seats.setdefault(player_a, []).append((condition, "a"))
        seats.setdefault(player_b, []).append((condition, "b"))
    batches = []
    for player, places in seats.items():
        parts = [
            side_batch(select_matches(play.matches, play.match_indices(condition)), side)
            for condition, side in places
        ]
        batches.append(AgentBatch(None, "both", player, "(every opponent)", _stack(parts)))
    return batches


def _stack(batches: Sequence[MatchBatch]) -> MatchBatch:
    longest = max(batch.longest for batch in batches)

    def padded(array: np.ndarray) -> np.ndarray:
        return np.pad(array, ((0, 0), (0, longest - array.shape[1])))

    return MatchBatch(
        np.concatenate([padded(b.own) for b in batches]),
        np.concatenate([padded(b.opponent) for b in batches]),
        np.concatenate([b.lengths for b in batches]),
    )


def replicate_metrics(play: StoredPlay) -> pd.DataFrame:
    """The replicate rows of aggregates.parquet for the finished matches: every metric with
    its condition and replicate, computed by aggregation itself (same definitions and settings)."""
    with warnings.catch_warnings():
        # aggregate's factor columns are inserted one by one; pandas' hint about it is noise here
        warnings.simplefilter("ignore", pd.errors.PerformanceWarning)
        table = aggregate_matches(play.matches, play.manifest, list(play.ledger.values()))
    return table[table["level"] == "replicate"].reset_index(drop=True)


def tournament_matches(play: StoredPlay) -> tuple[TournamentMatches, list[str]]:
    """The finished matches of a tournament run and its players in order of first appearance
    (the order of the tournament's agent list). Raises PdbenchError for a run that is not a
    tournament."""
    pairs = play.players()
    if pairs is None:
        raise PdbenchError(
            f"{play.run_dir} is not a tournament run (its conditions have no player_a/player_b "
            "factors); run an experiment with a tournament: block, e.g. "
            "conf/experiment/tournament_classic.yaml"
        )
    matches = play.matches
    lengths = play.lengths()
    per_match = np.add.reduceat
    starts = matches.starts
    players = list(dict.fromkeys(name for pair in pairs.values() for name in pair))
    return (
        TournamentMatches(
            player_a=np.array([pairs[c][0] for c, _ in matches.keys], dtype=object),
            player_b=np.array([pairs[c][1] for c, _ in matches.keys], dtype=object),
            replicate=np.array([r for _, r in matches.keys], dtype=np.int64),
            score_a=per_match(matches.payoff_a, starts) / lengths,
            score_b=per_match(matches.payoff_b, starts) / lengths,
            cooperation_a=per_match(matches.coop_a.astype(float), starts) / lengths,
            cooperation_b=per_match(matches.coop_b.astype(float), starts) / lengths,
            n_rounds=lengths.astype(float),
        ),
        players,
    )
