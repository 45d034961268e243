"""What a researcher asks of a Liar's Dice match, per player, from its finished rounds alone
(every showdown reveals both hands, so each bid's probability given what its bidder could see is
known afterwards):

- won: 1 if the player won the match, 0 if it lost (None while unfinished).
- challenges, challenges_right: how often it challenged, and how often the challenged bid was
  indeed not met; challenge_accuracy = right / challenges (None without a challenge).
- dice_lost_per_challenge: dice the player lost in showdowns it took part in as challenger or
  as the challenged bidder, per such showdown (None without one).
- bids, bluffs: its bids, and those whose probability given its own dice was below 0.5;
  bluff_rate = bluffs / bids (None without a bid).
- calibration: for every bid the player faced on its turn, (the exact binomial probability that
  the bid was true given the player's dice, whether it challenged): binned, how often it
  challenged at each probability. A calibrated challenger challenges bids that are unlikely.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from pdbench.core.metric import Metric
from pdbench.games.liars_dice.odds import bid_probability
from pdbench.games.liars_dice.rules import (
    LiarsDiceRules,
    LiarsDiceState,
    Player,
    Showdown,
    matching,
)
from pdbench.games.metric_rows import register_game_rows

BLUFF_BELOW = 0.5


@dataclass(frozen=True)
class Faced:
    """A bid the player faced on its turn: its probability given the player's dice, and whether
    the player challenged it."""

    probability: float
    challenged: bool


@dataclass(frozen=True)
class PlayerMetrics:
    won: int | None
    challenges: int
    challenges_right: int
    showdowns: int
    dice_lost: int
    bids: int
    bluffs: int
    faced: tuple[Faced, ...]

    @property
    def challenge_accuracy(self) -> float | None:
        return self.challenges_right / self.challenges if self.challenges else None

    @property
    def dice_lost_per_challenge(self) -> float | None:
        return self.dice_lost / self.showdowns if self.showdowns else None

    @property
    def bluff_rate(self) -> float | None:
        return self.bluffs / self.bids if self.bids else None


def player_metrics(state: LiarsDiceState, player: Player) -> PlayerMetrics:
    """The metrics of `player` over the finished rounds of a match."""
    rules = state.rules
    challenges = right = showdowns = lost = bids = bluffs = 0
    faced: list[Faced] = []
    for showdown in state.finished:
        other = 1 - player
        bidder = showdown.bids[-1][0]
        if player in (showdown.challenger, bidder):
            showdowns += 1
            lost += int(showdown.loser == player)
        if showdown.challenger == player:
            challenges += 1
            right += int(showdown.loser == other)
        own = showdown.dice[player]
        unseen = len(showdown.dice[other])
        for index, (who, bid) in enumerate(showdown.bids):
            if who == player:
                bids += 1
                bluffs += int(bid_probability(rules, bid, own, unseen) < BLUFF_BELOW)
            else:  # the player answered this bid: with the next bid, or by challenging it
                challenged = index == len(showdown.bids) - 1
                faced.append(Faced(bid_probability(rules, bid, own, unseen), challenged))
    winner = state.winner
    return PlayerMetrics(
        won=None if winner is None else int(winner == player),
        challenges=challenges,
        challenges_right=right,
        showdowns=showdowns,
        dice_lost=lost,
        bids=bids,
        bluffs=bluffs,
        faced=tuple(faced),
    )


def calibration(
    faced: list[Faced] | tuple[Faced, ...], bins: int = 5
) -> list[tuple[float, float, int, float | None]]:
    """(low, high, bids faced, share challenged) per probability bin [low, high) (the last bin
    includes 1): the share is None for an empty bin."""
    rows = []
    for index in range(bins):
        low, high = index / bins, (index + 1) / bins
        inside = [
            f
            for f in faced
            if low <= f.probability < high or (index == bins - 1 and f.probability == 1)
        ]
        share = sum(f.challenged for f in inside) / len(inside) if inside else None
        rows.append((low, high, len(inside), share))
    return rows


def showdown_is_consistent(rules: LiarsDiceRules, showdown: Showdown) -> bool:
    """The stored outcome follows from the revealed dice (for audits of stored matches)."""
    bidder, bid = showdown.bids[-1]
    met = matching(rules, showdown.dice[0] + showdown.dice[1], bid.face)
    loser = showdown.challenger if met >= bid.quantity else bidder
    return met == showdown.matching and loser == showdown.loser


# --- the rows aggregates.parquet holds for a liars_dice condition ---------------------------------
def match_row(state: LiarsDiceState) -> dict[str, dict[str, object]]:
    """Per player seat ("a", "b"): the metrics of one finished (or replayed) match, the counts
    the pooled ratios need and the bids it faced (probability, challenged) for calibration."""
    rows: dict[str, dict[str, object]] = {}
    for seat, player in (("a", 0), ("b", 1)):
        found = player_metrics(state, player)  # type: ignore[arg-type]
        rows[seat] = {
            "win_rate": found.won,
            "dice_lost_per_challenge": found.dice_lost_per_challenge,
            "challenge_accuracy": found.challenge_accuracy,
            "bluff_rate": found.bluff_rate,
            "dice_lost": found.dice_lost,
            "showdowns": found.showdowns,
            "challenges_right": found.challenges_right,
            "challenges": found.challenges,
            "bluffs": found.bluffs,
            "bids": found.bids,
            "faced": [(f.probability, f.challenged) for f in found.faced],
        }
    return rows


def _calibration_of_condition(finished: Any, seat: str) -> str:
    """The condition's calibration (`calibration`) over the bids its finished matches' player
    `seat` faced, as JSON: per probability bin, bids faced and the share challenged."""
    faced = [
        Faced(probability, challenged)
        for bids in finished.get(f"faced_{seat}", [])
        if isinstance(bids, list)
        for probability, challenged in bids
    ]
    return orjson.dumps(
        [
            {"low": low, "high": high, "faced": n, "challenged_share": share}
            for low, high, n, share in calibration(faced)
        ]
    ).decode()


# Each stored per player seat (<stem>_a, <stem>_b); a pooled ratio sums its counts over a
# condition's finished matches before dividing.
register_game_rows(
    ("liars_dice",),
    lambda match: match_row(match.state),
    (
        Metric(
            stem="win_rate",
            label="Win rate",
            short="win",
            help="share of matches the player won",
            kind="rate",
            per_agent=True,
            shown="win",
            shown_at=0,
        ),
        Metric(
            stem="dice_lost_per_challenge",
            label="Dice lost per challenge",
            short="dice lost/chall.",
            help="dice lost per showdown the player took part in",
            kind="count",
            per_agent=True,
            pooled=("dice_lost", "showdowns"),
            shown="dice lost/chall.",
            shown_value="pooled",
            shown_at=3,
        ),
        Metric(
            stem="challenge_accuracy",
            label="Challenge accuracy",
            short="challenge acc.",
            help="share of the player's challenges that were right (the bid was not met)",
            kind="rate",
            per_agent=True,
            pooled=("challenges_right", "challenges"),
            shown="challenge acc.",
            shown_value="pooled",
            shown_at=1,
        ),
        Metric(
            stem="bluff_rate",
            label="Bluff rate",
            short="bluff",
            help="share of the player's bids whose probability given its own dice was below 0.5",
            kind="rate",
            per_agent=True,
            pooled=("bluffs", "bids"),
            shown="bluff",
            shown_value="pooled",
            shown_at=2,
        ),
        Metric(
            stem="calibration",
            label="Challenge calibration",
            short="calibration",
            help="per probability bin, the bids the player faced and the share it challenged (JSON)",
            kind="rate",
            per_agent=True,
            shape="condition",
            compute=_calibration_of_condition,
        ),
    ),
)
