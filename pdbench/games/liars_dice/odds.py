"""How likely a Liar's Dice bid is, given what its bidder (or challenger) can see: the exact
binomial tail used by the probability player, the bluff rate and challenge calibration."""

from __future__ import annotations

import math
from functools import lru_cache

from pdbench.games.liars_dice.rules import Bid, LiarsDiceRules, matching


def bid_probability(
    rules: LiarsDiceRules, bid: Bid, own_dice: tuple[int, ...], unseen: int
) -> float:
    """P(the bid is met | one's own dice), the `unseen` other dice uniform and independent: the
    exact binomial tail P(Binomial(unseen, p) >= quantity - own matches), p = 1/faces (2/faces for
    a face other than 1 when 1s are wild)."""
    needed = bid.quantity - matching(rules, own_dice, bid.face)
    wild = rules.wild_ones and bid.face != 1
    return _tail(unseen, needed, 2 if wild else 1, rules.faces)


@lru_cache(maxsize=4096)
def _tail(n: int, needed: int, hits: int, faces: int) -> float:
    if needed <= 0:
        return 1.0
    if needed > n:
        return 0.0
    p = hits / faces
    return float(sum(math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(needed, n + 1)))
