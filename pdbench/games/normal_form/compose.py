"""`game=pd mechanism=mediation` on the Hydra command line: the condition's game, a 2x2 game (or
public goods) with a mechanism other than `none`, becomes this package's turn game built from it
(the first step of issue 43's "2x2 games under the contract": one turn runner, turn records,
turn aggregates), and its 2x2 house players their counterparts here.

- A 2x2 game: `base` is its id, `payoffs` and `labels` the condition's (its conf/game/ file's,
  or the command line's), so `game=pd` plays pd's payoffs; noise and a negotiation phase are not
  played under a mechanism (refused).
- `public_goods`: CoopEval's binary public goods game (research doc 2, 6.1) with the condition's
  `players` and `multiplier` (the endowment is 1 and a contribution all or nothing: the other
  public goods options do not apply).
- `travellers_dilemma` and `trust_game` (CoopEval's, `base_games`): games of this package alone,
  so `game=travellers_dilemma` plays this game under every mechanism, `none` too (the base game
  each round); the traveller's dilemma's `options` (min_claim, num_actions, claim_spacing,
  bonus) pass on as they are, the trust game has none.
- The mechanism's options (conf/mechanism/<name>.yaml): `rounds` (null: the fixed horizon's
  rounds), `decide`, `strategies`, `lookup_depth`, `reputation_order`, `matching`, `discount`,
  `continuation`, `design_scope`, `reputation_shown` and `norm` (`options`).
- `reputation` (CoopEval's Reputation) re-matches a population every round, so it needs the
  number of seats the condition binds (`seats`: agent_a, agent_b, ... or a population's total),
  a multiple of the group size with at least 2 groups; fewer is a problem naming `population`
  and what to bind. A 2x2 game plays this package's game with `groups` = seats / 2; public
  goods plays its own game (it has reputation already, docs/public-goods.md) with its options
  as composed and `matching: seat_groups` (CoopEval's: one player of each position a group), `reputation_depth` = lookup_depth, `reputation_order`,
  `rounds` (when the mechanism sets them) and `groups` = seats / its `players`; `strategies` and
  `decide` do not apply there (an amount is answered), and its seats keep their agents.
- Seats bound to the 2x2 policies allc, alld, tft or random (conf/config.yaml's default seats
  are tft) play mech_allc, mech_alld, mech_tft, mech_random; any other 2x2 policy is refused
  when the condition is validated, naming the seat.
`mechanism=none` leaves the condition as it is: the 2x2 engine, byte for byte as before; only a
sweep that crosses `none` with another mechanism (`mechanism=none,mediation`) plays its `none`
conditions as this game with mechanism none (the base game each round, `rounds` from
conf/mechanism/none.yaml or the horizon), since a run plays one family of games.

A problem is a `MechanismProblem` naming the field (`mechanism.rounds`, `mechanism`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pdbench.games.base import SEAT_LETTERS, player_seats
from pdbench.games.normal_form.options import CLAIM_OPTIONS, MECHANISMS
from pdbench.games.normal_form.rules import NormalForm, rules_of
from pdbench.games.tables import GAMES as MATRIX_GAMES

GAME_ID = NormalForm.id
TWO_PLAYER_BASES = ("travellers_dilemma", "trust_game")  # CoopEval's, played only as this game
MECHANISM_OPTIONS = (
    "rounds",
    "decide",
    "strategies",
    "lookup_depth",
    "reputation_order",
    "matching",
    "discount",
    "continuation",
    "design_scope",
    "reputation_shown",
    "norm",
)
COUNTERPARTS = {
    "allc": "mech_allc",
    "alld": "mech_alld",
    "tft": "mech_tft",
    "random": "mech_random",
}


class MechanismProblem(ValueError):
    def __init__(self, field: str, reason: str) -> None:
        super().__init__(reason)
        self.field = field
        self.reason = reason


def under_mechanism(
    game: Mapping[str, Any],
    mechanism: Mapping[str, Any],
    horizon: Mapping[str, Any],
    none_as_turn_game: bool = False,
    seats: int | None = None,
) -> dict[str, Any] | None:
    """The game node of `game` played under `mechanism` (module docstring); None for `none`,
    unless `none_as_turn_game` (a sweep crossing `none` with other mechanisms: a run plays one
    family, so its `none` conditions play this game too, the base game each round)."""
    kind = mechanism.get("type")
    if kind not in MECHANISMS:
        raise MechanismProblem(
            "mechanism.type", f"must be one of {', '.join(MECHANISMS)}, got {kind!r}"
        )
    unknown = sorted(set(mechanism) - {"type", *MECHANISM_OPTIONS})
    if unknown:
        raise MechanismProblem(
            f"mechanism.{unknown[0]}",
            f"unknown field; a mechanism has {', '.join(MECHANISM_OPTIONS)}",
        )
    game_id = str(game.get("id"))
    if kind == "reputation" and game_id == "public_goods":
        return _public_goods_reputation(game, mechanism, seats)
    own_game = game_id in TWO_PLAYER_BASES  # played only here, under every mechanism and none
    as_turn_game = own_game or (none_as_turn_game and game_id in (*MATRIX_GAMES, "public_goods"))
    if kind == "none" and not as_turn_game:
        return None
    options: dict[str, Any] = {"base": game_id, "mechanism": kind}
    if game_id in MATRIX_GAMES:
        for name in ("payoffs", "labels"):
            if game.get(name) is not None:
                options[name] = game[name] if name == "payoffs" else list(game[name])
        if game.get("noise"):
            raise MechanismProblem("game.noise", "a game under a mechanism is played without noise")
        if game.get("negotiation") is not None:
            raise MechanismProblem(
                "game.negotiation", "a game under a mechanism has no negotiation phase"
            )
    elif game_id == "public_goods":
        given = game.get("options") or {}
        options["players"] = given.get("players", 3)
        multiplier = given.get("multiplier", 1.5)
        # a whole multiplier (2) is the number 2.0 here, as public goods reads it
        number = isinstance(multiplier, int) and not isinstance(multiplier, bool)
        options["multiplier"] = float(multiplier) if number else multiplier
    elif own_game:
        given = dict(game.get("options") or {})
        unknown = sorted(set(given) - set(CLAIM_OPTIONS if game_id == "travellers_dilemma" else ()))
        if unknown:
            raise MechanismProblem(f"game.options.{unknown[0]}", f"{game_id} has no such option")
        options.update(given)
    else:
        raise MechanismProblem(
            "mechanism",
            f"{game_id} is not played under a mechanism: mechanisms play the 2x2 games "
            f"({', '.join(MATRIX_GAMES)}), public_goods, {' and '.join(TWO_PLAYER_BASES)}; "
            "leave mechanism=none",
        )
    for name in MECHANISM_OPTIONS:
        if mechanism.get(name) is not None:
            options[name] = mechanism[name]
    if kind == "reputation":
        options["groups"] = _groups(seats, int(options.get("players", 2)))
    if mechanism.get("rounds") is None:
        if horizon.get("type") != "fixed":
            raise MechanismProblem(
                "mechanism.rounds",
                "set the rounds of a match under a mechanism: it takes a fixed horizon's rounds, "
                "and this horizon is not fixed",
            )
        options["rounds"] = horizon.get("rounds", 20)
    try:
        rules_of(options)
    except ValueError as error:
        raise MechanismProblem(_field_of(str(error), game_id), str(error)) from None
    node: dict[str, Any] = {"id": GAME_ID, "options": options}
    if game.get("max_turns") is not None:
        node["max_turns"] = game["max_turns"]
    return node


def _groups(seats: int | None, size: int) -> int:
    """The groups a population of `seats` seats forms (module docstring)."""
    if seats is None or seats < 2 * size or seats % size:
        bound = "no seat count" if seats is None else f"{seats} seats"
        fewest = 2 * size
        how = "population: {agent: count, ...}"
        if fewest <= len(SEAT_LETTERS):  # the seat fields agent_a .. agent_j can bind them too
            how = f"agent_a .. agent_{player_seats(fewest)[-1]}, or {how}"
        raise MechanismProblem(
            "population",
            f"reputation re-matches a population every round into groups of {size}: bind a "
            f"multiple of {size}, at least {fewest} seats ({how}); {bound} bound",
        )
    return seats // size


def _public_goods_reputation(
    game: Mapping[str, Any], mechanism: Mapping[str, Any], seats: int | None
) -> dict[str, Any]:
    """Public goods' own reputation (module docstring)."""
    if mechanism.get("discount", 1) != 1:
        raise MechanismProblem(
            "mechanism.discount",
            "public goods' own reputation game sums its rounds; a discount is for the 2x2 "
            "games (and the binary public goods game under repetition)",
        )
    if mechanism.get("continuation") is not None:
        raise MechanismProblem(
            "mechanism.continuation",
            "public goods' own reputation game plays its rounds; a continuation chance is for "
            "the 2x2 games",
        )
    if mechanism.get("matching", "random") != "random":
        raise MechanismProblem(
            "mechanism.matching",
            "public goods' own reputation game matches CoopEval's seat groups at random; "
            "round_robin is for the 2x2 games",
        )
    if mechanism.get("reputation_shown", "history") != "history":
        raise MechanismProblem(
            "mechanism.reputation_shown",
            "public goods' own reputation game shows the history tree; an image under a norm "
            "is for the 2x2 games",
        )
    if mechanism.get("norm") is not None:
        raise MechanismProblem(
            "mechanism.norm", "a norm is for reputation_shown image, in the 2x2 games"
        )
    options = dict(game.get("options") or {})
    players = int(options.get("players", 4))
    options["groups"] = _groups(seats, players)
    options["matching"] = "seat_groups"  # CoopEval's RandomMatcher: one player per position
    options["reputation_depth"] = mechanism.get("lookup_depth", 3)
    options["reputation_order"] = mechanism.get("reputation_order", 1)
    if mechanism.get("rounds") is not None:
        options["rounds"] = mechanism["rounds"]
    # the public goods rules check these when the condition is validated (game.options.*)
    return {**game, "options": options}


def _field_of(message: str, game_id: str) -> str:
    """The field a problem of the built options is about: a mechanism option, a public goods
    option (`game.options.players`), or a 2x2 game's own field (`game.payoffs`)."""
    named = message.split(" ")[0].split(":")[0]
    if named in MECHANISM_OPTIONS:
        return f"mechanism.{named}"
    if game_id == "public_goods" or game_id in TWO_PLAYER_BASES:
        return f"game.options.{named}"
    return f"game.{named}"


def counterpart(
    agent: Mapping[str, Any], game: Mapping[str, Any] | None = None
) -> dict[str, Any] | None:
    """The seat's agent under a mechanism when it is a 2x2 house policy with a counterpart
    here (module docstring) and the game played is this one; None: keep it."""
    if game is not None and game.get("id") != GAME_ID:
        return None
    if agent.get("type") != "policy" or agent.get("params"):
        return None
    policy = agent.get("policy")
    if policy not in COUNTERPARTS:
        return None
    return {**agent, "policy": COUNTERPARTS[str(policy)]}
