"""Mediators and contracts (CoopEval's, research doc 1.4 and 1.5): their shapes, what they do to
a played profile, whether they make mutual cooperation an equilibrium, and the designs and
values the house players compute from the payoffs.

- A mediator is one base action per number of delegators k = 1..N (`{"1": "A0", ..., "N":
  "A1"}`); the delegate action is the extra token A{n}. After the draw, the k delegators'
  actions are all replaced by mediator[k] (`mediation.py@8559e85:286-309`).
- A contract is one whole number per base action (`{"A0": 0, "A1": -3}`): a player whose
  realised action a has c[a] receives c[a] (pays it when negative), and each other player pays
  (receives) c[a] / (N - 1) (`contracting.py@8559e85:236-292`); zero-sum over the players.
- Equilibrium checks (CoopEval's design quality, `mediation_design_quality.py:78-159`,
  `contract_design_quality.py:78-153`): a mediator counts when everyone delegating plays the
  cooperative action (mediator[N] = A0) and no player gains by playing any base action itself
  while the others delegate (then mediator[N-1] plays for them); a contract counts when no
  player gains by leaving mutual cooperation under the contract-adjusted payoffs. (CoopEval also
  counts weak dominance, which implies the equilibrium.)
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from collections.abc import Mapping, Sequence
from fractions import Fraction

from pdbench.games.normal_form.base_games import BaseGame, Profile, token

Mediator = tuple[int, ...]  # index k-1: the action played for k delegators
Contract = tuple[int, ...]  # index a: the payment for realised action a


# --- shapes --------------------------------------------------------------------------------


def mediator_problem(game: BaseGame, value: object) -> str | None:
    keys = [str(k) for k in range(1, game.players + 1)]
    if not isinstance(value, Mapping) or sorted(map(str, value)) != sorted(keys):
        return f"a mediator gives an action for each number of delegators: keys {', '.join(keys)}"
    for k, action in value.items():
        if action not in game.tokens:
            return f"mediator[{k}] must be one of {', '.join(game.tokens)}, got {action!r}"
    return None


def mediator_of(game: BaseGame, value: Mapping[str, str]) -> Mediator:
    return tuple(game.tokens.index(value[str(k)]) for k in range(1, game.players + 1))


def mediator_json(mediator: Mediator) -> dict[str, str]:
    return {str(k): token(a) for k, a in enumerate(mediator, start=1)}


def contract_problem(game: BaseGame, value: object) -> str | None:
    if not isinstance(value, Mapping) or sorted(value) != sorted(game.tokens):
        return f"a contract gives a whole number for each action: keys {', '.join(game.tokens)}"
    for action, payment in value.items():
        if isinstance(payment, bool) or not isinstance(payment, int):
            return f"contract[{action}] must be a whole number, got {payment!r}"
    return None


def contract_of(game: BaseGame, value: Mapping[str, int]) -> Contract:
    return tuple(int(value[t]) for t in game.tokens)


def contract_json(contract: Contract) -> dict[str, int]:
    return {token(a): c for a, c in enumerate(contract)}


# --- what they do ----------------------------------------------------------------------------


def design_id(mechanism: str, design: tuple[int, ...]) -> str:
    """A design's id in the records (`design_scope: run`): the first 12 hex digits of the
    sha256 of its JSON, so matches reusing one design show the same id."""
    shown = mediator_json(design) if mechanism == "mediation" else contract_json(design)
    text = json.dumps({mechanism: shown}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def mediated(
    game: BaseGame, played: Profile, mediator: Mediator
) -> tuple[Profile, tuple[bool, ...]]:
    """The realised base profile and who delegated: `played` holds base actions or the delegate
    action (index `game.actions`)."""
    delegated = tuple(a == game.actions for a in played)
    k = sum(delegated)
    realised = tuple(mediator[k - 1] if d else a for a, d in zip(played, delegated, strict=True))
    return realised, delegated


def transfers(contract: Contract, realised: Profile) -> tuple[Fraction, ...]:
    """Each player's net payment under a binding contract (module docstring)."""
    n = len(realised)
    net = [Fraction(0)] * n
    for i, action in enumerate(realised):
        payment = Fraction(contract[action])
        net[i] += payment
        for j in range(n):
            if j != i:
                net[j] -= payment / (n - 1)
    return tuple(net)


def adjusted(game: BaseGame, contract: Contract, profile: Profile) -> tuple[Fraction, ...]:
    base = game.payoffs(profile)
    return tuple(p + t for p, t in zip(base, transfers(contract, profile), strict=True))


