"""Every payoff of a stored public goods match computed again from its stored actions, without
the rules' code, and compared with what was stored: the check that the numbers are right
(issue 44, "an independent recomputation of every payoff from the stored rounds matches").

From the stored turns it takes only the chance the rules drew (each round's groups and labels,
and under caps the order punishments were applied in, from `revealed`) and the players'
actions; it computes every round's earnings from the written rules (docs/public-goods.md) in
its own arithmetic and compares them with the stored `revealed` earnings and the outcome's
scores. A second implementation on purpose: a fault in `payoff` or `rules` shows up as a
mismatch here instead of being read back as if it were right.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

Line = Mapping[str, Any]
TOLERANCE = 1e-9


def _exact(value: Any) -> Fraction:
    return Fraction(str(value)) if isinstance(value, float) else Fraction(value)


def _punish(
    purse: dict[str, Fraction],
    asked: dict[str, dict[str, int]],
    options: Mapping[str, Any],
    order: Sequence[str] | None,
) -> dict[str, Fraction]:
    """One group's purses after the punishment stage."""
    cost, fine = _exact(options["punish_cost"]), _exact(options["punish_fine"])
    floor_at_zero = not options["negative_earnings"]
    fraction, absolute = options["punish_cap_fraction"], options["punish_cap_absolute"]
    if fraction is None and absolute is None:
        spent = {s: cost * sum(asked.get(s, {}).values()) for s in purse}
        fined = {s: fine * sum(a.get(s, 0) for a in asked.values()) for s in purse}
        return {
            s: purse[s]
            - spent[s]
            - (min(fined[s], max(purse[s] - spent[s], Fraction(0))) if floor_at_zero else fined[s])
            for s in purse
        }
    left = dict(purse)
    for giver in order or ():
        for target in [s for s in purse if s in asked.get(giver, {})]:
            points = asked[giver][target]
            limits = []
            if fraction is not None:
                limits.append(_exact(fraction) * max(left[target], Fraction(0)))
            if absolute is not None:
                limits.append(_exact(absolute))
            if floor_at_zero:
                limits.append(max(left[target], Fraction(0)))
            if fine > 0 and fine * points > min(limits):
                points = math.floor(min(limits) / fine)
            if floor_at_zero and cost > 0:
                points = min(points, math.floor(max(left[giver], Fraction(0)) / cost))
            left[giver] -= cost * max(points, 0)
            left[target] -= fine * max(points, 0)
    return left


def recompute(lines: Sequence[Line], options: Mapping[str, Any]) -> list[dict[str, Fraction]]:
    """Each finished round's earnings per seat, from the stored actions."""
    endowment, rate = Fraction(options["endowment"]), _exact(options["multiplier"])
    balance = options["accounting"] == "balance"
    rounds: dict[int, list[Line]] = {}
    for line in lines:
        rounds.setdefault(int(line["round"]), []).append(line)
    wealth: dict[str, Fraction] = {}
    carry: dict[int, Fraction] = {}
    found = []
    for number in sorted(rounds):
        turns = {turn["phase"]: turn for turn in rounds[number]}
        if "contribute" not in turns or "earnings" not in (rounds[number][-1]["revealed"] or {}):
            break
        drawn = turns["contribute"]["revealed"]
        labels = drawn["labels"]
        given = {s: int(a["amount"]) for s, a in turns["contribute"]["actions"].items()}
        if not wealth:
            wealth = {s: endowment if balance else Fraction(0) for s in labels}
        punish = turns.get("punish")
        orders = [tuple(g) for g in ((punish or {}).get("revealed") or {}).get("punish_order", [])]
        earned: dict[str, Fraction] = {}
        for index, group in enumerate(drawn["groups"]):
            room = {s: max(wealth[s], Fraction(0)) if balance else endowment for s in group}
            raised = (carry.get(index, Fraction(0)) + sum(given[s] for s in group)) * rate
            if balance:
                share = Fraction(math.floor(raised) // len(group))
                carry[index] = math.floor(raised) - share * len(group)
            else:
                share = raised / len(group)
            purse = {s: room[s] - given[s] + share for s in group}
            if punish is not None:
                by_label = {labels[s]: s for s in group}
                asked = {
                    s: {by_label[t]: int(n) for t, n in punish["actions"][s]["points"].items()}
                    for s in group
                }
                giver_order = next((o for o in orders if set(o) == set(group)), None)
                purse = _punish(purse, asked, options, giver_order)
            for s in group:
                earned[s] = purse[s] - wealth[s] if balance else purse[s]
        found.append(earned)
        wealth = {s: wealth[s] + earned[s] for s in wealth}
    return found


def payoff_mismatches(lines: Sequence[Line], options: Mapping[str, Any]) -> list[str]:
    """Every stored earning and score that the recomputation does not reproduce (empty: all
    match), each as one line naming the round and the seat."""
    problems = []
    totals: dict[str, Fraction] = {}
    stored_rounds = [line for line in lines if "earnings" in (line["revealed"] or {})]
    recomputed = recompute(lines, options)
    if len(recomputed) != len(stored_rounds):
        problems.append(f"{len(stored_rounds)} rounds stored, {len(recomputed)} recomputed")
    for line, earned in zip(stored_rounds, recomputed, strict=False):
        for seat, value in earned.items():
            totals[seat] = totals.get(seat, Fraction(0)) + value
            stored = line["revealed"]["earnings"][seat]
            if abs(stored - float(value)) > TOLERANCE:
                problems.append(
                    f"round {line['round']}, seat {seat}: stored {stored}, recomputed {float(value)}"
                )
    start = Fraction(options["endowment"]) if options["accounting"] == "balance" else 0
    outcome = lines[-1].get("outcome") if lines else None
    if outcome is not None:
        for seat, score in outcome["scores"].items():
            expected = float(start + totals.get(seat, Fraction(0)))
            if abs(score - expected) > TOLERANCE:
                problems.append(f"score of {seat}: stored {score}, recomputed {expected}")
    return problems
