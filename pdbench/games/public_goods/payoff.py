"""A round's money: the public account and the punishment stage, in exact arithmetic.

Every amount is a `Fraction` (a multiplier of 1.6 is 8/5, not the float 1.6000000000000000888),
so a round's earnings are exact, the same on every machine, and converted to a float only when
shown or stored.

The public account of one group (`fund`): with contributions c_1..c_N and the carry-in K (always
0 under per-round accounting), the pot is (K + sum c) * m, each member's share pot / N. Under
`balance` accounting (pgg_bench: "We only use whole numbers") the pot is rounded down, each share
is pot // N, and the remainder stays in the account for the group's next round.

A member's purse after the account is paid out (`first stage`): what it could contribute this
round (E, or its balance under balance accounting) minus its contribution plus its share.

The punishment stage (`resolve_punishment`): each point costs its giver `cost` and its target
`fine`. Without caps the order of the points does not matter: every giver pays in full and, when
earnings may not go negative, each target's fines are cut so that its purse, after its own
punishing, ends at no less than 0. With pgg_bench's caps (a target loses at most `cap_fraction`
of its purse and at most `cap_absolute`, judged as each punishment lands) the points are applied
one punisher after another in a seeded order, as pgg_bench does: a punishment that would take
more than the cap allows is cut to the most whole points whose fine fits (floor(cap / fine)),
and the giver pays only for those (pgg_bench refunds the rest); when earnings may not go
negative, no purse is taken below 0 either way (a giver pays at most what it still holds, a case
pgg_bench's published logs never show).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction


def exact(value: float | int | Fraction) -> Fraction:
    """A config number as an exact fraction: 1.6 -> 8/5 (its shortest decimal form)."""
    if isinstance(value, Fraction):
        return value
    return Fraction(str(value)) if isinstance(value, float) else Fraction(value)


def shown(value: Fraction) -> float:
    """An amount as a player and the stored record see it."""
    return float(value)


@dataclass(frozen=True)
class Fund:
    """One group's public account in one round."""

    carry_in: Fraction
    pot: Fraction  # what is paid out
    share: Fraction  # each member's part of the pot
    leftover: Fraction  # what stays for the group's next round (balance accounting)


def fund(
    contributions: Sequence[int], multiplier: Fraction, carry_in: Fraction, whole: bool
) -> Fund:
    size = len(contributions)
    raised = (carry_in + sum(contributions)) * multiplier
    if not whole:
        return Fund(carry_in, raised, raised / size, Fraction(0))
    pot = Fraction(math.floor(raised))
    share = Fraction(int(pot) // size)
    return Fund(carry_in, pot, share, pot - share * size)


@dataclass(frozen=True)
class PunishRules:
    cost: Fraction
    fine: Fraction
    no_negative: bool  # a purse may not end a round below 0
    cap_fraction: Fraction | None = None
    cap_absolute: Fraction | None = None

    @property
    def sequential(self) -> bool:
        """Whether the caps make the order of the punishments matter."""
        return self.cap_fraction is not None or self.cap_absolute is not None

    def spending_limit(self, purse: Fraction) -> Fraction | None:
        """The most a player may spend on punishing, when its purse limits it (None: no
        limit besides `max_punish`)."""
        return max(purse, Fraction(0)) if self.no_negative else None


@dataclass(frozen=True)
class Punished:
    """The punishment stage's result: the points that took effect (giver -> target -> points,
    positive only) and each member's purse after it."""

    applied: dict[int, dict[int, int]]
    purses: dict[int, Fraction]


def resolve_punishment(
    purses: Mapping[int, Fraction],
    points: Mapping[int, Mapping[int, int]],
    rules: PunishRules,
    order: Sequence[int],
) -> Punished:
    """Apply one group's punishment points (giver -> target -> points, each legal) to its
    members' `purses`; `order` is the givers' order when `rules.sequential`."""
    if rules.sequential:
        return _one_after_another(purses, points, rules, order)
    applied = {giver: {t: n for t, n in given.items() if n > 0} for giver, given in points.items()}
    after = {}
    for member, purse in purses.items():
        spent = rules.cost * sum(applied.get(member, {}).values())
        fined = rules.fine * sum(given.get(member, 0) for given in applied.values())
        if rules.no_negative:
            fined = min(fined, max(purse - spent, Fraction(0)))
        after[member] = purse - spent - fined
    return Punished({g: a for g, a in applied.items() if a}, after)


def _one_after_another(
    purses: Mapping[int, Fraction],
    points: Mapping[int, Mapping[int, int]],
    rules: PunishRules,
    order: Sequence[int],
) -> Punished:
    running = dict(purses)
    applied: dict[int, dict[int, int]] = {}
    for giver in order:
        for target in sorted(points.get(giver, {}), key=list(purses).index):
            wanted = points[giver][target]
            room = [
                cap
                for cap in (
                    rules.cap_fraction * max(running[target], Fraction(0))
                    if rules.cap_fraction is not None
                    else None,
                    rules.cap_absolute,
                    max(running[target], Fraction(0)) if rules.no_negative else None,
                )
                if cap is not None
            ]
            taken = wanted
            if room and rules.fine > 0 and rules.fine * wanted > min(room):
                taken = math.floor(min(room) / rules.fine)
            if rules.no_negative and rules.cost > 0:
                taken = min(taken, math.floor(max(running[giver], Fraction(0)) / rules.cost))
            if taken > 0:
                running[giver] -= rules.cost * taken
                running[target] -= rules.fine * taken
                applied.setdefault(giver, {})[target] = taken
    return Punished(applied, running)