# --- equilibrium checks ----------------------------------------------------------------------


def mediator_is_equilibrium(game: BaseGame, mediator: Mediator) -> bool:
    n = game.players
    if mediator[n - 1] != game.cooperative:
        return False
    everyone = game.payoffs(game.cooperative_profile())
    for seat in range(n):
        for own in range(game.actions):
            profile = tuple(own if i == seat else mediator[n - 2] for i in range(n))
            if game.payoffs(profile)[seat] > everyone[seat]:
                return False
    return True


def contract_is_equilibrium(game: BaseGame, contract: Contract) -> bool:
    cooperative = game.cooperative_profile()
    everyone = adjusted(game, contract, cooperative)
    for seat in range(game.players):
        for own in range(game.actions):
            profile = tuple(own if i == seat else game.cooperative for i in range(game.players))
            if adjusted(game, contract, profile)[seat] > everyone[seat]:
                return False
    return True


# --- house designs and values ---------------------------------------------------------------


def cooperative_mediator(game: BaseGame) -> Mediator:
    """Plays the cooperative action for any number of delegators."""
    return (game.cooperative,) * game.players


def punishing_mediator(game: BaseGame) -> Mediator:
    """Cooperates when all delegate; otherwise plays, for the delegators, the action that
    leaves a lone deviator the least it can get (its best reply's payoff), so that delegating
    is an equilibrium whenever some action can deter the deviation."""
    n = game.players

    def deviators_best(action: int) -> Fraction:
        return max(
            game.payoffs(tuple(own if i == seat else action for i in range(n)))[seat]
            for seat in range(n)
            for own in range(game.actions)
        )

    deterrent = min(range(game.actions), key=lambda a: (deviators_best(a), a))
    return (deterrent,) * (n - 1) + (game.cooperative,)


def selfish_mediator(game: BaseGame) -> Mediator:
    """Plays the defecting action for any number of delegators."""
    return (game.defecting,) * game.players


def temptation_contract(game: BaseGame) -> Contract:
    """Makes every other action cost its temptation: a player choosing action a while all the
    others cooperate pays what a gains it over cooperating (PD: T - R), rounded up to a whole
    number (contracts are whole numbers); the cooperative action pays nothing."""
    cooperative = game.cooperative_profile()
    contract = []
    for action in range(game.actions):
        gain = max(
            game.payoffs(
                tuple(action if i == seat else game.cooperative for i in range(game.players))
            )[seat]
            - game.payoffs(cooperative)[seat]
            for seat in range(game.players)
        )
        contract.append(-math.ceil(gain) if action != game.cooperative and gain > 0 else 0)
    return tuple(contract)


def null_contract(game: BaseGame) -> Contract:
    return (0,) * game.actions


def _security(payoff_of: Sequence[Sequence[Fraction]]) -> Fraction:
    """max over own choices of min over the others' choices (rows: own choice)."""
    return max(min(row) for row in payoff_of)


def mediator_security(game: BaseGame, mediator: Mediator, seat: int) -> Fraction:
    """The most `seat` can guarantee itself under `mediator` (delegating or not), whatever the
    others choose (delegating or not)."""
    choices = range(game.actions + 1)
    rows = []
    for own in choices:
        row = []
        for others in itertools.product(choices, repeat=game.players - 1):
            played = (*others[:seat], own, *others[seat:])
            realised, _ = mediated(game, played, mediator)
            row.append(game.payoffs(realised)[seat])
        rows.append(row)
    return _security(rows)


def contract_security(game: BaseGame, contract: Contract, seat: int) -> Fraction:
    """The most `seat` can guarantee itself under `contract` when it binds."""
    rows = []
    for own in range(game.actions):
        row = []
        for others in itertools.product(range(game.actions), repeat=game.players - 1):
            profile = (*others[:seat], own, *others[seat:])
            row.append(adjusted(game, contract, profile)[seat])
        rows.append(row)
    return _security(rows)


def best_reply_to_cooperation(game: BaseGame, seat: int, contract: Contract | None) -> int:
    """`seat`'s best action when all the others cooperate (under `contract` when it binds);
    ties go to the cooperative action, then to the lowest index."""

    def value(own: int) -> Fraction:
        profile = tuple(own if i == seat else game.cooperative for i in range(game.players))
        payoffs = adjusted(game, contract, profile) if contract else game.payoffs(profile)
        return payoffs[seat]

    return max(range(game.actions), key=lambda a: (value(a), a == game.cooperative, -a))
