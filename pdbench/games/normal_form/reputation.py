"""CoopEval's reputation mechanism on a normal-form game (`mechanism: reputation`, research doc
1.3): a population of `players` x `groups` seats, re-matched every round, each group playing the
base game once, each player shown the reputation tree of itself and its new co-players
(`pdbench.games.reputation_tree`, the code public goods' reputation reads too).

- Seat groups. CoopEval's `RandomMatcher` keeps one agent per seat: population index p always
  plays position p mod `players` (Player 1, Player 2, ...), so seats a, c, e, ... are Player 1
  of a 2x2 game and b, d, f, ... Player 2 (what matters only in an asymmetric game).
- Matching: every round the seat groups are formed again (`matching`: CoopEval's random draw
  by default, or a round-robin rotation).
- What is shown (round_state's `reputation`): the window of the last `lookup_depth` global
  rounds; each entry the player's realised `action` ("A0", "A1") and `points`, its co-players'
  with theirs, nested to `reputation_order` levels; names "You" and "Agent #n" (a seeded
  per-match permutation, `reputation_tree.pseudonyms`); each listed player's `label` is its
  position this round ("Player 2").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pdbench.games.normal_form.base_games import token
from pdbench.games.reputation_tree import YOU, Fields, Played, shown_reputation

if TYPE_CHECKING:
    from pdbench.games.normal_form.options import Options
    from pdbench.games.normal_form.state import NormalFormState

FIELDS = Fields(move="action", points="points")


def position_of(groups: tuple[tuple[int, ...], ...], player: int) -> tuple[int, int]:
    """(its group's index, its position in it)."""
    for g, members in enumerate(groups):
        if player in members:
            return g, members.index(player)
    raise ValueError(f"population index {player} is in no group")


def played_rounds(rules: Options, state: NormalFormState) -> list[Played[int]]:
    """The finished rounds as the tree reads them."""
    return [
        Played(
            round_number=r.round_number,
            groups=r.groups or (),
            moves={i: token(a) for i, a in enumerate(r.realised)},
            points={i: float(x) for i, x in enumerate(r.payoffs)},
        )
        for r in state.finished[-rules.lookup_depth :]
        if rules.lookup_depth
    ]


def shown_to(rules: Options, state: NormalFormState, player: int) -> dict[str, Any]:
    """round_state's `reputation` for population index `player` before the current round."""
    assert state.groups is not None
    members = state.groups[position_of(state.groups, player)[0]]
    listed = [(player, f"Player {members.index(player) + 1}")] + [
        (other, f"Player {k + 1}") for k, other in enumerate(members) if other != player
    ]
    return shown_reputation(
        played_rounds(rules, state),
        state.round_number,
        rules.lookup_depth,
        rules.reputation_order,
        listed,
        lambda i: YOU if i == player else state.names[i],
        FIELDS,
    )


def partners_last_actions(round_state: Mapping[str, Any]) -> list[str | None]:
    """Each co-player's action in its newest shown round (None: nothing shown of it), in the
    listed order: what the reputation house players and the measures condition on."""
    reputation = round_state.get("reputation") or {}
    return [
        listed["history"][-1]["action"] if listed["history"] else None
        for listed in reputation.get("players", [])
        if listed["agent"] != YOU
    ]
