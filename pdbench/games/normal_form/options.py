"""The options of a normal-form game under a mechanism, checked when the variant is built (a bad
value is a ValueError starting with the option's name, as every turn game's rules raise).

| option | default | meaning |
|---|---|---|
| `base` | "pd" | the base game: a 2x2 game's id (its payoff table), "public_goods" (binary), "travellers_dilemma" or "trust_game" (CoopEval's, `base_games`) |
| `payoffs` | None | a 2x2 base's payoffs {"CC": [a, b], "CD": ..., "DC": ..., "DD": ...}; None: the table's |
| `labels` | None | a 2x2 base's two action words (the record and viewer show them); None: the game's |
| `players` | 2 | N; only a public goods base seats more than 2 (CoopEval: 3) |
| `multiplier` | 1.5 | a public goods base's m (CoopEval: 1.5), 1 <= m <= N as CoopEval requires |
| `min_claim` | 2 | a travellers_dilemma base's lowest claim A0 (CoopEval: 2) |
| `num_actions` | 4 | a travellers_dilemma base's claims A0..A{n-1} (CoopEval: 4; 2..10) |
| `claim_spacing` | 1 | a travellers_dilemma base's step between claims, above 0 (CoopEval: 1) |
| `bonus` | 2 | a travellers_dilemma base's reward to the lower claimant, paid by the higher, at least 0 (CoopEval: 2) |
| `mechanism` | "mediation" | "none" or "repetition" (the base game each round), "mediation", "contracting" |
| `rounds` | 1 | rounds of the base game in a match (CoopEval: 1 under mediation and contracting, 15 under repetition) |
| `decide` | "once" | "once": design, vote (and sign) before round 1 only, as CoopEval (design once, play once); "every_round": before every round |
| `strategies` | "pure" | "pure": a play answer names one action; "mixed": integer percentages over the actions summing to 100, the action drawn from the match's seeded chance (CoopEval) |
| `lookup_depth` | 3 | the past rounds a player is shown, newest last (CoopEval's repetition: 3); 0: none; under reputation the window of global rounds (CoopEval: 3) |
| `groups` | 1 | groups playing at once: the population is `players x groups` seats; above 1 only under reputation (at least 2 there) |
| `reputation_order` | 1 | under reputation, the levels of the shown tree (CoopEval's max_recursion_depth: 3 Reputation+, 1 Reputation-) |
| `design_scope` | "match" | mediation and contracting: "match", each match's players design afresh (decide once or every round); "run", CoopEval's design once per agent before any matchup (`mediation.py@8559e85:198-228`, `contracting.py:207-234`): an agent's design in a seat is one answer per replicate, reused by every match (recorded only when set) |
| `matching` | "random" | under reputation, how the population is re-matched: "random", CoopEval's seeded draw per seat group; "round_robin", a seeded rotation in which every player meets every player of each other seat group once before meeting anyone again (`reputation`; recorded only when set) |
| `reputation_shown` | "history" | under reputation, what a player is shown of its partner: "history", CoopEval's reputation tree; "image", its partner's image, good or bad, under `norm` (`images`; a 2-player base only; recorded only when set) |
| `norm` | None | with `reputation_shown` image, the norm setting every player's image after each round (`pdbench.games.norms`): image_scoring, standing, stern_judging or shunning; required there and refused elsewhere (recorded only when set) |
| `continuation` | None | under repetition or reputation, the classic random stop: after each round another follows with chance p (0 < p < 1), the length drawn once from the match's seed, capped by `rounds` (`continuation`); told as the chance, never the length; None: `rounds` rounds (recorded only when set) |
| `discount` | 1 | under repetition or reputation, CoopEval's continuation chance d (0 < d <= 1): below 1 the prompt tells it instead of the rounds and a score is CoopEval's discounted average of the rounds' payoffs (`scoring`); 1: the sum (recorded only when set) |

`reputation` (CoopEval's Reputation, research doc 1.3): every round the population is
re-matched (module `matching`: at random or round robin), each group plays the base game once,
and a player is shown the reputation tree of itself and its new co-players
(`pdbench.games.reputation_tree`). `groups`, `reputation_order` and `matching` are recorded only
when set, so a record without reputation is as before.

Why the default is `pure`: house players and agent files answer one action, and a pure answer
keeps a match's payoffs a function of the answers alone. CoopEval's presets set `mixed`, as its
harness samples every answer (research doc section 0).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from pdbench.games.base import MAX_SEATS, RECORDED_ONLY_WHEN_SET, FixedLength
from pdbench.games.normal_form.base_games import (
    BASES,
    BaseGame,
    binary_public_goods,
    matrix_game,
    travellers_dilemma,
    trust_game,
)
from pdbench.games.normal_form.continuation import match_length
from pdbench.games.normal_form.matching import MATCHINGS, round_robin_problem
from pdbench.games.norms import NORMS, Norm

MECHANISMS: tuple[str, ...] = ("none", "repetition", "mediation", "contracting", "reputation")
DECIDE: tuple[str, ...] = ("once", "every_round")
STRATEGIES: tuple[str, ...] = ("pure", "mixed")
DESIGN_SCOPES: tuple[str, ...] = ("match", "run")
REPUTATION_SHOWN: tuple[str, ...] = ("history", "image")  # under reputation: the tree, or images
DISCOUNTED: tuple[str, ...] = ("repetition", "reputation")  # CoopEval's RepetitiveMechanism's
OUTCOMES = ("CC", "CD", "DC", "DD")
MAX_ROUNDS = 10_000
MAX_PLAYERS = 4  # a public goods base: 2**N profiles are listed to every player
MAX_CLAIMS = 10  # a traveller's dilemma: N**2 profiles are listed to every player
CLAIM_OPTIONS = ("min_claim", "num_actions", "claim_spacing", "bonus")


def _whole(name: str, value: object, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{name} must be a whole number from {low} to {high}, got {value!r}")


def _number(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"{name} must be a number, got {value!r}")
    return value


def _choice(name: str, value: object, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(choices)}, got {value!r}")


@dataclass(frozen=True)
class Options:
    base: str = "pd"
    payoffs: dict[str, Any] | None = None
    labels: tuple[str, str] | None = None
    players: int = 2
    multiplier: float = 1.5
    # a traveller's dilemma's (recorded only when set, so that every other record is as before)
    min_claim: float = field(default=2, metadata={RECORDED_ONLY_WHEN_SET: True})
    num_actions: int = field(default=4, metadata={RECORDED_ONLY_WHEN_SET: True})
    claim_spacing: float = field(default=1, metadata={RECORDED_ONLY_WHEN_SET: True})
    bonus: float = field(default=2, metadata={RECORDED_ONLY_WHEN_SET: True})
    mechanism: str = "mediation"
    rounds: int = 1
    decide: str = "once"
    strategies: str = "pure"
    lookup_depth: int = 3
    groups: int = field(default=1, metadata={RECORDED_ONLY_WHEN_SET: True})
    reputation_order: int = field(default=1, metadata={RECORDED_ONLY_WHEN_SET: True})
    matching: str = field(default="random", metadata={RECORDED_ONLY_WHEN_SET: True})
    discount: float = field(default=1.0, metadata={RECORDED_ONLY_WHEN_SET: True})
    continuation: float | None = field(default=None, metadata={RECORDED_ONLY_WHEN_SET: True})
    reputation_shown: str = field(default="history", metadata={RECORDED_ONLY_WHEN_SET: True})
    norm: Norm | None = field(default=None, metadata={RECORDED_ONLY_WHEN_SET: True})
    design_scope: str = field(default="match", metadata={RECORDED_ONLY_WHEN_SET: True})

    game: BaseGame = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _choice("base", self.base, BASES)
        _choice("mechanism", self.mechanism, MECHANISMS)
        _choice("decide", self.decide, DECIDE)
        _choice("strategies", self.strategies, STRATEGIES)
        _whole("rounds", self.rounds, 1, MAX_ROUNDS)
        _whole("lookup_depth", self.lookup_depth, 0, MAX_ROUNDS)
        if self.base != "travellers_dilemma":
            for name in CLAIM_OPTIONS:
                if getattr(self, name) != getattr(Options, name):
                    raise ValueError(f"{name}: only a travellers_dilemma base has it")
        if self.base == "public_goods":
            _whole("players", self.players, 2, MAX_PLAYERS)
            value = self.multiplier
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ValueError(f"multiplier must be a number, got {value!r}")
            if not 1 <= value <= self.players:
                raise ValueError(
                    f"multiplier must be from 1 to players ({self.players}), got {value}"
                )
            for name in ("payoffs", "labels"):
                if getattr(self, name) is not None:
                    raise ValueError(f"{name}: only a 2x2 base has them, not public_goods")
            game = binary_public_goods(self.players, float(value))
        else:
            if self.players != 2:
                raise ValueError(f"players must be 2 for the 2x2 game {self.base}")
            game = self._two_player_game()
        object.__setattr__(self, "game", game)
        self._check_reputation()
        self._check_images()
        self._check_discount()
        self._check_continuation()
        self._check_design_scope()

    def _two_player_game(self) -> BaseGame:
        if self.base in ("travellers_dilemma", "trust_game"):
            for name in ("payoffs", "labels"):
                if getattr(self, name) is not None:
                    raise ValueError(f"{name}: only a 2x2 game of the core table has them")
        if self.base == "trust_game":
            return trust_game()
        if self.base == "travellers_dilemma":
            _whole("num_actions", self.num_actions, 2, MAX_CLAIMS)
            _number("min_claim", self.min_claim)
            if _number("claim_spacing", self.claim_spacing) <= 0:
                raise ValueError(f"claim_spacing must be above 0, got {self.claim_spacing}")
            if _number("bonus", self.bonus) < 0:
                raise ValueError(f"bonus must be at least 0, got {self.bonus}")
            return travellers_dilemma(
                self.min_claim, self.num_actions, self.claim_spacing, self.bonus
            )
        return matrix_game(self.base, self._payoffs(), self._labels())

    def _check_reputation(self) -> None:
        _whole("groups", self.groups, 1, MAX_SEATS)
        _whole("reputation_order", self.reputation_order, 1, MAX_ROUNDS)
        _choice("matching", self.matching, MATCHINGS)
        if self.mechanism != "reputation":
            if self.matching != "random":
                raise ValueError(
                    f"matching is for mechanism reputation (a population re-matched every "
                    f"round), not {self.mechanism}"
                )
            if self.groups != 1:
                raise ValueError(
                    f"groups must be 1 under {self.mechanism}: only reputation re-matches a "
                    "population of groups"
                )
            if self.reputation_order != 1:
                raise ValueError(
                    f"reputation_order is for mechanism reputation, not {self.mechanism}"
                )
            return
        if self.groups < 2:
            raise ValueError(
                f"groups must be at least 2 under reputation (a population re-matched every "
                f"round: at least {2 * self.players} seats), got {self.groups}"
            )
        if self.players * self.groups > MAX_SEATS:
            raise ValueError(f"groups: players x groups must be at most {MAX_SEATS}")
        if self.decide != "once":
            raise ValueError("decide: reputation has no design phase; leave it once")
        if self.matching == "round_robin":
            problem = round_robin_problem(self.players, self.groups)
            if problem is not None:
                raise ValueError(f"matching: {problem}")

    def _check_images(self) -> None:
        """`reputation_shown` and `norm` (the table): an image is kept of each player of a
        2-player base under reputation only, under a named norm."""
        _choice("reputation_shown", self.reputation_shown, REPUTATION_SHOWN)
        if self.reputation_shown == "history":
            if self.norm is not None:
                raise ValueError(
                    "norm is for reputation_shown image (the norm setting the images shown), "
                    "not history"
                )
            return
        if self.mechanism != "reputation":
            raise ValueError(f"reputation_shown is for mechanism reputation, not {self.mechanism}")
        if self.game.players != 2:
            raise ValueError(
                f"reputation_shown: image needs a 2-player base (one partner a round, judged "
                f"on its action towards it), not {self.base} of {self.game.players} players"
            )
        if self.norm is None:
            raise ValueError(f"norm: reputation_shown image needs one of {', '.join(NORMS)}")
        _choice("norm", self.norm, NORMS)

    @property
    def shows_images(self) -> bool:
        """Whether players are shown their partner's image instead of the history tree."""
        return self.reputation_shown == "image"

    def _check_discount(self) -> None:
        if not 0 < _number("discount", self.discount) <= 1:
            raise ValueError(f"discount must be above 0 and at most 1, got {self.discount}")
        if self.discount != 1 and self.mechanism not in DISCOUNTED:
            raise ValueError(
                f"discount is for mechanism repetition or reputation (CoopEval discounts only "
                f"their rounds), not {self.mechanism}"
            )

    def _check_continuation(self) -> None:
        if self.continuation is None:
            return
        if not 0 < _number("continuation", self.continuation) < 1:
            raise ValueError(f"continuation must be above 0 and below 1, got {self.continuation}")
        if self.mechanism not in DISCOUNTED:
            raise ValueError(
                f"continuation is for mechanism repetition or reputation, not {self.mechanism}"
            )
        if self.discount != 1:
            raise ValueError(
                "continuation and a discount below 1 are the two readings of one sentence (a "
                "random stop, or every round played and discounted): set one of them"
            )

    def match_length(self, seed: int) -> int:
        """The rounds a match of seed `seed` plays: `rounds`, or under `continuation` a seeded
        geometric draw capped by `rounds` (`continuation`)."""
        return match_length(seed, self.continuation, self.rounds)

    def _check_design_scope(self) -> None:
        _choice("design_scope", self.design_scope, DESIGN_SCOPES)
        if self.design_scope == "match":
            return
        if not self.designs:
            raise ValueError(
                f"design_scope run is for mediation or contracting, not {self.mechanism}"
            )
        if self.decide != "once":
            raise ValueError("design_scope run designs once before any match: leave decide once")

    def _payoffs(self) -> dict[str, list[float]] | None:
        if self.payoffs is None:
            return None
        if not isinstance(self.payoffs, dict) or set(self.payoffs) != set(OUTCOMES):
            raise ValueError(f"payoffs must give exactly the outcomes {', '.join(OUTCOMES)}")
        checked = {}
        for outcome, pair in self.payoffs.items():
            if (
                not isinstance(pair, list | tuple)
                or len(pair) != 2
                or any(isinstance(x, bool) or not isinstance(x, int | float) for x in pair)
            ):
                raise ValueError(f"payoffs.{outcome} must be two numbers, got {pair!r}")
            checked[outcome] = [float(x) for x in pair]
        return checked

    def _labels(self) -> tuple[str, str] | None:
        if self.labels is None:
            return None
        labels = tuple(self.labels)
        if len(labels) != 2 or not all(isinstance(x, str) and x for x in labels):
            raise ValueError(f"labels must be two words, got {self.labels!r}")
        return (labels[0], labels[1])

    def fixed_length(self) -> FixedLength:
        """`rounds` play turns; a decision (before round 1, or every round with decide
        every_round) adds a design and a vote turn, and under contracting a sign turn; every
        player acts in every turn. Under `continuation` a match may stop sooner: `rounds` is
        then the cap (`stops_early`)."""
        per_decision = 2 + (self.mechanism == "contracting")
        decisions = 0 if not self.designs else self.rounds if self.decide == "every_round" else 1
        turns = self.rounds + decisions * per_decision
        return FixedLength(
            rounds=self.rounds,
            turns=turns,
            turns_per_seat=turns,
            stops_early=self.continuation is not None,
        )

    @property
    def designs(self) -> bool:
        """Whether the mechanism has a design phase (mediation, contracting)."""
        return self.mechanism in ("mediation", "contracting")

    @property
    def population(self) -> int:
        """The seats: `players` x `groups` (one group unless under reputation)."""
        return self.players * self.groups
