"""The public goods game played for many matches at once, numpy over the matches (issue 44's
"Performance"): what `rules.PublicGoods` plays turn by turn for one match, here round by round
for all of them, with every seat a house player acting through its `act_batch`
(`policies.Seen`).

The result is, per match, the turns the turn runner would store: the same seats, actions,
`revealed` records, the digest of every observation (the canonical JSON `view.round_state`
gives, built from its parts by `observed_json`) and the scores, all exact
(`vectorised_rounds`, which plays them).

Not played here (`problem` says so, and the runner plays the turn loop instead): balance
accounting, reputation (`reputation_depth` > 0), pgg_bench's punishment caps (their order
matters and is drawn per group), a player without `act_batch`, amounts too large to stay exact
in float64, a match longer than its turn cap; and a message the rules would refuse (found
while playing: `play` raises `Unplayable` and the runner plays those matches by the turn loop).
"""

from __future__ import annotations

from typing import Any

from pdbench.games.public_goods.rules import PublicGoods
from pdbench.games.public_goods.vectorised_rounds import (
    PlayedGroups,
    Turn,
    Unplayable,
    play,
    unit,
)

__all__ = ["PlayedGroups", "Turn", "Unplayable", "play", "problem"]

EXACT_LIMIT = 2**53  # integers a float64 holds exactly


def problem(rules: PublicGoods, players: dict[str, Any], max_turns: int) -> str | None:
    """Why these rules and players cannot be played here (None: they can)."""
    if rules.accounting != "per_round":
        return "balance accounting is played by the turn loop"
    if rules.reputation_depth:
        return "reputation is played by the turn loop"
    if rules.punish_rules.sequential:
        return "punishment caps are played by the turn loop"
    missing = [seat for seat, player in players.items() if not hasattr(player, "act_batch")]
    if missing:
        return f"seat(s) {', '.join(missing)} have no vectorised act"
    if rules.fixed_length().turns > max_turns:
        return "the match would reach its turn cap"
    costs = rules.punish_rules
    most = rules.rounds * (  # a bound on any amount or total of the match
        rules.endowment * (1 + rules.players * rules.rate)
        + rules.max_punish * rules.players * (costs.cost + costs.fine)
    )
    if most * unit(rules) * 4 >= EXACT_LIMIT:
        return "its amounts would not stay exact in float64"
    return None
