"""The options of a donor game variant, checked when the variant is built (a bad value is a
ValueError whose message starts with the option's name, as every turn game's rules do, so the
config's error names `game.options.<name>`).

| option | default | meaning |
|---|---|---|
| `players` | 8 | N, the population (2 to the seats a game may have, 100) |
| `rounds` | 10 | rounds in a game (the match has one game unless `generations` or `games_per_generation` say more); every player donates once a round (under `pairing: halves`, at most `players`) |
| `cost` | 1 | c: what giving costs the donor |
| `benefit` | 2 | b: what a gift brings the recipient; b > c > 0 (giving creates value) |
| `endowment` | 0 | each player's score before round 1 |
| `norm` | "image_scoring" | the norm judging donors (`norms`): image_scoring, standing, stern_judging, shunning, or none (no image kept or shown) |
| `recent_actions` | 3 | k: the recipient's last k donor actions shown to its donor (0: none) |
| `second_order` | False | each of those actions also shows what its recipient had done before (its last k) |
| `round_limit_disclosed` | True | whether round_state's `round_limit` says `rounds` (else null) |
| `amount` | "binary" | `binary`: give c (the recipient gets b) or nothing; `continuous`: give any amount x from 0 to your resources, the recipient gets (b / c) x (Vallinder & Hughes 2024) |
| `punishment` | False | with continuous giving, a donor may instead punish: spend x to remove `punishment_factor` x from its recipient (Vallinder & Hughes's costly punishment) |
| `punishment_factor` | 2 | what a unit spent on punishment removes from the recipient (above 0) |
| `generations` | 1 | generations of cultural evolution; above 1, each opens with a strategy phase and ends (but the last) with the top `survivors` share kept and the rest replaced (`generations`) |
| `games_per_generation` | 1 | games a generation plays, each of `rounds` rounds from the endowment (Vallinder & Hughes: 2) |
| `survivors` | 0.5 | the share of players kept after a generation, ranked on its last game's final score |
| `pairing` | "everyone" | `everyone`: every player donates every round, to a recipient drawn afresh (a derangement); `halves`: Vallinder & Hughes's schedule, half the players donating a round, roles alternating (`pairing`) |
| `trace_links` | 2 | with `second_order`, the links of the chain shown: 2, the recipient's action and its recipient's before it; 3 adds that one's recipient's before that (Vallinder & Hughes's three) |

Binary giving: a score may fall below the endowment and below 0 (a donor may always give).
Continuous giving: a player's score is its resources, which start at `endowment` (above 0), carry
over the rounds and never go below 0 (a gift is at most what the donor holds); a norm judges a
gift or a refusal, and a gift of some share of one's resources is neither, so `norm` must be
`none` (docs/donor-game.md).

The options added after records existed (`amount`, `punishment`, `punishment_factor`,
`generations`, `games_per_generation`, `survivors`, `trace_links`, `pairing`) are stored in a match's
record only when set (pdbench.games.base.RECORDED_ONLY_WHEN_SET), so a binary match's record is
byte for byte what it was.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from pdbench.games.base import MAX_SEATS, RECORDED_ONLY_WHEN_SET
from pdbench.games.norms import NORM_CHOICES, NORMS, Norm


def _whole(name: str, value: object, low: int, high: int | None = None) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be a whole number, got {value!r}")
    if value < low or (high is not None and value > high):
        span = f"from {low} to {high}" if high is not None else f"at least {low}"
        raise ValueError(f"{name} must be {span}, got {value}")


def _number(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        raise ValueError(f"{name} must be a number, got {value!r}")


AMOUNTS = ("binary", "continuous")
PAIRINGS = ("everyone", "halves")


def exact(value: float | int) -> Fraction:
    """A config number as an exact fraction: 0.1 -> 1/10 (its shortest decimal form)."""
    return Fraction(str(value)) if isinstance(value, float) else Fraction(value)


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
    amount: str = field(default="binary", metadata={RECORDED_ONLY_WHEN_SET: True})
    trace_links: int = field(default=2, metadata={RECORDED_ONLY_WHEN_SET: True})
    punishment: bool = field(default=False, metadata={RECORDED_ONLY_WHEN_SET: True})
    punishment_factor: float = field(default=2, metadata={RECORDED_ONLY_WHEN_SET: True})
    generations: int = field(default=1, metadata={RECORDED_ONLY_WHEN_SET: True})
    games_per_generation: int = field(default=1, metadata={RECORDED_ONLY_WHEN_SET: True})
    survivors: float = field(default=0.5, metadata={RECORDED_ONLY_WHEN_SET: True})
    pairing: str = field(default="everyone", metadata={RECORDED_ONLY_WHEN_SET: True})

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
        for name in ("second_order", "round_limit_disclosed", "punishment"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be true or false, got {getattr(self, name)!r}")
        if self.second_order and self.recent_actions == 0:  # else silently nothing to expand
            raise ValueError("second_order needs recent_actions of at least 1")
        _whole("trace_links", self.trace_links, 2, 3)
        _whole("generations", self.generations, 1)
        _whole("games_per_generation", self.games_per_generation, 1)
        _number("survivors", self.survivors)
        if not 0 < self.survivors < 1 or (self.evolves and not 1 <= self.kept < self.players):
            raise ValueError(
                f"survivors must keep at least 1 player and replace at least 1 of the "
                f"{self.players} (a share, {self.players} x survivors rounded down), got "
                f"{self.survivors:g}"
            )
        if self.trace_links != 2 and not self.second_order:
            raise ValueError("trace_links needs second_order true (it lengthens that chain)")
        _number("punishment_factor", self.punishment_factor)
        if self.punishment_factor <= 0:
            raise ValueError(f"punishment_factor must be above 0, got {self.punishment_factor:g}")
        if self.amount not in AMOUNTS:
            raise ValueError(f"amount must be one of {', '.join(AMOUNTS)}, got {self.amount!r}")
        if self.punishment and not self.continuous:
            raise ValueError(
                "punishment needs amount continuous (a donor spends x of its resources to "
                "remove punishment_factor x from its recipient)"
            )
        if self.pairing not in PAIRINGS:
            raise ValueError(f"pairing must be one of {', '.join(PAIRINGS)}, got {self.pairing!r}")
        if self.halves and self.players % 2:
            raise ValueError(
                f"players must be even with pairing halves (two halves, as Vallinder & Hughes "
                f"assert), got {self.players}"
            )
        if self.halves and self.rounds > self.players:
            raise ValueError(
                f"rounds must be at most players ({self.players}) with pairing halves (Vallinder "
                f"& Hughes's schedule of a game has as many rounds as players), got {self.rounds}"
            )
        if self.continuous:
            if self.norm != "none":
                raise ValueError(
                    f"norm must be none with amount continuous (a norm judges a gift or a "
                    f"refusal, not a share of one's resources), got {self.norm!r}"
                )
            if self.endowment <= 0:
                raise ValueError(
                    f"endowment must be above 0 with amount continuous (the resources a donor "
                    f"gives from), got {self.endowment:g}"
                )

    @property
    def continuous(self) -> bool:
        """Whether a donor gives any amount up to its resources (else c or nothing)."""
        return self.amount == "continuous"

    @property
    def halves(self) -> bool:
        """Whether half the players donate a round (Vallinder & Hughes's pairing)."""
        return self.pairing == "halves"

    @property
    def kept(self) -> int:
        """How many players survive a generation: `players` x `survivors`, rounded down."""
        return int(self.players * self.survivors)

    @property
    def evolves(self) -> bool:
        """Whether the match has generations (and so strategy phases)."""
        return self.generations > 1

    @property
    def staged(self) -> bool:
        """Whether the match has more than one game (generations or games): round_state then
        says where in the match a round is."""
        return self.generations > 1 or self.games_per_generation > 1

    @property
    def total_rounds(self) -> int:
        """The donation rounds of the whole match."""
        return self.generations * self.games_per_generation * self.rounds

    @property
    def benefit_factor(self) -> Fraction:
        """b / c: what a unit given brings its recipient under continuous giving (Vallinder &
        Hughes's cooperationGain), exact."""
        return exact(self.benefit) / exact(self.cost)

    @property
    def judged_by(self) -> Norm | None:
        """The norm keeping images, None when `norm` is none."""
        return next((n for n in NORMS if n == self.norm), None)
