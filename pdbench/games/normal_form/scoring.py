"""A seat's score from its rounds' payoffs: their sum, or under `discount` d < 1 CoopEval's
discounted average, the number CoopEval ranks players by under repetition and reputation.

CoopEval (Xiao215/CoopEval@8559e85) always plays `num_rounds` rounds (`repetition.py:198`), tells
the players a d x 100% chance of another round (`repetition.py:52-65`, `prompts.py:128-136`) and
scores each player of a match with `PayoffsBase._compute_discounted_average`
(`ranking_evaluations/payoffs_base.py:51-82`): round t = 0 .. T-2 weighs (1 - d) d^t and the last
round d^(T-1) ("the entire infinite-horizon tail", lines 69-73), so the weights sum to 1 and the
score is on the scale of one round's payoff. `MatchupPayoffs.agent_average_payoff` ranks models
on it (`matchup_payoffs.py:79-102`, repetition's payoffs built with the mechanism's discount,
`mechanisms/base.py:218-233`); reputation's per agent over its rounds
(`reputation_payoffs.py:60-89`, `reputation.py:69`). Mediation and contracting play one round
with no discount (`mechanisms/base.py:23-24`): weight 1.

At d = 1 CoopEval's formula would count the last round alone (it warns so, `payoffs_base.py:
63-67`); pdbench's d = 1 is its plain sum, as every score was before `discount` existed. The
weights are exact fractions (d is read from its decimal: 0.8 is 4/5), so a stored score is the
same float on every machine.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction


def exact(discount: float) -> Fraction:
    """`discount` as the decimal it was written as (0.8 -> 4/5, not the nearest binary)."""
    return Fraction(str(discount))


def weights(discount: float, rounds: int) -> tuple[Fraction, ...]:
    """Each round's weight in a score of `rounds` rounds (module docstring); 1 each at d = 1."""
    d = exact(discount)
    if d == 1:
        return (Fraction(1),) * rounds
    if rounds == 0:
        return ()
    return (*((1 - d) * d**t for t in range(rounds - 1)), d ** (rounds - 1))


def score(payoffs: Sequence[Fraction], discount: float) -> Fraction:
    """One seat's score from its payoff in each round, in order (module docstring)."""
    return sum(
        (w * p for w, p in zip(weights(discount, len(payoffs)), payoffs, strict=True)),
        start=Fraction(0),
    )


def chance_in_percent(discount: float) -> Fraction:
    """The continuation chance a prompt tells (CoopEval: `int(self.discount*100)`, 80 for 0.8)."""
    return exact(discount) * 100
