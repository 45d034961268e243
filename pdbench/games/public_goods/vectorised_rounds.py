"""The rounds of many public goods matches at once, numpy over the matches, for `vectorised`
(which says what is played here and what is not): every seat a house player acting through its
`act_batch` (`policies.Seen`), every turn kept as the turn runner stores it.

Amounts are exact: every amount is a whole number of 1/`unit` (N times the multiplier's
denominator, and the cost's and fine's denominators, divide `unit`), and a shown amount is that
integer divided by `unit` in float64, the same float as the rules' Fraction gives (`problem`
keeps every integer below 2**53).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from pdbench.games.public_goods.matching import draw_round, label_names, talk_order
from pdbench.games.public_goods.observed_json import RoundStateText, digest
from pdbench.games.public_goods.policies import HousePlayer, Seen
from pdbench.games.public_goods.rules import PublicGoods


@dataclass(frozen=True)
class Turn:
    """One stored turn of one match (the turn runner's PlayedTurn, without how it was asked)."""

    round: int
    phase: str
    actions: dict[str, dict[str, Any]]  # seat -> action, in the order the seats moved
    digests: dict[str, str]  # seat -> digest of its observation
    revealed: dict[str, Any] | None


@dataclass(frozen=True)
class PlayedGroups:
    """One match: its turns in order and each seat's final score."""

    turns: list[Turn]
    scores: dict[str, float]


def unit(rules: PublicGoods) -> int:
    """The amounts' unit (module docstring): 1/unit is the smallest amount a round can make."""
    costs = rules.punish_rules
    return math.lcm(
        rules.rate.denominator * rules.players, costs.cost.denominator, costs.fine.denominator
    )


class _Match:
    """One match's per-round bookkeeping that is text, not numbers: its history per player
    (the canonical JSON of its past rounds), this round's messages per group."""

    def __init__(self, population: int, groups: int) -> None:
        self.history = [""] * population
        self.messages: list[list[str]] = [[] for _ in range(groups)]
        self.turns: list[Turn] = []


def play(
    rules: PublicGoods,
    players: dict[str, HousePlayer],
    game_seeds: list[int],
    agent_seeds: list[dict[str, int | None]],
) -> list[PlayedGroups]:
    """Play one match per game seed, every seat's player acting for all matches at once;
    `agent_seeds[m][seat]` seeds seat's stream in match m (as the turn runner's reset does)."""
    return _Play(rules, players, game_seeds, agent_seeds).run()


class _Play:
    """The state of every match between rounds: arrays over the matches for the numbers (totals
    in units, the others' last mean), text per match for the histories and messages."""

    def __init__(
        self,
        rules: PublicGoods,
        players: dict[str, HousePlayer],
        game_seeds: list[int],
        agent_seeds: list[dict[str, int | None]],
    ) -> None:
        self.rules = rules
        self.seats = rules.seats
        self.players = [players[seat] for seat in self.seats]
        self.seeds = game_seeds
        self.count = len(game_seeds)
        self.size = rules.players
        self.population = rules.population
        self.rngs = [
            [np.random.default_rng(seeds[seat]) for seeds in agent_seeds] for seat in self.seats
        ]
        self.unit = unit(rules)
        self.labels = list(label_names(self.size))
        self.matches = [_Match(self.population, rules.groups) for _ in range(self.count)]
        self.totals = np.zeros((self.count, self.population), dtype=np.int64)  # in units
        self.last_mean: np.ndarray | None = None  # per match and player
        self.draws: list[Any] = []
        # this round's punish turn per match: (actions, digests)
        self.punish_turns: list[tuple[dict[str, Any], dict[str, str]]] = []
        self.text = RoundStateText(rules, rules.platform_name)

    # --- the round's groups --------------------------------------------------------------

    def _draw(self, number: int) -> None:
        rules = self.rules
        if rules.matching == "partners" and self.draws:
            return
        self.draws = [
            draw_round(seed, number, self.size, rules.groups, rules.matching, rules.block)
            for seed in self.seeds
        ]
        groups = np.array([draw.groups for draw in self.draws], dtype=np.int64)  # M x G x N
        self.members = groups
        self.group_of = np.array([draw.group_index for draw in self.draws], dtype=np.int64)
        position = np.empty((self.count, self.population), dtype=np.int64)
        rows = np.arange(self.count)[:, None]
        for g in range(rules.groups):
            position[rows, groups[:, g, :]] = np.arange(self.size)[None, :]
        self.position = position
        self.label_of = [[draw.labels[i] for i in range(self.population)] for draw in self.draws]
        self.seat_groups = [
            [[self.seats[i] for i in members] for members in draw.groups] for draw in self.draws
        ]
        self.seat_labels = [dict(zip(self.seats, draw.labels, strict=True)) for draw in self.draws]

    def _group_values(self, values: np.ndarray) -> np.ndarray:
        """Per match, group and label position, a per-player array's values (M x G x N)."""
        return values[np.arange(self.count)[:, None, None], self.members]

    # --- observations --------------------------------------------------------------------

    def _observation(
        self,
        phase: str,
        number: int,
        m: int,
        i: int,
        scores: str,
        your_score: float,
        punish: tuple[str, int] | None = None,
    ) -> str:
        """The canonical JSON of player i's round_state in match m."""
        match = self.matches[m]
        messages = match.messages[self.group_of[m, i]]
        you = self.label_of[m][i]
        return self.text.round_state(
            phase, number, you, match.history[i], messages, scores, your_score, punish
        )

    def _scores(self, units: np.ndarray) -> tuple[list[list[str]], list[list[float]]]:
        """Per match and player, its `scores` JSON and its score, from totals in units."""
        shown = (units / self.unit).tolist()
        if self.rules.matching == "partners":
            per_group = [
                [
                    self.text.by_label([shown[m][i] for i in members])
                    for members in self.draws[m].groups
                ]
                for m in range(self.count)
            ]
            texts = [
                [per_group[m][self.group_of[m, i]] for i in range(self.population)]
                for m in range(self.count)
            ]
        else:
            texts = [
                [f'{{"{self.label_of[m][i]}":{shown[m][i]!r}}}' for i in range(self.population)]
                for m in range(self.count)
            ]
        return texts, shown

    def _seen(self, s: int, **arrays: Any) -> Seen:
        last = None if self.last_mean is None else self.last_mean[:, s]
        return Seen(self.rules.endowment, last, self.rngs[s], **arrays)

    # --- the phases ----------------------------------------------------------------------

    def _talk(self, number: int) -> None:
        rules = self.rules
        said = [self.players[s].act_batch("talk", self._seen(s)) for s in range(self.population)]
        for text in {t for texts in said for t in texts}:
            why = rules._message_problem(text)  # the rules' own check of a message
            if why is not None:  # the turn loop would refuse it and play the fallback
                raise Unplayable(f"a house player's message is refused by the rules: {why}")
        orders = [
            talk_order(seed, number, draw, rules.talk_order)
            for seed, draw in zip(self.seeds, self.draws, strict=True)
        ]
        scores, shown = self._scores(self.totals)
        for turn in range(self.size):
            for m, match in enumerate(self.matches):
                speakers = [order[turn] for order in orders[m]]
                digests, actions = {}, {}
                for i in speakers:
                    seat = self.seats[i]
                    seen = self._observation("talk", number, m, i, scores[m][i], shown[m][i])
                    digests[seat] = digest(seen)
                    actions[seat] = {"type": "message", "text": said[i][m]}
                for i in speakers:
                    match.messages[self.group_of[m, i]].append(
                        self.text.message(self.label_of[m][i], said[i][m])
                    )
                match.turns.append(Turn(number, "talk", actions, digests, None))

    def _group_json(self, values: list[list[Any]]) -> list[list[str]]:
        """Per match and group, {label: value} as canonical JSON from per-player values."""
        return [
            [
                self.text.by_label([values[m][i] for i in members])
                for members in self.draws[m].groups
            ]
            for m in range(self.count)
        ]

    def _round(self, number: int) -> None:
        rules = self.rules
        unit, size, count = self.unit, self.size, self.count
        self._draw(number)
        for match in self.matches:
            match.messages = [[] for _ in range(rules.groups)]
        if rules.talk:
            self._talk(number)
        seats = self.seats
        amounts = np.stack(
            [
                np.asarray(self.players[s].act_batch("contribute", self._seen(s)), dtype=np.int64)
                for s in range(self.population)
            ],
            axis=1,
        )  # M x P
        scores, shown = self._scores(self.totals)
        given = amounts.tolist()
        contribute_turns = []
        for m in range(count):
            actions = {
                seats[i]: {"type": "contribute", "amount": given[m][i]}
                for i in range(self.population)
            }
            digests = {
                seats[i]: digest(
                    self._observation("contribute", number, m, i, scores[m][i], shown[m][i])
                )
                for i in range(self.population)
            }
            revealed = {
                "round_number": number,
                "groups": self.seat_groups[m],
                "labels": self.seat_labels[m],
                "contributions": dict(zip(seats, given[m], strict=True)),
            }
            contribute_turns.append((actions, digests, revealed))
        sums = self._group_values(amounts).sum(axis=2)  # M x G
        rate = rules.rate
        share = sums * rate.numerator * (unit // (rate.denominator * size))
        rows = np.arange(count)[:, None]
        purse = (rules.endowment - amounts) * unit + share[rows, self.group_of]
        contributions = self._group_json(given)
        applied: list[dict[str, dict[str, int]]] | None = None
        if rules.punish_in(number):
            group_amounts = self._group_values(amounts)  # M x G x N, by label position
            after, applied = self._punish(number, purse, group_amounts, contributions)
        else:
            after = purse
        earnings = (after / unit).tolist()
        self.totals = self.totals + after
        for m, match in enumerate(self.matches):
            actions, digests, revealed = contribute_turns[m]
            shown_earnings = dict(zip(seats, earnings[m], strict=True))
            if applied is None:
                revealed["earnings"] = shown_earnings
            match.turns.append(Turn(number, "contribute", actions, digests, revealed))
        if applied is not None:
            for m, match in enumerate(self.matches):
                closing: dict[str, Any] = {"round_number": number, "punished": applied[m]}
                closing["earnings"] = dict(zip(seats, earnings[m], strict=True))
                punish_actions, punish_digests = self.punish_turns[m]
                match.turns.append(Turn(number, "punish", punish_actions, punish_digests, closing))
        self._remember(number, contributions, self._group_json(earnings), applied)
        others = (sums[rows, self.group_of] - amounts).astype(np.float64)
        self.last_mean = others / (size - 1)

    def _punish(
        self,
        number: int,
        purse: np.ndarray,
        group_amounts: np.ndarray,
        contributions: list[list[str]],
    ) -> tuple[np.ndarray, list[dict[str, dict[str, int]]]]:
        """The punish turn of every match (kept in `punish_turns`), and the purses after it
        and the points that took effect (rules._after_punishment without caps)."""
        rules, unit, count = self.rules, self.unit, self.count
        cost = int(rules.punish_rules.cost * unit)
        fine = int(rules.punish_rules.fine * unit)
        no_negative = not rules.negative_earnings
        most = np.full_like(purse, rules.max_punish)
        if no_negative and cost > 0:  # rules.max_points: what its earnings let it spend
            most = np.minimum(most, np.maximum(purse, 0) // cost)
        scores, shown = self._scores(self.totals + purse)
        rows = np.arange(count)
        points = np.zeros((count, self.population, self.population), dtype=np.int64)
        labelled = []  # per seat: points by label position, M x N
        for s in range(self.population):
            group = self.group_of[:, s]
            members = self.members[rows, group]  # M x N
            seen = self._seen(
                s,
                position=self.position[:, s],
                contributions=group_amounts[rows, group],
                max_punish=most[:, s],
            )
            given = np.asarray(self.players[s].act_batch("punish", seen), dtype=np.int64)
            labelled.append(given)
            points[rows[:, None], s, members] = given
        spent = cost * points.sum(axis=2)
        fined = fine * points.sum(axis=1)
        if no_negative:
            fined = np.minimum(fined, np.maximum(purse - spent, 0))
        after = purse - spent - fined
        seats, labels = self.seats, self.labels
        most_list = most.tolist()
        self.punish_turns = []
        applied = []
        for m in range(count):
            actions, digests, punished = {}, {}, {}
            for i in range(self.population):
                members = self.draws[m].groups[self.group_of[m, i]]
                row = labelled[i][m].tolist()
                actions[seats[i]] = {
                    "type": "punish",
                    "points": {labels[k]: n for k, n in enumerate(row) if n > 0},
                }
                if any(n > 0 for n in row):
                    punished[seats[i]] = {seats[members[k]]: n for k, n in enumerate(row) if n > 0}
                group_contributions = contributions[m][self.group_of[m, i]]
                observed = self._observation(
                    "punish",
                    number,
                    m,
                    i,
                    scores[m][i],
                    shown[m][i],
                    (group_contributions, most_list[m][i]),
                )
                digests[seats[i]] = digest(observed)
            self.punish_turns.append((actions, digests))
            applied.append(punished)
        return after, applied

    def _remember(
        self,
        number: int,
        contributions: list[list[str]],
        earnings: list[list[str]],
        applied: list[dict[str, dict[str, int]]] | None,
    ) -> None:
        """Each player's history gets this round (view._past_round, as canonical JSON)."""
        labels_of = self.label_of
        for m, match in enumerate(self.matches):
            label = labels_of[m]
            by_seat = {seat: i for i, seat in enumerate(self.seats)}
            for g, members in enumerate(self.draws[m].groups):
                punished: dict[str, dict[str, int]] = {}
                for seat, targets in (applied[m] if applied is not None else {}).items():
                    giver = by_seat[seat]
                    if self.group_of[m, giver] == g:
                        punished[label[giver]] = {label[by_seat[t]]: n for t, n in targets.items()}
                shared = self.text.past_round(number, contributions[m][g], earnings[m][g], punished)
                for i in members:
                    entry = f'{shared}"{label[i]}"}}'
                    history = match.history[i]
                    match.history[i] = f"{history},{entry}" if history else entry

    def run(self) -> list[PlayedGroups]:
        for number in range(1, self.rules.rounds + 1):
            self._round(number)
        scores = (self.totals / self.unit).tolist()
        return [
            PlayedGroups(match.turns, dict(zip(self.seats, scores[m], strict=True)))
            for m, match in enumerate(self.matches)
        ]


class Unplayable(Exception):
    """The matches cannot be played here after all (a refused message): play the turn loop."""
