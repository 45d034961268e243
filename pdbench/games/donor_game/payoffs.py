"""What a round of donations pays (`settle`) and whether an answer's amount is legal
(`amount_problem`): pure functions of the options, the resources when the donors chose, the
pairs and the answers.

- Binary giving: a donor who gives pays c, its recipient gains b.
- Continuous giving: a donor gives x, 0 <= x <= its resources; its recipient gains (b / c) x.
- Costly punishment (with continuous giving): a donor may instead punish, `{"type": "punish",
  "amount": x}`: it pays x and its recipient loses `punishment_factor` x (Vallinder & Hughes:
  "spending x units to take away 2x"). A player's resources never go below 0: a round's
  gifts received, its own spending and the punishments it took are summed and the total floored
  at 0 (all donors choose at once; Vallinder & Hughes floor a punished recipient at 0).

Amounts are exact fractions; an amount equal to the donor's resources as it is shown them (a
float, or a prompt's six digits) gives exactly all of them (`given`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from pdbench.core.phrases import written_number
from pdbench.games.donor_game.observation import as_number
from pdbench.games.donor_game.options import Options, exact


def all_of(amount: Fraction, held: Fraction) -> bool:
    """Whether `amount` is the resources `held` as a donor is shown them (a float, or a prompt's
    six digits: 20/3 is shown 6.66667): giving that gives exactly all of them."""
    shown = as_number(held)
    return float(amount) == float(shown) or written_number(amount) == written_number(shown)


def given(amount: Fraction, held: Fraction) -> Fraction:
    """The amount a legal answer gives: all of `held` when it names them as shown."""
    return min(amount, held)


def _amount(value: object) -> Fraction | None:
    """An answer's amount as an exact fraction (None: not a finite number)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return None
    return exact(value)


def kinds(options: Options) -> tuple[str, ...]:
    """The answer types a donor may give."""
    return ("donate", "punish") if options.punishment else ("donate",)


def amount_problem(options: Options, held: Fraction, action: Mapping[str, Any]) -> str | None:
    """Why a continuous answer is illegal for a donor holding `held`, or None."""
    if action.get("type") not in kinds(options):
        allowed = " or ".join(f'"{kind}"' for kind in kinds(options))
        return f"type must be {allowed} in the donate phase, got {action.get('type')!r}"
    amount = _amount(action.get("amount"))
    if amount is None:
        return f'"amount" must be a number, got {action.get("amount")!r}'
    if amount < 0 or (amount > held and not all_of(amount, held)):
        shown = written_number(as_number(held))
        return f'"amount" must be from 0 to your resources {shown}, got {action["amount"]!r}'
    return None


@dataclass(frozen=True)
class Settled:
    """A round's donations settled, by population index."""

    gave: tuple[bool, ...]
    earnings: tuple[Fraction, ...]
    amounts: tuple[Fraction, ...] | None  # continuous giving
    punished: tuple[bool, ...] | None  # with punishment


def settle(
    options: Options,
    totals: Sequence[Fraction],
    recipients: Sequence[int | None],
    answers: Sequence[Mapping[str, Any] | None],
) -> Settled:
    """The round's gifts and earnings (module docstring); `answers` by population index, None
    for a player who does not donate this round (`recipients[i]` None: it gives nothing, pays
    nothing, punishes nobody)."""
    earnings = [Fraction(0)] * len(totals)
    if not options.continuous:
        gave = tuple(a is not None and bool(a["give"]) for a in answers)
        cost, benefit = exact(options.cost), exact(options.benefit)
        for donor, recipient in enumerate(recipients):
            if recipient is not None and gave[donor]:
                earnings[donor] -= cost
                earnings[recipient] += benefit
        return Settled(gave, tuple(earnings), None, None)
    amounts = tuple(
        Fraction(0) if a is None else given(exact(a["amount"]), held)
        for a, held in zip(answers, totals, strict=True)
    )
    punished = tuple(a is not None and a["type"] == "punish" for a in answers)
    for donor, recipient in enumerate(recipients):
        if recipient is None:
            continue
        earnings[donor] -= amounts[donor]
        if punished[donor]:
            earnings[recipient] -= exact(options.punishment_factor) * amounts[donor]
        else:
            earnings[recipient] += options.benefit_factor * amounts[donor]
    # never below 0: a floored player's earnings are what it lost down to nothing
    earnings = [max(e, -held) for e, held in zip(earnings, totals, strict=True)]
    gave = tuple(x > 0 and not p for x, p in zip(amounts, punished, strict=True))
    return Settled(gave, tuple(earnings), amounts, punished if options.punishment else None)
