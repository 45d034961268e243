"""The options of a donor game variant, checked when the variant is built (a bad value is a
ValueError whose message starts with the option's name, as every turn game's rules do, so the
config's error names `game.options.<name>`).

| option | default | meaning |
|---|---|---|
| `players` | 8 | N, the population (2 to the seats a game may have, 100) |
| `rounds` | 10 | rounds in the match; every player donates once a round |
| `cost` | 1 | c: what giving costs the donor |
| `benefit` | 2 | b: what a gift brings the recipient; b > c > 0 (giving creates value) |
| `endowment` | 0 | each player's score before round 1 |
| `norm` | "image_scoring" | the norm judging donors (`norms`): image_scoring, standing, stern_judging, shunning, or none (no image kept or shown) |
| `recent_actions` | 3 | k: the recipient's last k donor actions shown to its donor (0: none) |
| `second_order` | False | each of those actions also shows what its recipient had done before (its last k) |
| `round_limit_disclosed` | True | whether round_state's `round_limit` says `rounds` (else null) |

Giving is binary (give c, the recipient gets b, or nothing): Vallinder & Hughes 2024's donor
gives any amount up to its resources (docs/donor-game.md says what the preset matches).
A score may fall below the endowment and below 0: a donor may always give.
"""

from __future__ import annotations

from dataclasses import dataclass

from pdbench.games.base import MAX_SEATS
from pdbench.games.donor_game.norms import NORM_CHOICES, NORMS, Norm


def _whole(name: str, value: object, low: int, high: int | None = None) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be a whole number, got {value!r}")
    if value < low or (high is not None and value > high):
        span = f"from {low} to {high}" if high is not None else f"at least {low}"
        raise ValueError(f"{name} must be {span}, got {value}")


def _number(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        raise ValueError(f"{name} must be a number, got {value!r}")


@dataclass(frozen=True)
class Options:
    """A variant of the donor game (the table in the module docstring)."""

    players: int = 8
    rounds: int = 10
    cost: float = 1.0
    benefit: float = 2.0
    endowment: float = 0.0
    norm: str = "image_scoring"
    recent_actions: int = 3
    second_order: bool = False
    round_limit_disclosed: bool = True

    def __post_init__(self) -> None:
        _whole("players", self.players, 2, MAX_SEATS)
        _whole("rounds", self.rounds, 1)
        for name in ("cost", "benefit", "endowment"):
            _number(name, getattr(self, name))
        if self.cost <= 0:
            raise ValueError(f"cost must be above 0 (b > c > 0), got {self.cost:g}")
        if self.benefit <= self.cost:
            raise ValueError(
                f"benefit must be above cost (b > c > 0: a gift must be worth more to its "
                f"recipient than it costs its donor), got benefit {self.benefit:g} and cost "
                f"{self.cost:g}"
            )
        if self.norm not in NORM_CHOICES:
            raise ValueError(f"norm must be one of {', '.join(NORM_CHOICES)}, got {self.norm!r}")
        _whole("recent_actions", self.recent_actions, 0)
        for name in ("second_order", "round_limit_disclosed"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be true or false, got {getattr(self, name)!r}")
        if self.second_order and self.recent_actions == 0:  # else silently nothing to expand
            raise ValueError("second_order needs recent_actions of at least 1")

    @property
    def judged_by(self) -> Norm | None:
        """The norm keeping images, None when `norm` is none."""
        return next((n for n in NORMS if n == self.norm), None)
