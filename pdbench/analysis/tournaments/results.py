"""A round robin's results from its per-match records: payoff matrix, ranking, wins, cooperation.

Input: one record per played match (player a, player b, replicate, each side's mean payoff per
round, each side's cooperation rate, and optionally the rounds played). Pairs may be unordered (each pair once per
replicate, Axelrod's tournaments) or ordered (a vs b and b vs a); a match of a player against
itself is self-play.

Conventions, following Axelrod-Python's ResultSet (axelrod/result_set.py, 4.13):

- payoff_matrix[i, j]: i's mean payoff per round against j, averaged over the matches of each
  replicate (both orders), then over replicates, with a Student-t interval over the replicates
  (the mean over every match when each replicate played the pair equally often). The replicate is
  the unit: i-j and j-i in one replicate drew the same random numbers (common random numbers),
  so counting them as two independent matches made the interval too narrow. The diagonal is
  self-play (both sides' payoffs averaged per match). NaN where the pair never met.
- score of player i in replicate r ("normalised score" in Axelrod): the mean, over i's matches in
  replicate r, of i's mean payoff per round. Self-play is left out unless `self_play=True` (Axelrod
  plays it but leaves it out of scores, wins and cooperation ratings); when included, a self-play
  match counts once, with the mean of its two sides.
- ranking: by the median score over replicates, highest first, ties (equal to 12 decimals) kept
  in player order (Axelrod sorts by -nanmedian with Python's stable sort). The mean over replicates and its
  Student-t interval are reported alongside.
- wins of i in replicate r: matches in which i's payoff was strictly higher than its opponent's
  (both sides play the same rounds, so mean per round decides as the total does; a draw is no win;
  self-play never wins). Axelrod reports the median over replicates, as here.
- cooperation rating of i: its cooperations over its rounds, summed over its matches
  (Axelrod's cooperating_rating), with the same self-play rule as scores; without the rounds
  played, the mean of its per-match cooperation rates.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pdbench.analysis.stats.intervals import mean_interval


@dataclass(frozen=True)
class TournamentMatches:
    """One entry per played match of a round robin."""

    player_a: np.ndarray  # names (str)
    player_b: np.ndarray
    replicate: np.ndarray  # int
    score_a: np.ndarray  # mean payoff per round of player a in the match
    score_b: np.ndarray
    cooperation_a: np.ndarray  # share of rounds in which a played C
    cooperation_b: np.ndarray
    # Rounds played, to weigh cooperation ratings by rounds as Axelrod does; None = every match
    # weighs the same (right when all matches have one length).
    n_rounds: np.ndarray | None = None

    def __post_init__(self) -> None:
        size = len(self.player_a)
        for name in self.__dataclass_fields__:
            if getattr(self, name) is not None and len(getattr(self, name)) != size:
                raise ValueError(f"{name} has {len(getattr(self, name))} entries, expected {size}")


@dataclass(frozen=True)
class TournamentSummary:
    """Everything per player is in `players` order."""

    players: tuple[str, ...]
    self_play: bool
    payoff_matrix: np.ndarray  # (k, k) mean payoff per round of row against column
    payoff_std: np.ndarray  # of the replicates' means
    payoff_n: np.ndarray  # matches behind each cell (the interval's n is their replicates)
    payoff_ci_low: np.ndarray
    payoff_ci_high: np.ndarray
    replicates: np.ndarray  # the replicate indices, columns of `scores` and `wins`
    scores: np.ndarray  # (k, R) Axelrod's normalised score per replicate
    median_score: np.ndarray
    mean_score: np.ndarray
    mean_score_ci_low: np.ndarray
    mean_score_ci_high: np.ndarray
    ranking: tuple[int, ...]  # player indices, best first
    wins: np.ndarray  # (k, R)
    median_wins: np.ndarray
    cooperation_rating: np.ndarray

    @property
    def ranked_players(self) -> list[str]:
        return [self.players[i] for i in self.ranking]

    def ranking_rows(self) -> list[dict[str, object]]:
        """One row per player, best first."""
        return [
            {
                "rank": position + 1,
                "player": self.players[i],
                "median_score": float(self.median_score[i]),
                "mean_score": float(self.mean_score[i]),
                "mean_score_ci_low": float(self.mean_score_ci_low[i]),
                "mean_score_ci_high": float(self.mean_score_ci_high[i]),
                "median_wins": float(self.median_wins[i]),
                "cooperation_rating": float(self.cooperation_rating[i]),
            }
            for position, i in enumerate(self.ranking)
        ]

    def payoff_rows(self) -> list[dict[str, object]]:
        """One row per (player, opponent) that met."""
        k = len(self.players)
        return [
            {
                "player": self.players[i],
                "opponent": self.players[j],
                "mean_payoff": float(self.payoff_matrix[i, j]),
                "std": float(self.payoff_std[i, j]),
                "n_matches": int(self.payoff_n[i, j]),
                "ci_low": float(self.payoff_ci_low[i, j]),
                "ci_high": float(self.payoff_ci_high[i, j]),
            }
            for i in range(k)
            for j in range(k)
            if self.payoff_n[i, j] > 0
        ]


def summarise_tournament(
    matches: TournamentMatches,
    players: Sequence[str] | None = None,
    *,
    self_play: bool = False,
    confidence: float = 0.95,
) -> TournamentSummary:
    """Payoff matrix, ranking, wins and cooperation ratings (conventions in the module doc).
    `players` fixes the order (and the tie order of the ranking); default: order of appearance."""
    names_a = np.asarray(matches.player_a).astype(str)
    names_b = np.asarray(matches.player_b).astype(str)
    if players is None:
        players = list(dict.fromkeys(np.stack([names_a, names_b], axis=1).ravel().tolist()))
    index = {name: i for i, name in enumerate(players)}
    unknown = sorted((set(names_a) | set(names_b)) - set(index))
    if unknown:
        raise ValueError(f"matches name players missing from `players`: {unknown}")
    a = np.array([index[name] for name in names_a], dtype=np.int64)
    b = np.array([index[name] for name in names_b], dtype=np.int64)
    score_a = np.asarray(matches.score_a, dtype=float)
    score_b = np.asarray(matches.score_b, dtype=float)
    rounds = (
        np.ones(len(names_a)) if matches.n_rounds is None else np.asarray(matches.n_rounds, float)
    )
    replicate = np.asarray(matches.replicate, dtype=np.int64)
    k = len(players)

    # Each match seen from each side; a self-play match once, with the mean of its sides.
    selfish = a == b
    other = ~selfish
    player = np.concatenate([a[other], b[other], a[selfish]])
    opponent = np.concatenate([b[other], a[other], a[selfish]])
    score = np.concatenate([score_a[other], score_b[other], (score_a + score_b)[selfish] / 2])
    opponent_score = np.concatenate([score_b[other], score_a[other], score_b[selfish]])
    coop_a = np.asarray(matches.cooperation_a, dtype=float)
    coop_b = np.asarray(matches.cooperation_b, dtype=float)
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a self-play pair where neither chose
        coop_self = np.nanmean(np.stack([coop_a, coop_b]), axis=0)
    cooperations = np.concatenate(
        [(coop_a * rounds)[other], (coop_b * rounds)[other], (coop_self * rounds)[selfish]]
    )
    turns = np.concatenate([rounds[other], rounds[other], rounds[selfish]])
    # A side that made no choice in a match (NaN: a population's recipient) is left out of its
    # cooperation rating, its rounds too; a tournament's matches have none.
    chose = ~np.isnan(cooperations)
    cooperations = np.where(chose, cooperations, 0.0)
    coop_weight = np.where(chose, turns, 0.0)
    when = np.concatenate([replicate[other], replicate[other], replicate[selfish]])

    matrix_stats = [
        [
            _over_replicates(score, when, (player == i) & (opponent == j), confidence)
            for j in range(k)
        ]
        for i in range(k)
    ]
    met = np.array([[np.sum((player == i) & (opponent == j)) for j in range(k)] for i in range(k)])

    def cell(field: str) -> np.ndarray:
        return np.array([[stats[field] for stats in row] for row in matrix_stats], dtype=float)

    counted = np.ones(len(player), dtype=bool) if self_play else player != opponent
    replicates = np.unique(when)
    scores = np.full((k, len(replicates)), np.nan)
    wins = np.zeros((k, len(replicates)))
    for r, rep in enumerate(replicates):
        in_replicate = counted & (when == rep)
        played = np.bincount(player[in_replicate], minlength=k)
        total = np.bincount(player[in_replicate], weights=score[in_replicate], minlength=k)
        with np.errstate(invalid="ignore", divide="ignore"):
            scores[:, r] = np.where(played > 0, total / np.maximum(played, 1), np.nan)
        won = in_replicate & (player != opponent) & (score > opponent_score)
        wins[:, r] = np.bincount(player[won], minlength=k)

    with np.errstate(invalid="ignore", divide="ignore"):
        coop_turns = np.bincount(player[counted], weights=coop_weight[counted], minlength=k)
        coop_rating = np.where(
            coop_turns > 0,
            np.bincount(player[counted], weights=cooperations[counted], minlength=k)
            / np.maximum(coop_turns, 1),
            np.nan,
        )
    per_player = [mean_interval(scores[i], confidence) for i in range(k)]
    median_score = _nanmedian_rows(scores)
    # Stable sort on -median: ties keep player order; a player without scores ranks last. Scores
    # are compared to 12 decimals, so that sums taken in another order (one ulp apart) still tie.
    key = -np.round(np.nan_to_num(median_score, nan=-np.inf), 12)
    ranking = tuple(int(i) for i in np.argsort(key, kind="stable"))
    return TournamentSummary(
        players=tuple(players),
        self_play=self_play,
        payoff_matrix=cell("mean"),
        payoff_std=cell("std"),
        payoff_n=met.astype(np.int64),
        payoff_ci_low=cell("ci_low"),
        payoff_ci_high=cell("ci_high"),
        replicates=replicates,
        scores=scores,
        median_score=median_score,
        mean_score=np.array([stats["mean"] for stats in per_player], dtype=float),
        mean_score_ci_low=np.array([stats["ci_low"] for stats in per_player], dtype=float),
        mean_score_ci_high=np.array([stats["ci_high"] for stats in per_player], dtype=float),
        ranking=ranking,
        wins=wins,
        median_wins=np.median(wins, axis=1) if len(replicates) else np.full(k, np.nan),
        cooperation_rating=coop_rating,
    )


def _nanmedian_rows(values: np.ndarray) -> np.ndarray:
    """Median of each row over its finite entries; NaN for a row without any (no warning)."""
    return np.array(
        [
            float(np.median(row[np.isfinite(row)])) if np.isfinite(row).any() else np.nan
            for row in values
        ]
    )


def _over_replicates(
    score: np.ndarray, replicate: np.ndarray, mask: np.ndarray, confidence: float
) -> dict[str, float | int]:
    """`mean_interval` over the replicates' mean scores of the masked matches: matches of one
    replicate share random streams, so the replicate, not the match, is the unit."""
    kept, groups = score[mask], replicate[mask]
    if not len(kept):
        return mean_interval(kept, confidence)
    _, codes = np.unique(groups, return_inverse=True)
    per_replicate = np.bincount(codes, weights=kept) / np.bincount(codes)
    return mean_interval(per_replicate, confidence)
