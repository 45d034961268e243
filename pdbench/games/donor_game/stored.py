"""A stored donor game match read back into rounds, from its turn lines alone (the shape
pdbench.runners.turn_records writes: per turn `round`, `phase`, `actions` {seat: action} and
`revealed`; the last line's `outcome` with the scores and the variant's `options`). One turn is
one round: the choices are its actions, who donated to whom, the labels, the images (under a
norm) and the earnings its `revealed`; under continuous giving also the amounts given (exact,
as applied: a gift is one above 0 that is no punishment), each seat's resources after the
round and, with punishment, who punished. A match of several games also stores each round's
generation and game and, at a generation's end, its survivors; a strategy phase's turn (its
actions the texts, its revealed the writers and labels) is read by `read_strategies`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

Line = Mapping[str, Any]


@dataclass(frozen=True)
class StoredRound:
    round_number: int
    labels: dict[str, str]  # seat -> its label
    recipients: dict[str, str]  # donor seat -> recipient seat (pairing halves: half the seats)
    gave: dict[str, bool]  # donor seat -> whether it gave
    images_before: dict[str, int] | None  # under a norm: each seat's image when donors chose
    images: dict[str, int] | None  # ... after the round
    earnings: dict[str, float]
    # continuous giving (None when binary): what each donor gave, each seat's resources after
    amounts: dict[str, float] | None = None
    resources: dict[str, float] | None = None
    punished: dict[str, bool] | None = None  # with punishment: donor seat -> it punished
    generation: int = 1  # where the round fell (several games: stored; else 1, 1)
    game: int = 1
    survivors: list[str] | None = None  # the round that ended a generation: who survived

    def donor_of(self, seat: str) -> str | None:
        """Who donated to `seat` this round (None: nobody, under pairing halves)."""
        return next(
            (donor for donor, recipient in self.recipients.items() if recipient == seat), None
        )


@dataclass(frozen=True)
class StoredStrategies:
    """A strategy phase: the generation it opened and each writer's label and text."""

    generation: int
    round_number: int  # the match round it came before
    written: dict[str, tuple[str, str]]  # seat -> (its label, its strategy)


def options_of(lines: Sequence[Line]) -> dict[str, Any]:
    """The variant's options, from the last line's outcome."""
    return dict(lines[-1]["outcome"]["options"])


def seat_order(seats: Sequence[str] | Mapping[str, Any]) -> list[str]:
    """Seats in population order: a, b, ..., z, aa, ..."""
    return sorted(seats, key=lambda s: (len(s), s))


def _numbers(found: Mapping[str, Any] | None) -> dict[str, float] | None:
    return None if found is None else {seat: float(v) for seat, v in found.items()}


def read_rounds(lines: Sequence[Line]) -> list[StoredRound]:
    """The match's finished rounds, in order (a turn without its revealed record, cut short,
    ends them)."""
    rounds = []
    for line in lines:
        shown = line.get("revealed") or {}
        if line.get("phase") == "strategy":
            continue
        if line.get("phase") != "donate" or "recipients" not in shown:
            break
        amounts = _numbers(shown.get("amounts"))
        punished = shown.get("punished")
        gave = (
            {seat: bool(action["give"]) for seat, action in line["actions"].items()}
            if amounts is None
            else {
                seat: amount > 0 and not (punished or {}).get(seat, False)
                for seat, amount in amounts.items()
            }
        )
        rounds.append(
            StoredRound(
                round_number=int(line["round"]),
                labels=dict(shown["labels"]),
                recipients=dict(shown["recipients"]),
                gave=gave,
                images_before=dict(shown["images_before"]) if "images_before" in shown else None,
                images=dict(shown["images"]) if "images" in shown else None,
                earnings={seat: float(e) for seat, e in shown["earnings"].items()},
                amounts=amounts,
                resources=_numbers(shown.get("resources")),
                punished=None if punished is None else dict(punished),
                generation=int(shown.get("generation", 1)),
                game=int(shown.get("game", 1)),
                survivors=list(shown["survivors"]) if "survivors" in shown else None,
            )
        )
    return rounds


def read_strategies(lines: Sequence[Line]) -> list[StoredStrategies]:
    """The match's strategy phases, in order (generations only)."""
    found = []
    for line in lines:
        shown = line.get("revealed") or {}
        if line.get("phase") != "strategy" or "writers" not in shown:
            continue
        labels = shown["labels"]
        found.append(
            StoredStrategies(
                generation=int(shown["generation"]),
                round_number=int(line["round"]),
                written={
                    seat: (labels[seat], str(line["actions"][seat]["text"]))
                    for seat in shown["writers"]
                },
            )
        )
    return found
