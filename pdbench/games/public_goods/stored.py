"""A stored public goods match read back into rounds, from its turn lines alone (the shape
pdbench.runners.turn_records writes: per turn `round`, `phase`, `actions` {seat: action} and
`revealed`; the last line's `outcome` with the scores and the variant's `options`).

What each round is built from: the messages from the talk turns' actions, in the order said; the
groups, labels and contributions from the contribute turn's `revealed`; the punishment asked for
from the punish turn's actions (labels read through the punisher's group), what took effect and
the earnings from the `revealed` of the turn that closed the round.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

Line = Mapping[str, Any]


@dataclass(frozen=True)
class StoredRound:
    round_number: int
    groups: tuple[tuple[str, ...], ...]  # seats per group, in label order
    labels: dict[str, str]  # seat -> its label this round
    available: dict[str, float]  # seat -> what it could contribute (E, or its balance)
    messages: tuple[tuple[str, str], ...]  # (seat, text), in the order said (all groups)
    contributions: dict[str, int]
    punish_phase: bool
    requested: dict[str, dict[str, int]]  # punisher seat -> target seat -> points asked
    punished: dict[str, dict[str, int]]  # ... the points that took effect
    earnings: dict[str, float]
    funds: tuple[dict[str, Any], ...] | None  # balance accounting: each group's account
    punish_order: tuple[tuple[str, ...], ...] | None  # when caps made the order matter

    def group_of(self, seat: str) -> tuple[str, ...]:
        return next(group for group in self.groups if seat in group)


def options_of(lines: Sequence[Line]) -> dict[str, Any]:
    """The variant's options, from the last line's outcome."""
    return dict(lines[-1]["outcome"]["options"])


def read_rounds(lines: Sequence[Line], options: Mapping[str, Any]) -> list[StoredRound]:
    """The match's finished rounds, in order."""
    by_round: dict[int, list[Line]] = {}
    for line in lines:
        by_round.setdefault(int(line["round"]), []).append(line)
    balance = options["accounting"] == "balance"
    wealth: dict[str, float] = {}
    rounds = []
    for number in sorted(by_round):
        turns = by_round[number]
        contribute = next((t for t in turns if t["phase"] == "contribute"), None)
        closing = turns[-1]["revealed"] or {}
        if contribute is None or "earnings" not in closing:
            break  # an unfinished round (an aborted match)
        shown = contribute["revealed"]
        groups = tuple(tuple(group) for group in shown["groups"])
        labels = dict(shown["labels"])
        if not wealth:
            wealth = dict.fromkeys(labels, float(options["endowment"]) if balance else 0.0)
        punish = next((t for t in turns if t["phase"] == "punish"), None)
        requested: dict[str, dict[str, int]] = {}
        if punish is not None:
            for seat, action in punish["actions"].items():
                group = next(g for g in groups if seat in g)
                seat_of = {labels[s]: s for s in group}
                given = {seat_of[t]: int(n) for t, n in action["points"].items() if int(n) > 0}
                if given:
                    requested[seat] = given
        rounds.append(
            StoredRound(
                round_number=number,
                groups=groups,
                labels=labels,
                available={
                    s: max(wealth[s], 0.0) if balance else float(options["endowment"])
                    for s in labels
                },
                messages=tuple(
                    (seat, str(action["text"]))
                    for turn in turns
                    if turn["phase"] == "talk"
                    for seat, action in turn["actions"].items()
                ),
                contributions={s: int(c) for s, c in shown["contributions"].items()},
                punish_phase=punish is not None,
                requested=requested,
                punished={s: dict(given) for s, given in closing.get("punished", {}).items()},
                earnings={s: float(e) for s, e in closing["earnings"].items()},
                funds=tuple(shown["funds"]) if "funds" in shown else None,
                punish_order=(
                    tuple(tuple(g) for g in closing["punish_order"])
                    if "punish_order" in closing
                    else None
                ),
            )
        )
        wealth = {s: wealth[s] + rounds[-1].earnings[s] for s in wealth}
    return rounds
