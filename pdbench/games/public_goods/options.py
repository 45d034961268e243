"""The options of a public goods game variant, checked when the variant is built (a bad value is
a ValueError naming the option and the value, as every turn game's rules do).

| option | default | meaning |
|---|---|---|
| `players` | 4 | N, the group size (2..10) |
| `groups` | 1 | groups playing at once; the population is `players x groups` seats |
| `endowment` | 20 | E: what each player may contribute each round (balance accounting: its start) |
| `multiplier` | 1.6 | m: the public account is multiplied by m and shared by the N members (MPCR m/N) |
| `rounds` | 10 | rounds in the match (a geometric horizon's drawn length, when the runner wires one) |
| `round_limit_disclosed` | True | whether round_state's `round_limit` says `rounds` (else null) |
| `talk` | False | a talk phase opens each round: each member one public message to its group, in turn |
| `talk_max_chars` | 280 | longest message (None: no limit); a longer one is refused and asked again |
| `talk_max_words` | None | most words in a message (pgg_bench: 50) |
| `talk_order` | "rotate" | "rotate": P1 opens round 1, P2 round 2, ...; "shuffle": a seeded order each round |
| `punish` | False | a punishment phase closes each round (or the rounds of `punish_rounds`) |
| `punish_rounds` | None | (first, last): the rounds with a punish phase (None: every round); needs `punish` |
| `max_punish` | 10 | the most points one player may give in a round, in all |
| `punish_cost` | 1 | what a point costs its giver |
| `punish_fine` | 3 | what a point takes from its target |
| `punish_one_target` | False | at most one target a round (pgg_bench) |
| `punish_cap_fraction` | None | a punishment takes at most this share of its target's purse (pgg_bench: 0.5) |
| `punish_cap_absolute` | None | ... and at most this much (pgg_bench: 100) |
| `negative_earnings` | False | whether a round's earnings may end below 0 (see below) |
| `accounting` | "per_round" | "per_round": E each round, score = sum of earnings; "balance": pgg_bench's |
| `matching` | "partners" | "partners", "strangers", "perfect_strangers" or "seat_groups" (CoopEval's reputation matching) (`matching.py`) |
| `stranger_block` | None | perfect strangers: rounds per block in which no two players meet twice |
| `reputation_depth` | 0 | k: each round a player is shown its new group's last k rounds (0: none) |
| `reputation_order` | 1 | levels of that history: 1 their own rounds, 2 also their co-players' earlier rounds, ... |

`negative_earnings` is False by default: a round's fines are cut so that no player ends a round
below zero, and a player may not spend more on punishing than it earned in the round's
contribution stage. So every round's earnings are at least 0 and no player can be driven into
debt by the others, the usual laboratory rule (pgg_bench's caps keep every balance at or above
0 too); docs/public-goods.md says what the published designs did. With True a round's earnings
are the formula's, whatever their sign.

`balance` accounting is pgg_bench's (lechmazur/pgg_bench, prompts/prompt_choose_with_msgs.txt):
players start with E and contribute from their current balance; the pot is rounded down, shared
in whole units, its remainder carried to the group's next round; the score is the final
balance. It needs fixed groups (`partners`) and balances that cannot go negative.

Reputation (`reputation_depth` k > 0) is CoopEval's mechanism (`reputation`): it needs groups
re-drawn every round (`strangers` or `perfect_strangers`); with fixed partners a player already
sees its group's rounds in its history. Both options are recorded only when set
(`pdbench.games.base.RECORDED_ONLY_WHEN_SET`): a match without reputation is stored as before.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from pdbench.games.base import MAX_SEATS, RECORDED_ONLY_WHEN_SET
from pdbench.games.public_goods.matching import (
    MATCHINGS,
    TALK_ORDERS,
    Matching,
    TalkOrder,
    perfect_stranger_problem,
)

Accounting = Literal["per_round", "balance"]
ACCOUNTINGS: tuple[str, ...] = ("per_round", "balance")
MAX_PLAYERS = 10


def _whole(name: str, value: object, low: int, high: int | None = None) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be a whole number, got {value!r}")
    if value < low or (high is not None and value > high):
        span = f"from {low} to {high}" if high is not None else f"at least {low}"
        raise ValueError(f"{name} must be {span}, got {value}")


def _number(name: str, value: object, *, positive: bool = False) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{name} must be a number, got {value!r}")
    if value < 0 or (positive and value == 0) or value != value:
        raise ValueError(f"{name} must be {'above' if positive else 'at least'} 0, got {value}")


def _choice(name: str, value: object, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(choices)}, got {value!r}")


@dataclass(frozen=True)
class Options:
    """A variant of the public goods game (the table in the module docstring)."""

    players: int = 4
    groups: int = 1
    endowment: int = 20
    multiplier: float = 1.6
    rounds: int = 10
    round_limit_disclosed: bool = True
    talk: bool = False
    talk_max_chars: int | None = 280
    talk_max_words: int | None = None
    talk_order: TalkOrder = "rotate"
    punish: bool = False
    punish_rounds: tuple[int, int] | None = None
    max_punish: int = 10
    punish_cost: float = 1
    punish_fine: float = 3
    punish_one_target: bool = False
    punish_cap_fraction: float | None = None
    punish_cap_absolute: float | None = None
    negative_earnings: bool = False
    accounting: Accounting = "per_round"
    matching: Matching = "partners"
    stranger_block: int | None = None
    reputation_depth: int = field(default=0, metadata={RECORDED_ONLY_WHEN_SET: True})
    reputation_order: int = field(default=1, metadata={RECORDED_ONLY_WHEN_SET: True})

    def __post_init__(self) -> None:
        _whole("players", self.players, 2, MAX_PLAYERS)
        _whole("groups", self.groups, 1)
        if self.players * self.groups > MAX_SEATS:
            raise ValueError(f"players x groups must be at most {MAX_SEATS}")
        _whole("endowment", self.endowment, 1)
        _number("multiplier", self.multiplier, positive=True)
        _whole("rounds", self.rounds, 1)
        for name in ("talk_max_chars", "talk_max_words", "stranger_block"):
            if getattr(self, name) is not None:
                _whole(name, getattr(self, name), 1)
        _choice("talk_order", self.talk_order, TALK_ORDERS)
        _whole("reputation_depth", self.reputation_depth, 0)
        _whole("reputation_order", self.reputation_order, 1)
        _whole("max_punish", self.max_punish, 0)
        _number("punish_cost", self.punish_cost)
        _number("punish_fine", self.punish_fine)
        for name in ("punish_cap_fraction", "punish_cap_absolute"):
            if getattr(self, name) is not None:
                _number(name, getattr(self, name))
        _choice("accounting", self.accounting, ACCOUNTINGS)
        _choice("matching", self.matching, MATCHINGS)
        for name in ("round_limit_disclosed", "talk", "punish", "punish_one_target"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be true or false, got {getattr(self, name)!r}")
        if not isinstance(self.negative_earnings, bool):
            raise ValueError(
                f"negative_earnings must be true or false, got {self.negative_earnings!r}"
            )
        self._check_punish_rounds()
        self._check_combinations()

    def _check_punish_rounds(self) -> None:
        if self.punish_rounds is None:
            return
        if not self.punish:  # else the span would be dropped in silence: no round punishes
            raise ValueError(
                "punish_rounds needs punish true (with false no round has a punish phase)"
            )
        span = self.punish_rounds
        if not isinstance(span, list | tuple) or len(span) != 2:
            raise ValueError(f"punish_rounds must be [first, last], got {span!r}")
        first, last = span
        _whole("punish_rounds' first round", first, 1, self.rounds)
        _whole("punish_rounds' last round", last, first, self.rounds)
        object.__setattr__(self, "punish_rounds", (first, last))

    def _check_combinations(self) -> None:
        if self.accounting == "balance":
            if self.matching != "partners":
                raise ValueError(
                    "accounting balance carries each group's public account from round to "
                    f"round, so it needs matching partners, got {self.matching!r}"
                )
            if self.negative_earnings:
                raise ValueError("accounting balance needs negative_earnings false")
        if self.matching == "perfect_strangers":
            block = min(self.stranger_block or self.rounds, self.rounds)
            why = perfect_stranger_problem(self.players, self.groups, block)
            if why is not None:
                raise ValueError(f"groups: {why}")
        elif self.stranger_block is not None:
            raise ValueError("stranger_block is for matching perfect_strangers only")
        if self.reputation_depth and self.matching == "partners":
            raise ValueError(
                "reputation_depth needs groups re-drawn every round (matching strangers, "
                "perfect_strangers or seat_groups): with partners a player's history already "
                "shows its group"
            )
        if self.reputation_order != 1 and not self.reputation_depth:
            raise ValueError("reputation_order needs reputation_depth above 0 (nothing is shown)")

    @property
    def population(self) -> int:
        return self.players * self.groups

    @property
    def seat_positions(self) -> int:
        """Under seat_groups the positions the seats keep as they are re-matched, so that a
        population's entries are checked to cover each equally (`config.population.
        check_population`, CoopEval's one agent per model and seat); 1 otherwise."""
        return self.players if self.matching == "seat_groups" else 1

    def punish_in(self, round_number: int) -> bool:
        """Whether round `round_number` has a punish phase."""
        if not self.punish:
            return False
        if self.punish_rounds is None:
            return True
        return self.punish_rounds[0] <= round_number <= self.punish_rounds[1]

    @property
    def block(self) -> int:
        return min(self.stranger_block or self.rounds, self.rounds)
